//! The native module of the `linerate` Python package (`linerate_hash._linerate`):
//! hashlib-style MD5 and MD5-P/K objects, HMAC and UMAC, batch APIs over
//! the multi-buffer engine and native file hashing, all over the `linerate`
//! library and its file engine (`linerate-files`). The Python package re-exports
//! these; see python/linerate/_linerate.pyi for the signatures.

use pyo3::prelude::*;

// A panic must reach Python as `PanicException`; under `panic = "abort"` it
// would end the interpreter instead. The workspace's `python` profile
// unwinds (pyproject.toml names it for pip and maturin).
#[cfg(panic = "abort")]
compile_error!(
    "the Python module must unwind on panic: build it with the `python` profile \
     (`maturin build --profile python`, or plain `maturin build` / `pip install`), not --release"
);

mod arrow_column;
mod arrow_ffi;
mod buffer;
mod column;
mod cuda;
mod files;
mod hashers;
mod mac;
mod many;
mod polars_plugin;

#[pymodule]
fn _linerate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // LINERATE_*_BACKEND and LINERATE_FILE_IO follow the command line's
    // rule: a name that is unknown, or that this CPU cannot run, is an error
    // naming the valid ones.
    linerate::backend::check_env()
        .and_then(|()| linerate_files::check_env())
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    m.add_class::<hashers::Hash>()?;
    m.add_function(wrap_pyfunction!(hashers::md5, m)?)?;
    m.add_function(wrap_pyfunction!(hashers::md5p, m)?)?;
    m.add_function(wrap_pyfunction!(hashers::new, m)?)?;
    m.add_class::<mac::HmacKey>()?;
    m.add_class::<mac::Umac>()?;
    m.add_function(wrap_pyfunction!(mac::hmac_md5, m)?)?;
    m.add_function(wrap_pyfunction!(mac::umac, m)?)?;
    m.add_function(wrap_pyfunction!(mac::compare_digest, m)?)?;
    m.add_function(wrap_pyfunction!(many::md5_many, m)?)?;
    m.add_function(wrap_pyfunction!(many::md5_many_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::md5_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(arrow_ffi::md5_arrow, m)?)?;
    m.add_class::<arrow_ffi::ArrowDigests>()?;
    m.add_function(wrap_pyfunction!(files::hash_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::hash_files, m)?)?;
    m.add_function(wrap_pyfunction!(files::s3_etag, m)?)?;
    m.add_function(wrap_pyfunction!(files::s3_checksums_many, m)?)?;
    m.add_function(wrap_pyfunction!(test_panic, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// `_test_panic(where="here")`: test-only, never for use: panics on purpose,
/// so that the tests can check that a panic reaches Python as
/// `pyo3_runtime.PanicException` wherever our code runs: `"here"` (holding
/// the GIL), `"detached"` (the GIL released) or `"thread"` (on a scoped
/// worker thread, as the column functions split their work).
#[pyfunction]
#[pyo3(name = "_test_panic", signature = (r#where = "here"))]
fn test_panic(py: Python<'_>, r#where: &str) -> PyResult<()> {
    const MESSAGE: &str = "linerate: deliberate panic (_test_panic, test-only)";
    match r#where {
        "here" => panic!("{MESSAGE}"),
        "detached" => py.detach(|| panic!("{MESSAGE}")),
        "thread" => py.detach(|| {
            // The scope re-raises a worker's panic once every worker is done.
            std::thread::scope(|s| {
                s.spawn(|| panic!("{MESSAGE}"));
            });
            Ok(())
        }),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "where must be 'here', 'detached' or 'thread', not {where:?}",
        ))),
    }
}
