//! Inputs that never end, or never start, and a caller that cancels: a
//! FIFO with no writer and `/dev/zero` end in an error once
//! [`Progress::cancelled`] says so, as does a large file in the engine; no
//! call waits on for ever. And files whose size the kernel makes up
//! (`/proc`, `/sys`) are read to their end, as md5sum reads them.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use linerate::HashAlgorithm;
use linerate_files::s3::checksums::Request;
use linerate_files::s3::etags::checksums_in_order;
use linerate_files::s3::layout::Policy;
use linerate_files::whole::hash_in_order;
use linerate_files::{FileError, Input, NoProgress, Progress};

/// Progress that another thread cancels.
#[derive(Default)]
struct Cancel(AtomicBool);

impl Progress for Cancel {
    fn cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How long a cancelled call may take to end: generous, on a busy machine.
const LIMIT: Duration = Duration::from_secs(10);

/// Runs `call` on a thread of its own, cancels it after 200 ms, and
/// returns what it returned and how long after the cancellation it ended;
/// fails the test if it has not ended within [`LIMIT`] (the thread is then
/// left behind: the test binary ends all the same).
fn cancelled_after_a_while<R: Send + 'static>(
    call: impl FnOnce(&dyn Progress) -> R + Send + 'static,
) -> (R, Duration) {
    let cancel: &'static Cancel = Box::leak(Box::default());
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let result = call(cancel);
        drop(sender.send(result));
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        receiver.try_recv().is_err(),
        "the call ended before it was cancelled"
    );
    cancel.0.store(true, Ordering::Relaxed);
    let at = Instant::now();
    match receiver.recv_timeout(LIMIT) {
        Ok(result) => (result, at.elapsed()),
        Err(_) => panic!("still running {LIMIT:?} after it was cancelled"),
    }
}

fn is_cancelled<T>(result: &Result<T, FileError>) -> bool {
    matches!(result, Err(e) if e.to_string() == FileError::cancelled().to_string())
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo");
}

fn path_input(path: &'static Path) -> Input<'static> {
    Input::Path(path.as_os_str())
}

#[test]
fn a_fifo_with_no_writer_and_dev_zero_end_when_cancelled() {
    let dir: &'static tempfile::TempDir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
    let fifo: &'static Path = Box::leak(dir.path().join("fifo").into_boxed_path());
    mkfifo(fifo);
    for path in [fifo, Path::new("/dev/zero")] {
        for threads in [1, 2] {
            let (results, took) = cancelled_after_a_while(move |progress| {
                let mut results = Vec::new();
                let inputs = [path_input(path)];
                hash_in_order(&inputs, HashAlgorithm::Md5, threads, progress, |_, r| {
                    results.push(r);
                });
                results
            });
            assert!(took < LIMIT, "{path:?}: {took:?}");
            assert_eq!(results.len(), 1);
            assert!(is_cancelled(&results[0]), "{path:?}: {:?}", results[0]);
        }
    }
}

#[test]
fn a_large_file_in_the_engine_ends_when_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse");
    // Holes read as zeros, fast, without using the disk: far more than
    // 200 ms of reading.
    std::fs::File::create(&path)
        .and_then(|f| f.set_len(1 << 40))
        .expect("sparse file");
    let path: &'static Path = Box::leak(path.into_boxed_path());
    for threads in [1, 3] {
        let (results, _) = cancelled_after_a_while(move |progress| {
            let mut results = Vec::new();
            let inputs = [path_input(path), path_input(path)];
            hash_in_order(&inputs, HashAlgorithm::Md5, threads, progress, |_, r| {
                results.push(r);
            });
            results
        });
        assert_eq!(results.len(), 2);
        assert!(results.iter().all(is_cancelled), "{results:?}");
        let (results, _) = cancelled_after_a_while(move |progress| {
            let mut results = Vec::new();
            let inputs = [path_input(path)];
            let policy = Policy::default();
            let request = Request::etag();
            checksums_in_order(&inputs, &policy, &request, threads, progress, |_, _, r| {
                results.push(r);
            });
            results
        });
        assert_eq!(results.len(), 1);
        assert!(results.iter().all(is_cancelled), "{results:?}");
    }
    drop(dir);
}

#[test]
fn a_fifo_with_a_writer_is_read_to_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let writer = {
        let fifo = fifo.clone();
        let data = data.clone();
        std::thread::spawn(move || {
            // After the reader opened it and waits for data.
            std::thread::sleep(Duration::from_millis(100));
            std::fs::write(&fifo, &data).expect("write the FIFO");
        })
    };
    let mut results = Vec::new();
    let inputs = [Input::Path(fifo.as_os_str())];
    hash_in_order(&inputs, HashAlgorithm::Md5, 1, &NoProgress, |_, r| {
        results.push(r);
    });
    writer.join().unwrap();
    assert_eq!(results[0].as_ref().ok(), Some(&linerate::md5(&data)));
}

/// Files of `/proc` and `/sys` whose content does not change between two
/// reads, where this system has them.
fn stable_kernel_files() -> Vec<&'static OsStr> {
    [
        "/proc/version",
        "/proc/sys/kernel/ostype",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/cpu/online",
    ]
    .into_iter()
    .map(OsStr::new)
    .filter(|p| std::fs::read(p).is_ok())
    .collect()
}

#[test]
fn files_whose_size_the_kernel_makes_up_are_read_to_their_end() {
    let files = stable_kernel_files();
    assert!(!files.is_empty(), "no /proc here");
    let inputs: Vec<Input<'_>> = files.iter().map(|p| Input::Path(p)).collect();
    for threads in [1, 2] {
        let mut got = Vec::new();
        hash_in_order(&inputs, HashAlgorithm::Md5, threads, &NoProgress, |_, r| {
            got.push(r.expect("read to its end"));
        });
        for (path, digest) in files.iter().zip(got) {
            let data = std::fs::read(path).unwrap();
            assert!(!data.is_empty(), "{path:?}");
            assert_eq!(digest, linerate::md5(&data), "{path:?}");
        }
    }
}
