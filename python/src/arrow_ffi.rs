//! Arrow columns in and out through the Arrow C data interface's PyCapsule
//! protocol: `md5_arrow` takes anything with `__arrow_c_array__` (a pyarrow
//! Array, and the arrays of other Arrow libraries), takes the array over as
//! the interface says (moved out of its capsule, released when done), reads
//! its rows' bytes in place (its offsets or views copied first), and
//! returns the digests as an object with `__arrow_c_array__`, which
//! `pyarrow.array()` takes over without a copy. The producer is not
//! trusted: a released or malformed schema or array is a `ValueError`.

use std::ffi::{CStr, c_char, c_void};

use polars_arrow::array::new_empty_array;
use polars_arrow::bitmap::utils::count_zeros;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::{
    ArrowArray, ArrowSchema, export_array_to_c, export_field_to_c, import_array_from_c,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::arrow_column::{ArrayError, Memory, Shape, md5_array_of};
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
/// of 32 lowercase hex digits; `large_string` past 2 GiB); nulls stay null,
/// and their slots are not read. The array is taken over as the C data
/// interface says; another type is a TypeError, a released or invalid
/// array a ValueError (as pyarrow's ArrowInvalid).
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
    let schema = schema.pointer_checked(Some(SCHEMA))?.cast::<RawSchema>();
    let c_array = c_array.pointer_checked(Some(ARRAY))?.cast::<RawArray>();
    // SAFETY: a capsule named "arrow_schema" holds an ArrowSchema (the
    // protocol's contract), alive while the capsule is, which outlives this
    // borrow; RawSchema is its layout. Its pointers are read only once its
    // `release` says it has not been released (a released one's may dangle).
    let kind = unsafe { Kind::of(schema.as_ref()) }?;
    // SAFETY: likewise for the "arrow_array" capsule's ArrowArray.
    unsafe { check_array(c_array.as_ref(), kind) }?;
    // SAFETY: checked above to be a live ArrowArray. The interface moves it
    // out to its consumer, leaving a released (empty) struct in the capsule,
    // which its destructor then skips; `moved` releases it when dropped.
    let mut moved = unsafe { std::ptr::replace(c_array.as_ptr().cast(), ArrowArray::empty()) };
    let raw = std::ptr::from_mut(&mut moved).cast::<RawArray>();
    // SAFETY: `moved` is the array checked above, now ours, and RawArray is
    // its layout.
    let imported = if unsafe { (*raw).length } == 0 {
        // Nothing to read, and some producers leave an empty array's
        // buffers null: released unread.
        drop(moved);
        new_empty_array(kind.dtype())
    } else {
        // SAFETY: as above; nothing else refers to the struct (a local),
        // and `check_array` checked it.
        unsafe { settle_null_count(&mut *raw) };
        // SAFETY: `moved` is a live ArrowArray of `kind`'s type, whose
        // buffers were checked above as far as the interface lets a
        // consumer.
        unsafe { import_array_from_c(moved, kind.dtype()) }
            .map_err(|e| PyValueError::new_err(e.to_string()))?
    };
    let result = py
        .detach(|| md5_array_of(imported.as_ref(), Memory::Shared, hex, Shape::Flat, threads))
        .map_err(|e| match e {
            ArrayError::Type(m) => PyTypeError::new_err(m),
            ArrayError::Invalid(m) => PyValueError::new_err(m),
            ArrayError::Memory(e) => e.into_py_err(PyValueError::new_err),
        })?;
    drop(imported); // released now, not when the digests are
    let field = Field::new("md5".into(), result.dtype().clone(), true);
    Ok(ArrowDigests {
        exported: std::sync::Mutex::new(Some(Exported {
            schema: export_field_to_c(&field),
            array: export_array_to_c(result),
        })),
    })
}

/// The Arrow C data interface's `ArrowSchema` (its layout, which
/// polars-arrow's struct keeps private), read before anything is imported.
#[repr(C)]
struct RawSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut RawSchema,
    dictionary: *mut RawSchema,
    release: Option<unsafe extern "C" fn(*mut RawSchema)>,
    private_data: *mut c_void,
}

/// The interface's `ArrowArray`, likewise.
#[repr(C)]
struct RawArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut RawArray,
    dictionary: *mut RawArray,
    release: Option<unsafe extern "C" fn(*mut RawArray)>,
    private_data: *mut c_void,
}

const _: () = assert!(size_of::<RawSchema>() == size_of::<ArrowSchema>());
const _: () = assert!(size_of::<RawArray>() == size_of::<ArrowArray>());

/// The array types hashed, by their format strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Binary,
    LargeBinary,
    Utf8,
    LargeUtf8,
    BinaryView,
    Utf8View,
}

