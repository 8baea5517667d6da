//! S3's limits on an upload's parts ([`Limits`]): a layout outside them is
//! the file's error, named by the rule it breaks, before anything is read,
//! for regular files in the engine and for inputs read as streams alike;
//! within them, the value is S3's. And [`Policy::regular_only`]: a FIFO is
//! refused at once, never waited on.

use std::path::Path;
use std::time::{Duration, Instant};

use linerate_files::s3::checksums::Request;
use linerate_files::s3::etags::checksums_in_order;
use linerate_files::s3::layout::{Layout, Limits, OutsideS3, Policy};
use linerate_files::s3::{S3Algorithm, S3Value};
use linerate_files::{FileError, Input, NoProgress};

use crate::{Rng, write};

const MIB: u64 = 1 << 20;

/// One input's layout and outcome.
type Outcome = (Option<Layout>, Result<Vec<S3Value>, FileError>);

/// `checksums_in_order` of `inputs`: each layout and outcome, in order.
fn checksums(inputs: &[Input<'_>], policy: &Policy, algorithms: &[S3Algorithm]) -> Vec<Outcome> {
    let request = Request::new(algorithms, None).expect("request");
    let mut got = Vec::new();
    checksums_in_order(inputs, policy, &request, 2, &NoProgress, |_, layout, r| {
        got.push((layout, r));
    });
    got
}

fn broken(result: &Result<Vec<S3Value>, FileError>) -> Option<OutsideS3> {
    result.as_ref().err().and_then(OutsideS3::of)
}

#[test]
fn layouts_outside_s3s_limits_are_refused_unread_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(33);
    let small = write(dir.path(), "small", &rng.bytes(10_001));
    // 6 GiB of holes: refused before a byte of it is read, so at once.
    let huge = dir.path().join("huge");
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len(6 << 30))
        .expect("sparse file");
    let small = Input::Path(small.as_os_str());
    let huge = Input::Path(huge.as_os_str());
    let policy = |part_size, limits| Policy {
        part_size: Some(part_size),
        limits,
        ..Policy::default()
    };
    let crc32 = [S3Algorithm::Crc32];
    let started = Instant::now();
    let got = checksums(&[small, huge], &policy(1, Limits::S3), &crc32);
    assert_eq!(broken(&got[0].1), Some(OutsideS3::PartTooSmall { size: 1 }));
    assert_eq!(broken(&got[1].1), Some(OutsideS3::PartTooSmall { size: 1 }));
    let got = checksums(&[huge], &policy(6 << 30, Limits::S3), &crc32);
    assert_eq!(
        broken(&got[0].1),
        Some(OutsideS3::PartTooLarge { size: 6 << 30 })
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "something was read"
    );
    // Any part size, but at most 10,000 parts.
    let got = checksums(&[small], &policy(1, Limits::PartCount), &crc32);
    assert_eq!(
        broken(&got[0].1),
        Some(OutsideS3::TooManyParts {
            count: 10_001,
            size: 1
        })
    );
    let got = checksums(&[small], &policy(2, Limits::PartCount), &crc32);
    assert!(got[0].1.is_ok(), "{:?}", got[0].1);
    // Unchecked (the command line's): computed, the layout told.
    let got = checksums(&[small], &policy(1, Limits::Unchecked), &crc32);
    assert_eq!(
        got[0].0,
        Some(Layout::Parts {
            size: 1,
            count: 10_001
        })
    );
    assert!(got[0].1.is_ok());
    // The messages name the rule.
    let text = |b: OutsideS3| b.into_error().to_string();
    assert_eq!(
        text(OutsideS3::PartTooSmall { size: 1000 }),
        "parts of 1000 bytes: S3's parts are 5 MiB to 5 GiB (only the last may be smaller)"
    );
    assert_eq!(
        text(OutsideS3::TooManyParts {
            count: 10_001,
            size: 5 * MIB
        }),
        "10001 parts of 5 MiB: S3 takes at most 10,000 parts"
    );
}

#[test]
fn within_s3s_limits_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(34);
    let data = rng.bytes((5 * MIB + 1) as usize);
    let file = write(dir.path(), "f", &data);
    let input = Input::Path(file.as_os_str());
    // The last part is smaller than 5 MiB: that is allowed; so is one part
    // of a file smaller than any part size, and a part size over 5 GiB
    // for a file under it (one part).
    for part_size in [5 * MIB, 6 << 30, 1] {
        let policy = Policy {
            part_size: Some(part_size),
            limits: Limits::S3,
            ..Policy::default()
        };
        let one = write(dir.path(), "one", b"x");
        let inputs = [input, Input::Path(one.as_os_str())];
        let got = checksums(&inputs, &policy, &[S3Algorithm::Md5]);
        if part_size == 1 {
            assert!(broken(&got[0].1).is_some());
        } else {
            assert!(got[0].1.is_ok(), "{part_size}: {:?}", got[0].1);
        }
        assert!(got[1].1.is_ok(), "{part_size}: {:?}", got[1].1);
    }
}

#[test]
fn a_proc_file_streams_and_its_layout_is_checked_at_its_end() {
    let path = Path::new("/proc/version");
    let Ok(data) = std::fs::read(path) else {
        return;
    };
    let input = Input::Path(path.as_os_str());
    let policy = |limits| Policy {
        part_size: Some(1),
        limits,
        regular_only: true,
        ..Policy::default()
    };
    let got = checksums(&[input], &policy(Limits::S3), &[S3Algorithm::Md5]);
    assert_eq!(broken(&got[0].1), Some(OutsideS3::PartTooSmall { size: 1 }));
    let got = checksums(&[input], &policy(Limits::PartCount), &[S3Algorithm::Md5]);
    let count = data.len() as u64;
    assert_eq!(got[0].0, Some(Layout::Parts { size: 1, count }));
    let parts: Vec<u8> = data.iter().flat_map(|b| linerate::md5(&[*b])).collect();
    let want = S3Value {
        algorithm: S3Algorithm::Md5,
        value: linerate::md5(&parts).to_vec(),
        parts: Some(count),
    };
    assert_eq!(got[0].1.as_ref().ok(), Some(&vec![want]));
}

#[test]
fn regular_only_refuses_a_fifo_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let policy = Policy {
        regular_only: true,
        ..Policy::default()
    };
    let inputs = [
        Input::Path(fifo.as_os_str()),
        Input::Path("/dev/zero".as_ref()),
        Input::Path(dir.path().as_os_str()),
    ];
    let got = checksums(&inputs, &policy, &[S3Algorithm::Md5]);
    for (layout, result) in &got[..2] {
        assert_eq!(*layout, None);
        let error = result.as_ref().expect_err("refused");
        assert!(
            error.to_string().starts_with("not a regular file"),
            "{error}"
        );
    }
    // A directory fails as its read does.
    let error = got[2].1.as_ref().expect_err("a directory");
    assert_eq!(error.io_error().raw_os_error(), Some(21), "{error}");
}
