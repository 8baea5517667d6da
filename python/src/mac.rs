//! MACs: HMAC-MD5 and HMAC-SHA1 with keys precomputed once and reused
//! (OpenSSH's 2007 lesson), UMAC (RFC 4418), and a constant-time compare.

use std::sync::{Mutex, PoisonError};

use linerate::mac::umac::{TagBits, Umac as UmacKey};
use linerate::{HmacMd5Key, HmacSha1Key};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use subtle::ConstantTimeEq;

use crate::buffer::{Data, Rows};
use crate::hashers::with_gil_rule;

/// `hmac_md5(key, msg)`: the 16-byte HMAC-MD5 tag (RFC 2104).
#[pyfunction]
pub fn hmac_md5<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    msg: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = HmacMd5Key::new(Data::borrow(key)?.bytes());
    let msg = Data::borrow(msg)?;
    let tag = with_gil_rule(py, msg.bytes(), |m| key.tag(m));
    Ok(PyBytes::new(py, &tag))
}

enum Keyed {
    Md5(HmacMd5Key),
    Sha1(HmacSha1Key),
}

/// `HmacKey(key, digest="md5")`: a key set up once (its two padded blocks
/// hashed), then used for any number of messages.
#[pyclass(name = "HmacKey", module = "linerate_hash._linerate", frozen)]
pub struct HmacKey {
    key: Keyed,
}

#[pymethods]
impl HmacKey {
    #[new]
    #[pyo3(signature = (key, digest = "md5"))]
    fn new(key: &Bound<'_, PyAny>, digest: &str) -> PyResult<HmacKey> {
        let bytes = Data::borrow(key)?;
        let key = match digest.to_ascii_lowercase().as_str() {
            "md5" => Keyed::Md5(HmacMd5Key::new(bytes.bytes())),
            "sha1" => Keyed::Sha1(HmacSha1Key::new(bytes.bytes())),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unsupported digest {digest}: HmacKey has md5 and sha1"
                )));
            }
        };
        Ok(HmacKey { key })
    }

    /// `hmac-md5` or `hmac-sha1`.
    #[getter]
    fn name(&self) -> &'static str {
        match self.key {
            Keyed::Md5(_) => "hmac-md5",
            Keyed::Sha1(_) => "hmac-sha1",
        }
    }

    /// 16 (MD5) or 20 (SHA-1).
    #[getter]
    fn digest_size(&self) -> usize {
        match self.key {
            Keyed::Md5(_) => 16,
            Keyed::Sha1(_) => 20,
        }
    }

    /// The tag of `msg`, truncated to `truncate` bytes if given (12 for
    /// HMAC-MD5-96 and HMAC-SHA1-96; at least 10 and half the digest, as
    /// RFC 2104 section 5 allows).
    #[pyo3(signature = (msg, truncate = None))]
    fn tag<'py>(
        &self,
        py: Python<'py>,
        msg: &Bound<'py, PyAny>,
        truncate: Option<usize>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let len = self.tag_len(truncate)?;
        let msg = Data::borrow(msg)?;
        let tag = with_gil_rule(py, msg.bytes(), |m| self.full_tag(m));
        Ok(PyBytes::new(py, &tag[..len]))
    }

    /// Whether `tag` is the tag of `msg` (of the full length, or of
    /// `truncate` bytes), compared in constant time. The length is the
    /// caller's, never the sender's: a tag of any other length is false.
    #[pyo3(signature = (msg, tag, truncate = None))]
    fn verify(
        &self,
        py: Python<'_>,
        msg: &Bound<'_, PyAny>,
        tag: &Bound<'_, PyAny>,
        truncate: Option<usize>,
    ) -> PyResult<bool> {
        let len = self.tag_len(truncate)?;
        let msg = Data::borrow(msg)?;
        let theirs = Data::borrow(tag)?;
        let ours = with_gil_rule(py, msg.bytes(), |m| self.full_tag(m));
        Ok(theirs.bytes().len() == len && bool::from(ours[..len].ct_eq(theirs.bytes())))
    }

    /// The tags of many messages: HMAC-MD5 runs them side by side in the
    /// multi-buffer engine, with the GIL released.
    #[pyo3(signature = (msgs, truncate = None))]
    fn tag_many<'py>(
        &self,
        py: Python<'py>,
        msgs: &Bound<'py, PyAny>,
        truncate: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let len = self.tag_len(truncate)?;
        let held = Rows::new(msgs)?;
        let slices = held.slices();
        let tags: Vec<Vec<u8>> = py.detach(|| match &self.key {
            Keyed::Md5(key) => key
                .tag_many(&slices)
                .iter()
                .map(|t| t[..len].to_vec())
                .collect(),
            Keyed::Sha1(key) => slices.iter().map(|m| key.tag(m)[..len].to_vec()).collect(),
        });
        PyList::new(py, tags.iter().map(|t| PyBytes::new(py, t)))
    }

    fn __repr__(&self) -> String {
        format!("<linerate.HmacKey {}>", self.name())
    }
}

impl HmacKey {
    fn full_tag(&self, msg: &[u8]) -> Vec<u8> {
        match &self.key {
            Keyed::Md5(key) => key.tag(msg).to_vec(),
            Keyed::Sha1(key) => key.tag(msg).to_vec(),
        }
    }

