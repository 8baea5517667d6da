//! hashlib-style hash objects: MD5 and MD5-P/K.
//!
//! An object may be shared between threads: its state sits behind a mutex.
//! Updates of [`RELEASE_GIL_AT`] bytes or more run with the GIL released,
//! and then the mutex is taken only after the GIL is given up and let go
//! before it is taken back, so a thread waiting for the mutex while
//! holding the GIL can never wait on a thread that needs the GIL.

use std::sync::{Mutex, MutexGuard, PoisonError};

use linerate::{HashAlgorithm, Md5, Md5p};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::Data;

/// hashlib releases the GIL for updates of 2 KiB or more; so do we.
pub const RELEASE_GIL_AT: usize = 2048;

/// The hash function and its state.
#[derive(Clone)]
pub enum State {
    Md5(Md5),
    Md5p(Md5p),
}

impl State {
    /// The state for `name` (`md5`, `md5p4` ... `md5p256`, either case),
    /// parsed as `linerate sum -a` and the file functions parse it; an
    /// unknown name is hashlib's ValueError, "unsupported hash type".
    pub fn by_name(name: &str) -> PyResult<State> {
        match HashAlgorithm::from_name(name.as_bytes()) {
            Ok(HashAlgorithm::Md5) => Ok(State::Md5(Md5::new())),
            Ok(HashAlgorithm::Md5p(k)) => State::md5p(k),
            Err(e) => Err(PyValueError::new_err(format!(
                "unsupported hash type {name}: {e}"
            ))),
        }
    }

    pub fn md5p(k: usize) -> PyResult<State> {
        Md5p::new(k)
            .map(State::Md5p)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            State::Md5(h) => h.update(data),
            State::Md5p(h) => h.update(data),
        }
    }

    fn digest(&self) -> [u8; 16] {
        match self.clone() {
            State::Md5(h) => h.finalize(),
            State::Md5p(h) => h.finalize(),
        }
    }

    fn name(&self) -> String {
        match self {
            State::Md5(_) => "md5".to_owned(),
            State::Md5p(h) => format!("md5p{}", h.k()),
        }
    }
}

/// A hash object as `hashlib.new` returns.
#[pyclass(name = "Hash", module = "linerate_hash._linerate", frozen)]
pub struct Hash {
    state: Mutex<State>,
}

impl Hash {
    pub fn new(py: Python<'_>, state: State, data: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
        let hash = Hash {
            state: Mutex::new(state),
        };
        if let Some(data) = data {
            hash.absorb(py, data)?;
        }
        Ok(hash)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic cannot leave a hash state half-updated in a way that
        // matters more than the panic itself; keep going with it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn absorb(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = Data::borrow(data)?;
        with_gil_rule(py, data.bytes(), |bytes| self.lock().update(bytes));
        Ok(())
    }
}

/// Runs `f` on `data`, with the GIL released from [`RELEASE_GIL_AT`]
/// bytes on.
pub fn with_gil_rule<T: Send>(py: Python<'_>, data: &[u8], f: impl Fn(&[u8]) -> T + Sync) -> T {
    if data.len() >= RELEASE_GIL_AT {
        py.detach(|| f(data))
    } else {
        f(data)
    }
}

#[pymethods]
impl Hash {
    /// Adds the bytes of `data` (any object with a contiguous buffer).
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.absorb(py, data)
    }

    /// The digest of everything added so far (the object stays usable).
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.lock().digest())
    }

    /// The digest as 32 lower-case hex digits.
    fn hexdigest(&self) -> String {
        hex(&self.lock().digest())
    }

    /// An independent copy of the current state.
    fn copy(&self) -> Hash {
        Hash {
            state: Mutex::new(self.lock().clone()),
        }
    }

    /// `md5` or `md5pK`.
    #[getter]
    fn name(&self) -> String {
        self.lock().name()
    }

    #[getter]
    fn digest_size(&self) -> usize {
        16
    }

    /// 64: the block of the MD5 compression that every chain runs (what
    /// `hmac` pads keys to).
    #[getter]
    fn block_size(&self) -> usize {
        64
    }

    fn __repr__(&self) -> String {
        format!("<{} linerate.Hash object>", self.lock().name())
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// `md5(data=b"", *, usedforsecurity=True)`: hashlib's signature. MD5 is
/// broken for collision resistance whatever the flag says; it is accepted
/// for compatibility (FIPS builds of hashlib refuse MD5 unless it is False).
#[pyfunction]
#[pyo3(
    signature = (data = None, *, usedforsecurity = None, string = None),
    text_signature = "(data=b'', *, usedforsecurity=True, string=None)"
)]
pub fn md5(
    py: Python<'_>,
    data: Option<&Bound<'_, PyAny>>,
    usedforsecurity: Option<&Bound<'_, PyAny>>,
    string: Option<&Bound<'_, PyAny>>,
) -> PyResult<Hash> {
    security_flag(usedforsecurity)?;
    Hash::new(py, State::Md5(Md5::new()), one_of(data, string)?)
}

/// `md5p(k, data=b"")`: MD5-P/K (RFC 1810's K interleaved chains).
#[pyfunction]
#[pyo3(
    signature = (k, data = None, *, usedforsecurity = None),
    text_signature = "(k, data=b'', *, usedforsecurity=True)"
)]
pub fn md5p(
    py: Python<'_>,
    k: usize,
    data: Option<&Bound<'_, PyAny>>,
    usedforsecurity: Option<&Bound<'_, PyAny>>,
) -> PyResult<Hash> {
    security_flag(usedforsecurity)?;
    Hash::new(py, State::md5p(k)?, data)
}

/// `new(name, data=b"")`, as `hashlib.new`.
#[pyfunction]
#[pyo3(
    signature = (name, data = None, *, usedforsecurity = None, string = None),
    text_signature = "(name, data=b'', *, usedforsecurity=True, string=None)"
)]
pub fn new(
    py: Python<'_>,
    name: &str,
    data: Option<&Bound<'_, PyAny>>,
    usedforsecurity: Option<&Bound<'_, PyAny>>,
    string: Option<&Bound<'_, PyAny>>,
) -> PyResult<Hash> {
    security_flag(usedforsecurity)?;
    Hash::new(py, State::by_name(name)?, one_of(data, string)?)
}

/// hashlib takes any object as `usedforsecurity` (0, None, ...) and reads
/// only its truth, as `bool()` does (which may raise); the value changes
/// nothing here.
fn security_flag(flag: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    if let Some(flag) = flag {
        flag.is_truthy()?;
    }
    Ok(())
}

/// hashlib also takes the data as `string=` (its old keyword); not both.
fn one_of<'a, 'py>(
    data: Option<&'a Bound<'py, PyAny>>,
    string: Option<&'a Bound<'py, PyAny>>,
) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    match (data, string) {
        (Some(_), Some(_)) => Err(pyo3::exceptions::PyTypeError::new_err(
            "'data' and 'string' are mutually exclusive and support for 'string' keyword parameter is slated for removal in a future version.",
        )),
        (data, string) => Ok(data.or(string)),
    }
}
