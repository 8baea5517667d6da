//! Files read and hashed natively with the GIL released, through the same
//! engines as `linerate sum` (files in the lanes of the multi-buffer
//! engine, on several threads) and `linerate etag`.
//!
//! Every call can be interrupted as `hashlib.file_digest` can: the work
//! runs on a thread of its own while the calling thread waits in short
//! slices and runs Python's signal handlers between them
//! ([`interruptible`]); an exception from one (`KeyboardInterrupt`)
//! cancels the work and is raised. A FIFO with no writer or an endless
//! device (`/dev/zero`) never holds a call past a Ctrl-C.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use linerate::HashAlgorithm;
use linerate_files::s3::checksums::Request;
use linerate_files::s3::etags::{checksums_in_order, etags_in_order};
use linerate_files::s3::layout::{Limits, OutsideS3, Policy};
use linerate_files::s3::{ChecksumType, S3Algorithm};
use linerate_files::whole::hash_in_order;
use linerate_files::{FileError, Input, Progress};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::many::thread_count;

/// `hash_file(path, algo="md5") -> bytes`.
#[pyfunction]
#[pyo3(signature = (path, algo = "md5"))]
pub fn hash_file<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    algo: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let algorithm = algorithm(algo)?;
    let paths = vec![os_path(path)?];
    let mut results = interruptible(py, |progress| hash_paths(&paths, algorithm, 1, progress))?;
    let digest = results
        .pop()
        .ok_or_else(|| PyOSError::new_err("no result"))?;
    Ok(PyBytes::new(
        py,
        &digest.map_err(|e| file_error(py, &paths[0], e, None))?,
    ))
}

/// `hash_files(paths, algo="md5", threads=None, errors="raise",
/// device=None)`: the digest of every path, in order. With
/// `errors="raise"` the first path (in order) that fails raises its
/// `OSError`; with `errors="return"` the exception takes that path's place
/// in the list. `device` ("cpu", "cuda", "auto"; default from
/// LINERATE_DEVICE, else "cpu") sends MD5 of the regular files to the GPU
/// as `linerate sum --device` does.
#[pyfunction]
#[pyo3(signature = (paths, algo = "md5", threads = None, errors = "raise", device = None))]
pub fn hash_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    algo: &str,
    threads: Option<usize>,
    errors: &str,
    device: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let algorithm = algorithm(algo)?;
    let raise = errors_mode(errors)?;
    let threads = thread_count(threads)?;
    let device = crate::cuda::device(device)?;
    let paths = os_paths(paths, "hash_file")?;
    let placement = if algorithm == HashAlgorithm::Md5 && device != linerate::gpu::Device::Cpu {
        crate::cuda::placement_streams(py, device, &paths)?
    } else {
        linerate::gpu::Placement::Cpu
    };
    // A GPU that fails before anything is hashed leaves it to the CPU,
    // with a warning.
    let (results, gpu_failed) = interruptible(py, |progress| match placement {
        #[cfg(feature = "cuda")]
        linerate::gpu::Placement::Gpu(ctx) => match hash_paths_gpu(ctx, &paths, progress) {
            Ok(r) => (r, None),
            Err(e) => (
                hash_paths(&paths, algorithm, threads, progress),
                Some(e.to_string()),
            ),
        },
        linerate::gpu::Placement::Cpu => (hash_paths(&paths, algorithm, threads, progress), None),
    })?;
    if let Some(why) = gpu_failed {
        crate::cuda::warn(py, &linerate::gpu::Unavailable(why))?;
    }
    let list = PyList::empty(py);
    for (path, result) in paths.iter().zip(results) {
        match result {
            Ok(digest) => list.append(PyBytes::new(py, &digest))?,
            Err(e) if raise => return Err(file_error(py, path, e, None)),
            Err(e) => list.append(file_error(py, path, e, None).into_value(py))?,
        }
    }
    Ok(list)
}