    fn tag_len(&self, truncate: Option<usize>) -> PyResult<usize> {
        let full = self.digest_size();
        let Some(len) = truncate else {
            return Ok(full);
        };
        if len > full || len < 10 || 2 * len < full {
            return Err(PyValueError::new_err(format!(
                "truncate must be from {} to {full} bytes (RFC 2104: at least 80 bits and half the output), not {len}",
                full.div_ceil(2).max(10)
            )));
        }
        Ok(len)
    }
}

/// `umac(key, bits=64)`: UMAC (RFC 4418) with a 16-byte key, tags of 32,
/// 64, 96 or 128 bits.
#[pyclass(name = "Umac", module = "linerate_hash._linerate", frozen)]
pub struct Umac {
    /// `tag` advances a cached pad, hence the lock.
    umac: Mutex<UmacKey>,
    bits: usize,
}

#[pyfunction]
#[pyo3(signature = (key, bits = 64))]
pub fn umac(key: &Bound<'_, PyAny>, bits: usize) -> PyResult<Umac> {
    let key = Data::borrow(key)?;
    let key: &[u8; 16] = key.bytes().try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "UMAC takes a 16-byte key, not {} bytes",
            key.bytes().len()
        ))
    })?;
    let tag_bits = TagBits::from_bits(bits).ok_or_else(|| {
        PyValueError::new_err(format!("UMAC tags have 32, 64, 96 or 128 bits, not {bits}"))
    })?;
    Ok(Umac {
        umac: Mutex::new(UmacKey::new(key, tag_bits)),
        bits,
    })
}

#[pymethods]
impl Umac {
    /// `umac-32` ... `umac-128`.
    #[getter]
    fn name(&self) -> String {
        format!("umac-{}", self.bits)
    }

    #[getter]
    fn digest_size(&self) -> usize {
        self.bits / 8
    }

    /// The tag of `msg` under `nonce` (1 to 16 bytes; never reuse one with
    /// the same key).
    fn tag<'py>(
        &self,
        py: Python<'py>,
        msg: &Bound<'py, PyAny>,
        nonce: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let msg = Data::borrow(msg)?;
        let nonce = Data::borrow(nonce)?;
        let nonce = nonce.bytes();
        let tag = with_gil_rule(py, msg.bytes(), |m| {
            self.lock().tag(m, nonce).map(Vec::from)
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &tag))
    }

    /// Whether `tag` is the tag of `msg` under `nonce`, in constant time.
    /// A nonce `tag` refuses (not 1 to 16 bytes) raises the same
    /// ValueError here: it is the caller's mistake, not a forged tag. A
    /// tag of the wrong length is false.
    fn verify(
        &self,
        py: Python<'_>,
        msg: &Bound<'_, PyAny>,
        nonce: &Bound<'_, PyAny>,
        tag: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let msg = Data::borrow(msg)?;
        let nonce = Data::borrow(nonce)?;
        let theirs = Data::borrow(tag)?;
        let nonce = nonce.bytes();
        let ours = with_gil_rule(py, msg.bytes(), |m| self.lock().tag(m, nonce))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        // Slices of different lengths compare unequal (subtle's rule).
        Ok(bool::from(ours.as_bytes().ct_eq(theirs.bytes())))
    }

    /// The tags of many messages, one nonce each, with the GIL released.
    fn tag_many<'py>(
        &self,
        py: Python<'py>,
        msgs: &Bound<'py, PyAny>,
        nonces: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let msgs = Rows::new(msgs)?;
        let nonces = Rows::new(nonces)?;
        if msgs.len() != nonces.len() {
            return Err(PyValueError::new_err(format!(
                "one nonce per message: {} messages, {} nonces",
                msgs.len(),
                nonces.len()
            )));
        }
        let (msgs, nonces) = (msgs.slices(), nonces.slices());
        let mut tags = Vec::new();
        py.detach(|| self.lock().tag_many(&msgs, &nonces, &mut tags))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyList::new(py, tags.iter().map(|t| PyBytes::new(py, t)))
    }

    fn __repr__(&self) -> String {
        format!("<linerate.Umac {}>", self.name())
    }
}

impl Umac {
    fn lock(&self) -> std::sync::MutexGuard<'_, UmacKey> {
        self.umac.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `compare_digest(a, b)`: equality in time that depends only on the
/// lengths, as `hmac.compare_digest` (bytes-like objects, or two ASCII
/// strings).
#[pyfunction]
pub fn compare_digest(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let (Ok(a), Ok(b)) = (a.cast::<PyString>(), b.cast::<PyString>()) {
        let (a, b) = (a.to_cow()?, b.to_cow()?);
        if !a.is_ascii() || !b.is_ascii() {
            return Err(PyTypeError::new_err(
                "comparing strings with non-ASCII characters is not supported",
            ));
        }
        return Ok(a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes())));
    }
    if a.is_instance_of::<PyString>() || b.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand types(s) or combination of types: '{}' and '{}'",
            crate::buffer::type_name(a),
            crate::buffer::type_name(b)
        )));
    }
    let (a, b) = (Data::borrow(a)?, Data::borrow(b)?);
    Ok(a.bytes().len() == b.bytes().len() && bool::from(a.bytes().ct_eq(b.bytes())))
}
