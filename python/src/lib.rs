//! The native module of the `linerate` Python package (`linerate_hash._linerate`):
//! hashlib-style MD5 and MD5-P/K objects, HMAC and UMAC, batch APIs over
//! the multi-buffer engine and native file hashing, all over the `linerate`
//! library and its file engine (`linerate-files`). The Python package re-exports
//! these; see python/linerate/_linerate.pyi for the signatures.

use pyo3::prelude::*;

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
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