/// `s3_etag(path, part_size=None, s3_limits=True) -> str`: the ETag S3
/// shows for `path` uploaded in parts of `part_size` bytes, or with the
/// AWS CLI's defaults.
#[pyfunction]
#[pyo3(signature = (path, part_size = None, *, s3_limits = true))]
pub fn s3_etag(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    part_size: Option<u64>,
    s3_limits: bool,
) -> PyResult<String> {
    let policy = s3_policy(part_size, s3_limits)?;
    let path = os_path(path)?;
    let inputs = [Input::Path(&path)];
    let result = interruptible(py, |progress| {
        let mut result = None;
        etags_in_order(&inputs, &policy, 1, progress, |_, _, etag| {
            result = Some(etag);
        });
        result
    })?;
    let etag = result.ok_or_else(|| PyOSError::new_err("no result"))?;
    Ok(etag
        .map_err(|e| file_error(py, &path, e, Some(part_size)))?
        .to_string())
}

/// `s3_checksums(paths, algorithms=("md5", "crc64nvme"), part_size=None,
/// type=None, threads=None, errors="raise", s3_limits=True) ->
/// list[dict[str, str]]`: S3's checksums of every path, in order, each a
/// dict from algorithm name to the value as S3 shows it, every file read
/// once for all of them (the `linerate etag --checksum` engine).
#[pyfunction]
#[pyo3(signature = (paths, algorithms = None, part_size = None, r#type = None, threads = None, errors = "raise", *, s3_limits = true))]
#[allow(clippy::too_many_arguments)]
pub fn s3_checksums_many<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    algorithms: Option<&Bound<'py, PyAny>>,
    part_size: Option<u64>,
    r#type: Option<&str>,
    threads: Option<usize>,
    errors: &str,
    s3_limits: bool,
) -> PyResult<Bound<'py, PyList>> {
    let raise = errors_mode(errors)?;
    let threads = thread_count(threads)?;
    let request = s3_request(algorithms, r#type)?;
    let policy = s3_policy(part_size, s3_limits)?;
    let paths = os_paths(paths, "s3_checksums")?;
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    let results = interruptible(py, |progress| {
        let mut results = Vec::with_capacity(inputs.len());
        checksums_in_order(&inputs, &policy, &request, threads, progress, |_, _, r| {
            results.push(r);
        });
        results
    })?;
    let list = PyList::empty(py);
    for (path, result) in paths.iter().zip(results) {
        match result {
            Ok(values) => {
                let dict = PyDict::new(py);
                for value in values {
                    dict.set_item(value.algorithm.name(), value.to_string())?;
                }
                list.append(dict)?;
            }
            Err(e) if raise => return Err(file_error(py, path, e, Some(part_size))),
            Err(e) => list.append(file_error(py, path, e, Some(part_size)).into_value(py))?,
        }
    }
    Ok(list)
}

/// How the S3 functions lay out parts: `part_size` (or the AWS CLI's
/// rule), within S3's limits unless `s3_limits` is false (then any part
/// size, still at most 10,000 parts); only regular files, whose size the
/// layout needs (and `/proc` files, read to their end).
fn s3_policy(part_size: Option<u64>, s3_limits: bool) -> PyResult<Policy> {
    if part_size == Some(0) {
        return Err(PyValueError::new_err("part_size must be positive"));
    }
    Ok(Policy {
        part_size,
        limits: if s3_limits {
            Limits::S3
        } else {
            Limits::PartCount
        },
        regular_only: true,
        ..Policy::default()
    })
}

