//! Borrowing the bytes of any object that supports the buffer protocol
//! (bytes, bytearray, memoryview, array.array, NumPy arrays, mmap) without
//! copying them, as hashlib does.
//!
//! The module is built for the stable ABI of CPython 3.9 (abi3), whose
//! limited API gained `PyObject_GetBuffer`, `PyBuffer_Release` and
//! `Py_buffer` only in 3.11, so PyO3 hides its buffer wrapper below 3.11.
//! Both functions have been exported by every CPython 3 and the struct's
//! layout has not changed since 3.3; 3.11 froze exactly that layout into
//! the stable ABI. So the declarations below are those of the 3.11 stable
//! ABI, and they hold for 3.9 and 3.10 too.
//!
//! An exported buffer keeps its object alive and its memory in place (a
//! bytearray cannot be resized while exported), so the bytes may be read
//! with the GIL released. Writes to a mutable buffer by another thread at
//! the same time are the caller's race, as with hashlib: they may change
//! the digests, never what is read. So nothing that bounds a read (offsets,
//! views) is read from such a buffer after it was checked: the callers copy
//! it first.

use std::ffi::{c_char, c_int, c_void};
use std::marker::PhantomData;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

/// CPython's `Py_buffer` (Include/pybuffer.h, stable ABI since 3.11).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// `PyBUF_SIMPLE`: contiguous bytes, no format or shape wanted.
const PYBUF_SIMPLE: c_int = 0;
const PYBUF_WRITABLE: c_int = 0x0001;
const PYBUF_FORMAT: c_int = 0x0004;
/// `PyBUF_ND`: a shape but no strides, so the buffer is C-contiguous.
const PYBUF_ND: c_int = 0x0008;

/// An exported buffer, released when dropped (with the GIL held: the
/// guard cannot leave the thread, and it is dropped where the GIL is).
pub struct Exported<'py> {
    view: Box<RawBuffer>,
    /// Holds the GIL's lifetime and keeps the guard on this thread.
    _py: PhantomData<(Python<'py>, *const ())>,
}

impl<'py> Exported<'py> {
    /// Exports `obj` with `flags`; a Python exception if it has no such
    /// buffer.
    fn new(obj: &Bound<'py, PyAny>, flags: c_int) -> PyResult<Exported<'py>> {
        let mut view = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        // SAFETY: `obj` is a live object (we hold a reference and the GIL),
        // `view` points to writable memory of Py_buffer's layout, and on
        // failure CPython leaves an exception set and nothing to release.
        let status = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
        if status != 0 {
            return Err(PyErr::fetch(obj.py()));
        }
        Ok(Exported {
            view,
            _py: PhantomData,
        })
    }

    /// The exported bytes.
    pub fn bytes(&self) -> &[u8] {
        let len = usize::try_from(self.view.len).unwrap_or(0);
        if len == 0 {
            return &[];
        }
        // SAFETY: a successful export with these flags describes `len`
        // contiguous bytes at `buf`, valid and not moved until the buffer is
        // released, which happens only when `self` is dropped.
        unsafe { std::slice::from_raw_parts(self.view.buf as *const u8, len) }
    }

    /// The exported bytes, writable (exported with `PyBUF_WRITABLE`).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let len = usize::try_from(self.view.len).unwrap_or(0);
        if len == 0 {
            return &mut [];
        }
        // SAFETY: as in `bytes`; the export was writable, and `&mut self`
        // is the only way to these bytes from Rust.
        unsafe { std::slice::from_raw_parts_mut(self.view.buf as *mut u8, len) }
    }

    /// The exported bytes' addresses, for overlap checks made before any
    /// `&mut` to them exists.
    pub fn address_range(&self) -> std::ops::Range<usize> {
        let start = self.view.buf as usize;
        start..start + usize::try_from(self.view.len).unwrap_or(0)
    }

    /// The number of dimensions (exported with `PYBUF_ND`; else 1).
    pub fn ndim(&self) -> usize {
        usize::try_from(self.view.ndim).unwrap_or(0)
    }

    /// The size of one item in bytes.
    pub fn itemsize(&self) -> usize {
        usize::try_from(self.view.itemsize).unwrap_or(0)
    }

    /// The struct-module format of the items (`B` when none was given).
    pub fn format(&self) -> String {
        if self.view.format.is_null() {
            return "B".to_owned();
        }
        // SAFETY: a non-null format is a NUL-terminated string owned by the
        // exporter and valid until release.
        unsafe { std::ffi::CStr::from_ptr(self.view.format) }
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Exported<'_> {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer and
        // is released once; the guard is !Send and dropped with the GIL held.
        unsafe { PyBuffer_Release(&mut *self.view) }
    }
}

