//! Arrow columns in and out through the Arrow C data interface's PyCapsule
//! protocol: `md5_arrow` takes anything with `__arrow_c_array__` (a pyarrow
//! Array, and the arrays of other Arrow libraries), borrows its buffers
//! (no copy), and returns the digests as an object with
//! `__arrow_c_array__`, which `pyarrow.array()` takes over without a copy.

use std::ffi::CStr;

use polars_arrow::array::Array;
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::Field;
use polars_arrow::ffi::{
    ArrowArray, ArrowSchema, export_array_to_c, export_field_to_c, import_array_from_c,
    import_field_from_c,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::arrow_column::{Shape, md5_array};
use crate::many::thread_count;

const SCHEMA: &CStr = c"arrow_schema";
const ARRAY: &CStr = c"arrow_array";

/// An exported array and its schema, each handed out once.
struct Exported {
    schema: ArrowSchema,
    array: ArrowArray,
}

// SAFETY: the structs own what they point to (Arc'd buffers and a private
// box freed by their release callbacks), which the C data interface lets
// any thread release; nothing in them is tied to the creating thread.
unsafe impl Send for Exported {}
// SAFETY: as above; shared references only read the structs.
unsafe impl Sync for Exported {}

/// The result of `md5_arrow`: an Arrow array exported through the C data
/// interface, for `pyarrow.array(result)` (or any Arrow library) to import.
#[pyclass(module = "linerate_hash._linerate", frozen)]
pub struct ArrowDigests {
    exported: std::sync::Mutex<Option<Exported>>,
}

#[pymethods]
impl ArrowDigests {
    /// The PyCapsule protocol: (schema, array) capsules; once only, as the
    /// array's buffers move to the importer.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema; // the digests have one type; none other is offered
        let taken = self
            .exported
            .lock()
            .map_err(|_| PyValueError::new_err("poisoned"))?
            .take();
        let Some(Exported { schema, array }) = taken else {
            return Err(PyValueError::new_err(
                "the digests were already taken by an importer",
            ));
        };
        let schema = PyCapsule::new_with_value(py, SendSchema(schema), SCHEMA)?;
        let array = PyCapsule::new_with_value(py, SendArray(array), ARRAY)?;
        Ok((schema, array))
    }
}

/// Capsule contents: the C structs first (the capsule's pointer is theirs).
#[repr(transparent)]
struct SendSchema(ArrowSchema);
#[repr(transparent)]
struct SendArray(ArrowArray);
// SAFETY: as for `Exported`.
unsafe impl Send for SendSchema {}
// SAFETY: as for `Exported`.
unsafe impl Send for SendArray {}

/// `md5_arrow(array, *, hex=False, threads=None)`: the MD5 of every row of
/// an Arrow binary, string, large_binary, large_string, binary_view or
/// string_view array, as `FixedSizeBinary(16)` (or with `hex`, `string`
/// of 32 lowercase hex digits; `large_string` past 2 GiB); nulls stay null.
#[pyfunction]
#[pyo3(signature = (array, *, hex = false, threads = None))]
pub fn md5_arrow(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    hex: bool,
    threads: Option<usize>,
) -> PyResult<ArrowDigests> {
    let threads = thread_count(threads)?;
    if !array.hasattr("__arrow_c_array__")? {
        return Err(PyTypeError::new_err(format!(
            "md5_arrow takes an Arrow array (an object with __arrow_c_array__), not {}",
            array.get_type().name()?
        )));
    }
    let (schema, c_array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) =
        array.call_method0("__arrow_c_array__")?.extract()?;
    let schema = schema.pointer_checked(Some(SCHEMA))?.cast::<ArrowSchema>();
    let c_array = c_array.pointer_checked(Some(ARRAY))?.cast::<ArrowArray>();
    // SAFETY: a capsule named "arrow_schema" holds a valid ArrowSchema
    // (the protocol's contract), alive while the capsule is, which outlives
    // this borrow.
    let field = unsafe { import_field_from_c(schema.as_ref()) }
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    // SAFETY: a capsule named "arrow_array" holds a valid ArrowArray; the
    // protocol moves it out to the importer, leaving a released (empty)
    // struct behind, which the capsule's destructor then skips.
    let moved = unsafe { std::ptr::replace(c_array.as_ptr(), ArrowArray::empty()) };
    // SAFETY: `moved` is a valid ArrowArray of `field`'s type.
    let imported = unsafe { import_array_from_c(moved, field.dtype().clone()) }
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let result = py
        .detach(|| md5_array(imported.as_ref(), hex, Shape::Flat, threads))
        .map_err(|e| e.into_py_err(PyTypeError::new_err))?;
    let result = with_aligned_validity(result);
    let field = Field::new("md5".into(), result.dtype().clone(), true);
    Ok(ArrowDigests {
        exported: std::sync::Mutex::new(Some(Exported {
            schema: export_field_to_c(&field),
            array: export_array_to_c(result),
        })),
    })
}

/// The C data interface gives an array one offset for all its buffers: a
/// validity bitmap copied from a sliced input (starting mid-byte) is
/// rewritten to start at bit 0, as the digests do.
fn with_aligned_validity(array: Box<dyn Array>) -> Box<dyn Array> {
    match array.validity() {
        Some(v) if v.as_slice().1 != 0 => {
            let fresh: Bitmap = v.iter().collect();
            array.with_validity(Some(fresh))
        }
        _ => array,
    }
}
