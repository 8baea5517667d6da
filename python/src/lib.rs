//! The native module of the `linerate` Python package (`linerate._linerate`):
//! hashlib-style MD5 and MD5-P/K objects, HMAC and UMAC, batch APIs over
//! the multi-buffer engine and native file hashing, all over the `linerate`
//! library (and the CLI's file engines). The Python package re-exports
//! these; see python/linerate/_linerate.pyi for the signatures.

use pyo3::prelude::*;

mod buffer;
mod files;
mod hashers;
mod mac;
mod many;

#[pymodule]
fn _linerate(m: &Bound<'_, PyModule>) -> PyResult<()> {
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
    m.add_function(wrap_pyfunction!(files::hash_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::hash_files, m)?)?;
    m.add_function(wrap_pyfunction!(files::s3_etag, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