impl Kind {
    /// The type `schema` describes. A schema's metadata (an extension
    /// type's name, say) does not change its storage: it is not read.
    ///
    /// # Safety
    /// `schema` is an ArrowSchema handed over by a producer (released or
    /// not: `release` is checked before any of its pointers is followed).
    unsafe fn of(schema: &RawSchema) -> PyResult<Kind> {
        if schema.release.is_none() {
            return Err(PyValueError::new_err("Cannot import released ArrowSchema"));
        }
        if schema.format.is_null() {
            return Err(PyValueError::new_err("ArrowSchema has no format string"));
        }
        // SAFETY: a live schema's non-null format is a NUL-terminated
        // string it owns.
        let format = unsafe { CStr::from_ptr(schema.format) }.to_bytes();
        let kind = match format {
            b"z" => Kind::Binary,
            b"Z" => Kind::LargeBinary,
            b"u" => Kind::Utf8,
            b"U" => Kind::LargeUtf8,
            b"vz" => Kind::BinaryView,
            b"vu" => Kind::Utf8View,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "md5 takes binary, string, large_binary, large_string, binary_view or string_view arrays, not {}",
                    describe_format(format, !schema.dictionary.is_null())
                )));
            }
        };
        if !schema.dictionary.is_null() {
            return Err(PyTypeError::new_err(format!(
                "md5 takes binary, string, large_binary, large_string, binary_view or string_view arrays, not {}",
                describe_format(format, true)
            )));
        }
        if schema.n_children != 0 {
            return Err(PyValueError::new_err(format!(
                "ArrowSchema of format '{}' has {} children; it has none",
                String::from_utf8_lossy(format),
                schema.n_children
            )));
        }
        Ok(kind)
    }

    fn dtype(self) -> ArrowDataType {
        match self {
            Kind::Binary => ArrowDataType::Binary,
            Kind::LargeBinary => ArrowDataType::LargeBinary,
            Kind::Utf8 => ArrowDataType::Utf8,
            Kind::LargeUtf8 => ArrowDataType::LargeUtf8,
            Kind::BinaryView => ArrowDataType::BinaryView,
            Kind::Utf8View => ArrowDataType::Utf8View,
        }
    }

    /// pyarrow's name of the type.
    fn name(self) -> &'static str {
        match self {
            Kind::Binary => "binary",
            Kind::LargeBinary => "large_binary",
            Kind::Utf8 => "string",
            Kind::LargeUtf8 => "large_string",
            Kind::BinaryView => "binary_view",
            Kind::Utf8View => "string_view",
        }
    }

    /// Bytes per offset, for the offsets layouts.
    fn offset_size(self) -> Option<usize> {
        match self {
            Kind::Binary | Kind::Utf8 => Some(4),
            Kind::LargeBinary | Kind::LargeUtf8 => Some(8),
            Kind::BinaryView | Kind::Utf8View => None,
        }
    }
}

/// A type other than those hashed, for the message: the common formats
/// by their pyarrow names, others by their format string.
fn describe_format(format: &[u8], dictionary: bool) -> String {
    let name = match format {
        b"n" => "null",
        b"b" => "bool",
        b"c" => "int8",
        b"C" => "uint8",
        b"s" => "int16",
        b"S" => "uint16",
        b"i" => "int32",
        b"I" => "uint32",
        b"l" => "int64",
        b"L" => "uint64",
        b"e" => "halffloat",
        b"f" => "float",
        b"g" => "double",
        b"tdD" => "date32",
        b"tdm" => "date64",
        b"+l" => "list",
        b"+L" => "large_list",
        b"+s" => "struct",
        b"+m" => "map",
        _ => "",
    };
    let name = if name.is_empty() {
        format!("Arrow format '{}'", String::from_utf8_lossy(format))
    } else {
        name.to_owned()
    };
    if dictionary {
        format!("dictionary (indices {name})")
    } else {
        name
    }
}

