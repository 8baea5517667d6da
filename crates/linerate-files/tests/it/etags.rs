//! S3 ETags in input order, against the ETag computed by definition: the
//! MD5 of the parts' MD5s, `-N`; the plain MD5 below the threshold.

use linerate::md5;
use linerate_files::s3::etags::etags_in_order;
use linerate_files::s3::layout::{Layout, Policy};
use linerate_files::{Input, NoProgress};
use linerate_sumfile::etag::Etag;

use crate::{Rng, write};

/// The ETag of `data` uploaded in parts of `size` bytes.
fn by_definition(data: &[u8], size: usize) -> Etag {
    let mut digests = Vec::new();
    let mut parts = 0;
    for part in data.chunks(size) {
        digests.extend_from_slice(&md5(part));
        parts += 1;
    }
    if data.is_empty() {
        digests.extend_from_slice(&md5(b""));
        parts = 1;
    }
    Etag {
        digest: md5(&digests),
        parts: Some(parts),
    }
}

#[test]
fn parts_of_many_files_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(7);
    let size = 1 << 20;
    let lens = [0, 1, size - 1, size, size + 1, 3 * size + 77, 9 * size];
    let files: Vec<_> = lens
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let data = rng.bytes(len);
            (write(dir.path(), &format!("e{i}"), &data), data)
        })
        .collect();
    let inputs: Vec<Input<'_>> = files
        .iter()
        .map(|(p, _)| Input::Path(p.as_os_str()))
        .collect();
    let policy = Policy {
        part_size: Some(size as u64),
        ..Policy::default()
    };
    for threads in [1, 2, 3] {
        let mut got = Vec::new();
        etags_in_order(&inputs, &policy, threads, &NoProgress, |i, layout, etag| {
            got.push((i, layout, etag.expect("read")));
        });
        for (at, (i, layout, etag)) in got.into_iter().enumerate() {
            assert_eq!(i, at);
            let data = &files[at].1;
            assert_eq!(
                etag,
                by_definition(data, size),
                "{} bytes, {threads}",
                data.len()
            );
            assert_eq!(
                layout,
                Some(Layout::Parts {
                    size: size as u64,
                    count: data.len().div_ceil(size).max(1) as u64
                })
            );
        }
    }
    // The AWS CLI's defaults: below 8 MiB one PUT, the plain MD5.
    let mut got = Vec::new();
    etags_in_order(
        &inputs[..3],
        &Policy::default(),
        2,
        &NoProgress,
        |_, layout, etag| {
            got.push((layout, etag.expect("read")));
        },
    );
    for ((layout, etag), (_, data)) in got.into_iter().zip(&files) {
        assert_eq!(layout, Some(Layout::Plain));
        assert_eq!(
            etag,
            Etag {
                digest: md5(data),
                parts: None
            }
        );
    }
}