/// The request `algorithms` (names as `linerate etag --checksum` takes
/// them, in an iterable; default md5 and crc64nvme) and `type` make.
fn s3_request(algorithms: Option<&Bound<'_, PyAny>>, kind: Option<&str>) -> PyResult<Request> {
    let algorithms = match algorithms {
        None => vec![S3Algorithm::Md5, S3Algorithm::Crc64Nvme],
        Some(names) => {
            if names.is_instance_of::<PyString>() || names.is_instance_of::<PyBytes>() {
                return Err(PyTypeError::new_err(format!(
                    "algorithms must be an iterable of names such as [\"md5\"], not a \
                     single {}",
                    crate::buffer::type_name(names)
                )));
            }
            names
                .try_iter()?
                .map(|name| {
                    let name = name?;
                    let name: String = name.extract().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "algorithms: each must be a str, not {}",
                            crate::buffer::type_name(&name)
                        ))
                    })?;
                    S3Algorithm::from_name(&name).ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "unknown S3 checksum algorithm {name:?}: give md5, crc64nvme, \
                             crc32c, crc32, sha1 or sha256"
                        ))
                    })
                })
                .collect::<PyResult<_>>()?
        }
    };
    let kind = kind
        .map(|name| {
            ChecksumType::from_name(name).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "type must be 'full-object' or 'composite', not {name:?}"
                ))
            })
        })
        .transpose()?;
    Request::new(&algorithms, kind).map_err(PyValueError::new_err)
}

/// The digest of every one of `paths`, in order, through the file engine
/// (files in the lanes of the multi-buffer engine, on `threads` threads).
/// Every path is a file name: none means standard input.
fn hash_paths(
    paths: &[OsString],
    algorithm: HashAlgorithm,
    threads: usize,
    progress: &dyn Progress,
) -> Vec<Result<[u8; 16], FileError>> {
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    let mut results = Vec::with_capacity(paths.len());
    hash_in_order(&inputs, algorithm, threads.max(1), progress, |_, result| {
        results.push(result);
    });
    results
}

/// MD5 of `paths` on the GPU; `Err` (nothing hashed) if the GPU failed.
#[cfg(feature = "cuda")]
fn hash_paths_gpu(
    ctx: &linerate::gpu::Context,
    paths: &[OsString],
    progress: &dyn Progress,
) -> Result<Vec<Result<[u8; 16], FileError>>, linerate::gpu::GpuError> {
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    let mut results = Vec::with_capacity(paths.len());
    linerate_files::gpu::hash_in_order_gpu(ctx, &inputs, progress, |_, result| {
        results.push(result);
    })?;
    Ok(results)
}

/// How often a thread waiting for file work runs Python's signal handlers.
const SIGNAL_CHECK: Duration = Duration::from_millis(20);

/// Progress nobody watches, that the calling thread cancels when a signal
/// handler raises.
#[derive(Default)]
struct Cancel {
    cancelled: AtomicBool,
}