/// Checks an ArrowArray of `kind` as far as the interface lets a consumer
/// (it carries no buffer sizes: a buffer's length follows from the array's
/// length and offset, and the values buffer's from the last offset, which
/// the producer vouches for), before polars-arrow imports it (it trusts
/// every field, and would read out of bounds or panic on a wrong one).
///
/// # Safety
/// `array` is an ArrowArray handed over by a producer (released or not:
/// `release` is checked before any of its pointers is followed).
unsafe fn check_array(array: &RawArray, kind: Kind) -> PyResult<()> {
    let invalid = |m: String| Err(PyValueError::new_err(m));
    if array.release.is_none() {
        return invalid("Cannot import released ArrowArray".into());
    }
    let (length, offset) = (array.length, array.offset);
    if length < 0 {
        return invalid(format!("ArrowArray length is negative ({length})"));
    }
    if offset < 0 {
        return invalid(format!("ArrowArray offset is negative ({offset})"));
    }
    // The slots the buffers cover, in bytes, must be addressable.
    let slots = (offset as u64).checked_add(length as u64 + 1);
    let widest = kind.offset_size().unwrap_or(16) as u64;
    if slots
        .and_then(|s| s.checked_mul(widest))
        .is_none_or(|b| b > isize::MAX as u64)
    {
        return invalid(format!(
            "ArrowArray offset {offset} and length {length} are past any buffer"
        ));
    }
    if array.null_count < -1 || array.null_count > length {
        return invalid(format!(
            "ArrowArray null_count {} is not within -1..={length}",
            array.null_count
        ));
    }
    if array.n_children != 0 {
        return invalid(format!(
            "ArrowArray of {} has {} children; it has none",
            kind.name(),
            array.n_children
        ));
    }
    if !array.dictionary.is_null() {
        return invalid(format!(
            "ArrowArray of {} has a dictionary; it has none",
            kind.name()
        ));
    }
    let n_buffers = array.n_buffers;
    let enough = match kind.offset_size() {
        Some(_) => n_buffers == 3,
        // validity, views, then the data buffers and their sizes (which
        // some producers leave out when there are no data buffers)
        None => n_buffers >= 2,
    };
    if !enough {
        return invalid(format!(
            "ArrowArray of {} has {n_buffers} buffers; {} are needed",
            kind.name(),
            if kind.offset_size().is_some() {
                "3"
            } else {
                "2 or more"
            }
        ));
    }
    if array.buffers.is_null() || !array.buffers.is_aligned() {
        return invalid("ArrowArray has no (or a misaligned) buffers array".into());
    }
    // SAFETY: a live array's `buffers` holds `n_buffers` pointers.
    let buffers = unsafe { std::slice::from_raw_parts(array.buffers, n_buffers as usize) };
    if buffers[0].is_null() && array.null_count > 0 {
        return invalid(format!(
            "ArrowArray has {} nulls but no validity buffer",
            array.null_count
        ));
    }
    if length == 0 {
        return Ok(()); // no buffer is read
    }
    if buffers[1].is_null() {
        return invalid("ArrowArray's buffer 1 (offsets or views) is null".into());
    }
    let last = (offset + length) as usize;
    match kind.offset_size() {
        Some(size) => {
            // SAFETY: the offsets buffer holds offset + length + 1 offsets;
            // the last is the values buffer's length, read once here as
            // polars-arrow reads it (unaligned, as a buffer may be).
            let end = unsafe {
                let at = buffers[1].cast::<u8>().add(last * size);
                if size == 4 {
                    i64::from(at.cast::<i32>().read_unaligned())
                } else {
                    at.cast::<i64>().read_unaligned()
                }
            };
            if end < 0 {
                return invalid(format!("offset {last} is negative"));
            }
            if end > 0 && buffers[2].is_null() {
                return invalid(format!(
                    "ArrowArray's buffer 2 (values) is null, and {end} bytes long"
                ));
            }
        }
        None if n_buffers > 3 => {
            // Buffers 2..n-1 hold the data, buffer n-1 their sizes (i64).
            let sizes = buffers[n_buffers as usize - 1].cast::<i64>();
            let data = &buffers[2..n_buffers as usize - 1];
            if sizes.is_null() || !sizes.is_aligned() {
                return invalid(format!(
                    "ArrowArray's buffer {} (the data buffers' sizes) is null or misaligned",
                    n_buffers - 1
                ));
            }
            for (i, &buffer) in data.iter().enumerate() {
                // SAFETY: the sizes buffer holds one i64 per data buffer,
                // aligned (checked).
                let size = unsafe { sizes.add(i).read() };
                if size < 0 {
                    return invalid(format!("data buffer {i} has a negative size ({size})"));
                }
                if size > 0 && buffer.is_null() {
                    return invalid(format!(
                        "ArrowArray's buffer {} (data) is null, and {size} bytes long",
                        i + 2
                    ));
                }
            }
        }
        None => {}
    }
    Ok(())
}

/// The interface lets a producer leave `null_count` uncomputed (-1), and
/// a validity buffer out when there are no nulls; polars-arrow takes
/// either as a count. Computed here from the bitmap, or 0 without one.
///
/// # Safety
/// `array` was checked by [`check_array`] and is owned by the caller.
unsafe fn settle_null_count(array: &mut RawArray) {
    // SAFETY: checked: `buffers` holds at least two pointers.
    let validity = unsafe { *array.buffers }.cast::<u8>();
    if validity.is_null() {
        array.null_count = 0;
    } else if array.null_count == -1 {
        let (offset, length) = (array.offset as usize, array.length as usize);
        // SAFETY: a validity buffer holds a bit for each of the first
        // offset + length slots.
        let bits = unsafe { std::slice::from_raw_parts(validity, (offset + length).div_ceil(8)) };
        array.null_count = count_zeros(bits, offset, length) as i64;
    }
}
