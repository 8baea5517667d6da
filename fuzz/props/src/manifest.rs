//! Manifests (`audit`'s input: `linerate sum -r`'s lines or md5sum's, from
//! elsewhere). Properties: every line is an entry, a defect or skipped,
//! in line order; names are in their normal spelling (normalising again
//! changes nothing); no path is listed twice for one function; the entries
//! written again as tagged lines read back the same, without defects.

use linerate_sumfile::format::{self, LineStyle};
use linerate_sumfile::manifest::{self, DefectKind};
use linerate_sumfile::paths::normalize;

use crate::check_lines::digest_algorithm;

pub fn manifest(data: &[u8]) {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let algorithm = digest_algorithm(selector);
    let read = manifest::read(text, algorithm).expect("reading memory never fails");
    let lines = text.split(|&b| b == b'\n').count() as u64;
    assert!(read.entries.len() + read.defects.len() <= lines as usize);
    let mut numbers: Vec<u64> = read.entries.iter().map(|e| e.line).collect();
    numbers.extend(read.defects.iter().map(|d| d.line));
    numbers.sort_unstable();
    assert!(
        numbers.windows(2).all(|w| w[0] < w[1]),
        "a line counted twice"
    );
    assert!(numbers.iter().all(|&n| (1..=lines).contains(&n)));
    let mut seen = std::collections::HashSet::new();
    for e in &read.entries {
        assert_eq!(
            normalize(&e.name),
            e.name,
            "a name not in its normal spelling"
        );
        assert!(seen.insert((e.name.clone(), e.algorithm)), "listed twice");
        assert_eq!(e.digest.len(), e.algorithm.digest_len());
    }
    for d in &read.defects {
        if let DefectKind::Duplicate { first, name } = &d.kind {
            assert!(
                *first < d.line && seen.contains(&(name.clone(), entry_algorithm(&read, *first)))
            );
        }
    }

    let mut written = Vec::new();
    let style = LineStyle {
        tagged: true,
        ..LineStyle::default()
    };
    for e in &read.entries {
        format::push_line(
            &mut written,
            e.algorithm.tag().as_bytes(),
            &e.digest,
            &e.name,
            style,
        );
    }
    let again = manifest::read(&written[..], algorithm).expect("reading memory never fails");
    assert_eq!(
        again.defects,
        [],
        "written as {:?}",
        String::from_utf8_lossy(&written)
    );
    let strip = |m: &manifest::Manifest| -> Vec<_> {
        m.entries
            .iter()
            .map(|e| (e.name.clone(), e.digest.clone(), e.algorithm))
            .collect()
    };
    assert_eq!(
        strip(&again),
        strip(&read),
        "written as {:?}",
        String::from_utf8_lossy(&written)
    );
}

/// The function of the entry on line `line`.
fn entry_algorithm(read: &manifest::Manifest, line: u64) -> linerate::cksum::DigestAlgorithm {
    read.entries
        .iter()
        .find(|e| e.line == line)
        .map(|e| e.algorithm)
        .expect("a duplicate's first line is an entry")
}
