//! Files read and hashed natively with the GIL released, through the same
//! engines as `linerate sum` (files in the lanes of the multi-buffer
//! engine, on several threads) and `linerate etag`.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use linerate::HashAlgorithm;
use linerate_files::s3::checksums::Request;
use linerate_files::s3::etags::{checksums_in_order, etags_in_order};
use linerate_files::s3::layout::Policy;
use linerate_files::s3::{ChecksumType, S3Algorithm};
use linerate_files::whole::hash_in_order;
use linerate_files::{FileError, Input, NoProgress};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

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
    let mut results = py.detach(|| hash_paths(&paths, algorithm, 1));
    let digest = results
        .pop()
        .ok_or_else(|| PyOSError::new_err("no result"))?;
    Ok(PyBytes::new(
        py,
        &digest.map_err(|e| os_error(py, &paths[0], e))?,
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
    let paths = paths
        .try_iter()?
        .map(|p| os_path(&p?))
        .collect::<PyResult<Vec<_>>>()?;
    let placement = if algorithm == HashAlgorithm::Md5 && device != linerate::gpu::Device::Cpu {
        crate::cuda::placement_streams(py, device, &paths)?
    } else {
        linerate::gpu::Placement::Cpu
    };
    // A GPU that fails before anything is hashed leaves it to the CPU,
    // with a warning.
    let (results, gpu_failed) = py.detach(|| match placement {
        #[cfg(feature = "cuda")]
        linerate::gpu::Placement::Gpu(ctx) => match hash_paths_gpu(ctx, &paths) {
            Ok(r) => (r, None),
            Err(e) => (hash_paths(&paths, algorithm, threads), Some(e.to_string())),
        },
        linerate::gpu::Placement::Cpu => (hash_paths(&paths, algorithm, threads), None),
    });
    if let Some(why) = gpu_failed {
        crate::cuda::warn(py, &linerate::gpu::Unavailable(why))?;
    }
    let list = PyList::empty(py);
    for (path, result) in paths.iter().zip(results) {
        match result {
            Ok(digest) => list.append(PyBytes::new(py, &digest))?,
            Err(e) if raise => return Err(os_error(py, path, e)),
            Err(e) => list.append(os_error(py, path, e).into_value(py))?,
        }
    }
    Ok(list)
}

/// `s3_etag(path, part_size=None) -> str`: the ETag S3 shows for `path`
/// uploaded in parts of `part_size` bytes, or with the AWS CLI's defaults.
#[pyfunction]
#[pyo3(signature = (path, part_size = None))]
pub fn s3_etag(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    part_size: Option<u64>,
) -> PyResult<String> {
    if part_size == Some(0) {
        return Err(PyValueError::new_err("part_size must be positive"));
    }
    let path = os_path(path)?;
    let policy = Policy {
        part_size,
        ..Policy::default()
    };
    let inputs = [Input::Path(&path)];
    let mut result = None;
    py.detach(|| {
        etags_in_order(&inputs, &policy, 1, &NoProgress, |_, _, etag| {
            result = Some(etag);
        });
    });
    let etag = result.ok_or_else(|| PyOSError::new_err("no result"))?;
    Ok(etag.map_err(|e| os_error(py, &path, e))?.to_string())
}

/// `s3_checksums(paths, algorithms=("md5", "crc64nvme"), part_size=None,
/// type=None, threads=None, errors="raise") -> list[dict[str, str]]`: S3's
/// checksums of every path, in order, each a dict from algorithm name to
/// the value as S3 shows it, every file read once for all of them (the
/// `linerate etag --checksum` engine).
#[pyfunction]
#[pyo3(signature = (paths, algorithms = None, part_size = None, r#type = None, threads = None, errors = "raise"))]
pub fn s3_checksums_many<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    algorithms: Option<Vec<String>>,
    part_size: Option<u64>,
    r#type: Option<&str>,
    threads: Option<usize>,
    errors: &str,
) -> PyResult<Bound<'py, PyList>> {
    let raise = errors_mode(errors)?;
    let threads = thread_count(threads)?;
    let request = s3_request(algorithms, r#type)?;
    if part_size == Some(0) {
        return Err(PyValueError::new_err("part_size must be positive"));
    }
    let policy = Policy {
        part_size,
        ..Policy::default()
    };
    let paths = paths
        .try_iter()?
        .map(|p| os_path(&p?))
        .collect::<PyResult<Vec<_>>>()?;
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    let mut results = Vec::with_capacity(paths.len());
    py.detach(|| {
        checksums_in_order(
            &inputs,
            &policy,
            &request,
            threads,
            &NoProgress,
            |_, _, r| {
                results.push(r);
            },
        );
    });
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
            Err(e) if raise => return Err(os_error(py, path, e)),
            Err(e) => list.append(os_error(py, path, e).into_value(py))?,
        }
    }
    Ok(list)
}