/// Bytes borrowed from a Python object: `bytes` directly, anything else
/// through its buffer.
pub enum Data<'py> {
    Bytes(Bound<'py, PyBytes>),
    Buffer(Exported<'py>),
}

impl<'py> Data<'py> {
    /// Borrows the bytes of `obj`; `TypeError` for text and for objects
    /// without a contiguous buffer, as hashlib says it.
    pub fn borrow(obj: &Bound<'py, PyAny>) -> PyResult<Data<'py>> {
        Data::take(obj.clone())
    }

    /// As [`borrow`](Self::borrow), keeping the reference given.
    pub fn take(obj: Bound<'py, PyAny>) -> PyResult<Data<'py>> {
        let obj = match obj.cast_into::<PyBytes>() {
            Ok(bytes) => return Ok(Data::Bytes(bytes)),
            Err(e) => e.into_inner(),
        };
        let obj = &obj;
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        match Exported::new(obj, PYBUF_SIMPLE) {
            Ok(view) => Ok(Data::Buffer(view)),
            // No buffer at all: hashlib's words. Otherwise the exporter's
            // own reason (a non-contiguous array, say).
            Err(e) if e.is_instance_of::<PyTypeError>(obj.py()) => {
                Err(PyTypeError::new_err(format!(
                    "object supporting the buffer API required, not '{}'",
                    type_name(obj)
                )))
            }
            Err(e) => Err(e),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Data::Bytes(b) => b.as_bytes(),
            Data::Buffer(view) => view.bytes(),
        }
    }
}

/// A C-contiguous buffer with its item format (offsets arrays).
pub fn typed<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Exported<'py>> {
    Exported::new(obj, PYBUF_FORMAT | PYBUF_ND)
}

/// A writable contiguous buffer (an output array).
pub fn writable<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Exported<'py>> {
    Exported::new(obj, PYBUF_WRITABLE)
}

/// `e`, an item's own error, as the same exception type with the item's
/// index first in its message ("item 3: ndarray is not C-contiguous"); the
/// original is its `__cause__`. An exception type that cannot be made from
/// one message is passed on unchanged.
pub fn with_item_index(py: Python<'_>, index: usize, e: PyErr) -> PyErr {
    let message = format!("item {index}: {}", e.value(py));
    match e.get_type(py).call1((message,)) {
        Ok(renamed) => {
            let renamed = PyErr::from_value(renamed);
            renamed.set_cause(py, Some(e));
            renamed
        }
        Err(_) => e,
    }
}

/// The name of `obj`'s type, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// The bytes of every item of an iterable, borrowed for as long as this
/// lives: a tuple of the items (one strong reference each, so another
/// thread emptying the caller's list frees nothing) and the exports of the
/// items that are not `bytes`.
pub struct Rows<'py> {
    _items: Bound<'py, PyTuple>,
    _views: Vec<Exported<'py>>,
    /// Each item's bytes as (address, length).
    spans: Vec<(*const u8, usize)>,
}

impl<'py> Rows<'py> {
    /// Borrows every item; the first item that has no bytes raises its
    /// error (`TypeError` where it has no buffer), with its index.
    pub fn new(items: &Bound<'py, PyAny>) -> PyResult<Rows<'py>> {
        let py = items.py();
        let tuple = if let Ok(list) = items.cast::<PyList>() {
            list.to_tuple()
        } else if let Ok(tuple) = items.cast::<PyTuple>() {
            tuple.clone()
        } else {
            PyTuple::new(py, items.try_iter()?.collect::<PyResult<Vec<_>>>()?)?
        };
        let mut views = Vec::new();
        let mut spans = Vec::with_capacity(tuple.len());
        for (index, item) in tuple.iter_borrowed().enumerate() {
            let span = if let Ok(bytes) = item.cast::<PyBytes>() {
                // SAFETY: `bytes` is a live bytes object (the tuple holds a
                // reference to it): PyBytes_AsString returns its immutable
                // storage and PyBytes_Size its length, valid while the
                // object lives, i.e. while `self` holds the tuple.
                unsafe {
                    let ptr = ffi::PyBytes_AsString(bytes.as_ptr()) as *const u8;
                    (ptr, ffi::PyBytes_Size(bytes.as_ptr()) as usize)
                }
            } else {
                let view =
                    Data::borrow(&item.to_owned()).map_err(|e| with_item_index(py, index, e))?;
                let Data::Buffer(view) = view else {
                    unreachable!("bytes are taken above")
                };
                let bytes = view.bytes();
                let span = (bytes.as_ptr(), bytes.len());
                views.push(view);
                span
            };
            spans.push(span);
        }
        Ok(Rows {
            _items: tuple,
            _views: views,
            spans,
        })
    }

    /// Every item's bytes, in order.
    pub fn slices(&self) -> Vec<&[u8]> {
        self.spans
            .iter()
            // SAFETY: every span was taken from a bytes object held by the
            // tuple or from an export held in `_views` (whose memory stays
            // put until release); both live as long as `self`.
            .map(|&(ptr, len)| unsafe { std::slice::from_raw_parts(ptr, len) })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }
}