impl Progress for Cancel {
    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// Runs `work` with the GIL released, on a thread of its own, while the
/// calling thread waits for it in slices of [`SIGNAL_CHECK`] and between
/// them takes the GIL to run Python's signal handlers
/// (`PyErr_CheckSignals`, which does so only in the main thread). An
/// exception from a handler (`KeyboardInterrupt` for Ctrl-C) cancels the
/// work through its [`Progress`], waits for it to end (within about
/// [`linerate_files::read::WAIT_SLICE`]) and is raised; what the work
/// returned is dropped.
fn interruptible<R: Send>(
    py: Python<'_>,
    work: impl FnOnce(&dyn Progress) -> R + Send,
) -> PyResult<R> {
    let cancel = Cancel::default();
    let (outcome, interrupted) = py.detach(|| {
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel::<()>();
            let cancel = &cancel;
            let worker = scope.spawn(move || {
                let result = work(cancel);
                drop(done);
                result
            });
            let mut interrupted = None;
            // The sender goes when the work ends (or panics).
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(SIGNAL_CHECK) {
                if interrupted.is_none()
                    && let Err(e) = Python::attach(|py| py.check_signals())
                {
                    cancel.cancelled.store(true, Ordering::Relaxed);
                    interrupted = Some(e);
                }
            }
            (worker.join(), interrupted)
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    // A panic in the work goes on in this thread (PanicException).
    match outcome {
        Ok(result) => Ok(result),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

fn algorithm(name: &str) -> PyResult<HashAlgorithm> {
    HashAlgorithm::from_name(name.as_bytes())
        .map_err(|e| PyValueError::new_err(format!("algo {name:?}: {e}")))
}

fn errors_mode(errors: &str) -> PyResult<bool> {
    match errors {
        "raise" => Ok(true),
        "return" => Ok(false),
        _ => Err(PyValueError::new_err(format!(
            "errors must be 'raise' or 'return', not {errors:?}"
        ))),
    }
}

/// The paths of `paths`, an iterable of paths. A lone path (`str`,
/// `bytes`, `os.PathLike`) is a `TypeError` naming the parameter rather
/// than an iterable of its characters; `single` names the function that
/// takes one.
fn os_paths(paths: &Bound<'_, PyAny>, single: &str) -> PyResult<Vec<OsString>> {
    if is_one_path(paths)? {
        return Err(PyTypeError::new_err(format!(
            "paths must be an iterable of paths, not a single {} (for one path: \
             {single}(path), or [path])",
            crate::buffer::type_name(paths)
        )));
    }
    paths
        .try_iter()?
        .map(|p| os_path(&p?))
        .collect::<PyResult<Vec<_>>>()
}

/// Whether `obj` is one path as `open` takes them: `str`, `bytes`, or an
/// object with `__fspath__` (`os.PathLike`).
fn is_one_path(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.get_type().hasattr("__fspath__")?)
}

/// A path from `str`, `bytes` or an `os.PathLike`, as `open` takes them:
/// `os.fspath`'s errors as it raises them (an exception from `__fspath__`
/// unchanged), and `ValueError("embedded null byte")` for a NUL, as `open`
/// raises it.
fn os_path(path: &Bound<'_, PyAny>) -> PyResult<OsString> {
    let os = path.py().import("os")?;
    let fspath = os.call_method1("fspath", (path,))?;
    let bytes: Vec<u8> = match fspath.cast::<PyBytes>() {
        Ok(bytes) => bytes.as_bytes().to_vec(),
        // `os.fsencode` gives the bytes `open` would use (surrogateescape).
        Err(_) => os.call_method1("fsencode", (fspath,))?.extract()?,
    };
    if bytes.contains(&0) {
        return Err(PyValueError::new_err("embedded null byte"));
    }
    Ok(OsString::from_vec(bytes))
}

/// The exception for `path`'s failure: `OSError(errno, strerror,
/// filename)` as Python raises it (`FileNotFoundError`,
/// `IsADirectoryError`...); one without an errno ("file changed while
/// reading", "not a regular file") says the name in its message. For the
/// S3 functions (`part_size` given), a layout outside S3's limits is a
/// `ValueError` naming the rule.
fn file_error(
    py: Python<'_>,
    path: &OsString,
    e: FileError,
    part_size: Option<Option<u64>>,
) -> PyErr {
    let bytes = path.clone().into_vec();
    let shown = String::from_utf8_lossy(&bytes);
    if let (Some(part_size), Some(broken)) = (part_size, OutsideS3::of(&e)) {
        let given = part_size.map_or_else(
            || "the AWS CLI's part size".into(),
            |s| format!("part_size={s}"),
        );
        let remedy = match broken {
            OutsideS3::TooManyParts { .. } => "give a larger part_size",
            _ => {
                "give a part_size within them, or s3_limits=False for a store that takes such parts"
            }
        };
        return PyValueError::new_err(format!("{shown}: {broken} ({given}; {remedy})"));
    }
    // The name as Python spells it (`os.fsdecode`), so `filename` matches.
    let name = py
        .import("os")
        .and_then(|os| os.call_method1("fsdecode", (PyBytes::new(py, &bytes),)))
        .map_or_else(|_| py.None(), Bound::unbind);
    let text = e.to_string();
    match e.io_error().raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, text, name)),
        // No errno: the message names the file (`filename` set as well
        // would make OSError print "[Errno None] None: ...").
        None => PyOSError::new_err(format!("{shown}: {text}")),
    }
}