/// The request `algorithms` (names as `linerate etag --checksum` takes
/// them; default md5 and crc64nvme) and `type` make.
fn s3_request(algorithms: Option<Vec<String>>, kind: Option<&str>) -> PyResult<Request> {
    let algorithms = match algorithms {
        None => vec![S3Algorithm::Md5, S3Algorithm::Crc64Nvme],
        Some(names) => names
            .iter()
            .map(|name| {
                S3Algorithm::from_name(name).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown S3 checksum algorithm {name:?}: give md5, crc64nvme, \
                         crc32c, crc32, sha1 or sha256"
                    ))
                })
            })
            .collect::<PyResult<_>>()?,
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
) -> Vec<Result<[u8; 16], FileError>> {
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    let mut results = Vec::with_capacity(paths.len());
    hash_in_order(
        &inputs,
        algorithm,
        threads.max(1),
        &NoProgress,
        |_, result| {
            results.push(result);
        },
    );
    results
}

/// MD5 of `paths` on the GPU; `Err` (nothing hashed) if the GPU failed.
#[cfg(feature = "cuda")]
fn hash_paths_gpu(
    ctx: &linerate::gpu::Context,
    paths: &[OsString],
) -> Result<Vec<Result<[u8; 16], FileError>>, linerate::gpu::GpuError> {
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    let mut results = Vec::with_capacity(paths.len());
    linerate_files::gpu::hash_in_order_gpu(ctx, &inputs, &NoProgress, |_, result| {
        results.push(result);
    })?;
    Ok(results)
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

/// A path from `str`, `bytes` or an `os.PathLike`, as `open` takes them.
fn os_path(path: &Bound<'_, PyAny>) -> PyResult<OsString> {
    let os = path.py().import("os")?;
    let fspath = os.call_method1("fspath", (path,)).map_err(|_| {
        PyTypeError::new_err(format!(
            "expected str, bytes or os.PathLike object, not {}",
            crate::buffer::type_name(path)
        ))
    })?;
    if let Ok(bytes) = fspath.extract::<Vec<u8>>() {
        return Ok(OsString::from_vec(bytes));
    }
    // `os.fsencode` gives the bytes `open` would use (surrogateescape).
    let bytes: Vec<u8> = os.call_method1("fsencode", (fspath,))?.extract()?;
    Ok(OsString::from_vec(bytes))
}

/// The `OSError` Python raises for the same failure: `OSError(errno,
/// strerror, filename)` becomes `FileNotFoundError`, `IsADirectoryError`...
fn os_error(py: Python<'_>, path: &OsString, e: FileError) -> PyErr {
    let bytes = path.clone().into_vec();
    // The name as Python spells it (`os.fsdecode`), so `filename` matches.
    let path = py
        .import("os")
        .and_then(|os| os.call_method1("fsdecode", (PyBytes::new(py, &bytes),)))
        .map_or_else(|_| py.None(), Bound::unbind);
    let text = e.to_string();
    match e.io_error().raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, text, path)),
        None => PyOSError::new_err(format!("{}: {text}", String::from_utf8_lossy(&bytes))),
    }
}
