//! `md5_many` on every lanes backend against the reference, and against GNU
//! md5sum on files.

use crate::support::Rng;
use linerate::lanes::Lanes;
use linerate::lanes::many::md5_many_with;
use linerate::md5::reference;

use crate::support::lanes_backends;

fn check(lanes: &Lanes, messages: &[Vec<u8>], what: &str) {
    let slices: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
    let mut out = vec![[0u8; 16]; slices.len()];
    md5_many_with(lanes, &slices, &mut out);
    for (i, (m, got)) in messages.iter().zip(&out).enumerate() {
        assert_eq!(
            *got,
            reference::md5(m),
            "{}: {what}: message {i} of length {}",
            lanes.backend(),
            m.len()
        );
    }
}

#[test]
fn random_lengths_up_to_3000_bytes() {
    let mut rng = Rng::new(200);
    for lanes in lanes_backends() {
        let messages: Vec<Vec<u8>> = (0..300)
            .map(|_| {
                let len = rng.below(3001);
                rng.bytes(len)
            })
            .collect();
        check(&lanes, &messages, "random lengths");
    }
}

#[test]
fn every_length_around_the_padding_edges() {
    let mut rng = Rng::new(201);
    for lanes in lanes_backends() {
        let messages: Vec<Vec<u8>> = (0..=200).map(|len| rng.bytes(len)).collect();
        check(&lanes, &messages, "lengths 0..=200");
        // Reversed order: the grouping must still put each digest in its place.
        let reversed: Vec<Vec<u8>> = messages.into_iter().rev().collect();
        check(&lanes, &reversed, "lengths 200..=0");
    }
}

#[test]
fn many_equal_short_rows_across_batches() {
    let mut rng = Rng::new(202);
    let messages: Vec<Vec<u8>> = (0..9000).map(|_| rng.bytes(64)).collect();
    for lanes in lanes_backends() {
        check(&lanes, &messages, "9000 rows of 64 bytes");
    }
}

#[test]
fn a_mix_of_tiny_and_large_messages_and_unaligned_slices() {
    let mut rng = Rng::new(203);
    let big = rng.bytes(200_000);
    for lanes in lanes_backends() {
        let mut messages: Vec<Vec<u8>> = Vec::new();
        for i in 0..70 {
            let len = match i % 4 {
                0 => 0,
                1 => rng.below(64),
                2 => rng.below(100_000),
                _ => 55 + rng.below(3),
            };
            messages.push(rng.bytes(len));
        }
        check(&lanes, &messages, "mixed");
        let slices: Vec<&[u8]> = (0..40).map(|i| &big[i..i + 1000 * i]).collect();
        let mut out = vec![[0u8; 16]; slices.len()];
        md5_many_with(&lanes, &slices, &mut out);
        for (s, d) in slices.iter().zip(&out) {
            assert_eq!(*d, reference::md5(s), "{}: unaligned", lanes.backend());
        }
    }
}

#[test]
fn empty_input_and_the_default_entry_points() {
    assert!(linerate::md5_many(&[]).is_empty());
    let msgs: [&[u8]; 3] = [b"", b"a", b"abc"];
    let got = linerate::md5_many(&msgs);
    assert_eq!(hex::encode(got[2]), "900150983cd24fb0d6963f7d28e17f72");
    let mut out = [[0u8; 16]; 3];
    linerate::md5_many_into(&msgs, &mut out);
    assert_eq!(out.to_vec(), got);
    assert_eq!(hex::encode(out[0]), "d41d8cd98f00b204e9800998ecf8427e");
}

#[test]
fn agrees_with_md5sum_on_files() {
    use std::process::Command;
    if Command::new("md5sum").arg("--version").output().is_err() {
        crate::support::peer_missing("md5sum not found: the comparison with it is skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("linerate-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(204);
    let mut paths = Vec::new();
    let mut contents = Vec::new();
    for i in 0..40 {
        let len = rng.below(5000);
        let data = rng.bytes(len);
        let path = dir.join(format!("f{i}"));
        std::fs::write(&path, &data).unwrap();
        paths.push(path);
        contents.push(data);
    }
    let out = Command::new("md5sum").args(&paths).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let slices: Vec<&[u8]> = contents.iter().map(|c| &c[..]).collect();
    let ours = linerate::md5_many(&slices);
    for (line, digest) in text.lines().zip(&ours) {
        assert_eq!(&line[..32], hex::encode(digest));
    }
    assert_eq!(text.lines().count(), 40);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Random rows as a data frame keeps them: lengths around every padding
/// edge (both short batches and the long path), mixed in random order.
fn column_rows(rng: &mut Rng, count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let len = match rng.below(4) {
                0 => rng.below(130),
                1 => [0, 1, 55, 56, 63, 64, 65, 119, 120, 121, 127, 128][rng.below(12)],
                2 => 8 + rng.below(57),
                _ => rng.below(700),
            };
            rng.bytes(len)
        })
        .collect()
}

/// `md5_rows` over Arrow's offsets layout (every offset type, the column
/// starting past 0 as a sliced array does) and over its views layout
/// (inline rows, rows in two buffers), on every backend and over ranges.
#[test]
fn columns_of_offsets_and_views_match_the_reference() {
    use linerate::lanes::many::{md5_rows_range, md5_rows_with};
    use linerate::{OffsetRows, ViewRows};
    let mut rng = Rng::new(205);
    let rows = column_rows(&mut rng, 3000);
    let want: Vec<[u8; 16]> = rows.iter().map(|r| reference::md5(r)).collect();
    let mut values = b"xyz".to_vec();
    let mut offsets = vec![3i64];
    for r in &rows {
        values.extend_from_slice(r);
        offsets.push(values.len() as i64);
    }
    let offsets32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
    let offsets_u64: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
    // Views: rows of up to 12 bytes inline, longer ones alternately in two
    // buffers (the second with a 5-byte lead).
    let mut buffers: [Vec<u8>; 2] = [Vec::new(), vec![0; 5]];
    let mut views = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(&(r.len() as u32).to_le_bytes());
        if r.len() <= 12 {
            v[4..4 + r.len()].copy_from_slice(r);
        } else {
            let b = i % 2;
            v[4..8].copy_from_slice(&r[..4]);
            v[8..12].copy_from_slice(&(b as u32).to_le_bytes());
            v[12..].copy_from_slice(&(buffers[b].len() as u32).to_le_bytes());
            buffers[b].extend_from_slice(r);
        }
        views.push(v);
    }
    let buffer_slices: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
    let by_i64 = OffsetRows::new(&values, &offsets).unwrap();
    let by_i32 = OffsetRows::new(&values, &offsets32).unwrap();
    let by_u64 = OffsetRows::new(&values, &offsets_u64).unwrap();
    let by_view = ViewRows::new(&views, &buffer_slices).unwrap();
    for lanes in lanes_backends() {
        let sources: [(&str, &dyn linerate::Rows); 4] = [
            ("i64", &by_i64),
            ("i32", &by_i32),
            ("u64", &by_u64),
            ("views", &by_view),
        ];
        for (what, source) in sources {
            let mut out = vec![[0u8; 16]; rows.len()];
            md5_rows_with(&lanes, source, &mut out);
            for (i, (got, want)) in out.iter().zip(&want).enumerate() {
                assert_eq!(
                    got,
                    want,
                    "{}: {what}: row {i} of {} bytes",
                    lanes.backend(),
                    rows[i].len()
                );
            }
        }
        // Ranges, as threads split a column.
        for _ in 0..20 {
            let a = rng.below(rows.len() + 1);
            let b = a + rng.below(rows.len() - a + 1);
            let mut out = vec![[0u8; 16]; b - a];
            md5_rows_range(&lanes, &by_view, a..b, &mut out);
            assert_eq!(out, want[a..b], "{}: rows {a}..{b}", lanes.backend());
        }
    }
}
