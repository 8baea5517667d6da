//! The Polars expression plugin (`linerate_hash.polars.md5`): Polars hands
//! each chunk of a String or Binary column (view arrays) to these functions
//! through its plugin interface, one chunk per call, from its own threads
//! (so each call hashes on the calling thread), lazily and in streaming mode.
//!
//! The plugin's C entry points are written out here rather than made by
//! pyo3-polars' `polars_expr` macro: the macro turns each input's Arrow
//! type into a Polars type before any of our code runs, which panics on the
//! types this build of Polars leaves out (Categorical, Enum, Struct,
//! Decimal, Array, Int128 ...), and takes an Object column for Binary (the
//! addresses of its values). Here the Arrow type is checked first: only
//! String and Binary columns go on, anything else is Polars' error naming
//! the type, and a panic past that (none is known) is an error with its
//! message, not an abort.

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};

use polars_arrow::array::Array;
use polars_arrow::datatypes::{ArrowDataType, Field as ArrowField};
use polars_arrow::ffi::{ArrowArray, ArrowSchema, export_field_to_c, import_field_from_c};
use pyo3_polars::derive::_update_last_error;
use pyo3_polars::export::polars_core::prelude::*;
use pyo3_polars::export::polars_ffi::version_0::{
    CallerContext, SeriesExport, export_series, import_series_buffer,
};

use crate::arrow_column::{Shape, md5_array};

/// MD5 of every row as 32 lowercase hex digits (String); nulls stay null.
///
/// # Safety
/// Polars' plugin interface (version 0): `inputs` points to `len` exported
/// series, which this call consumes, and `out` to an empty one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _polars_plugin_md5_hex(
    inputs: *mut SeriesExport,
    len: usize,
    _kwargs: *const u8,
    _kwargs_len: usize,
    out: *mut SeriesExport,
    _context: *mut CallerContext,
) {
    // SAFETY: as this function's contract.
    unsafe { run(inputs, len, out, true) }
}

/// MD5 of every row as 16 bytes (Binary); nulls stay null.
///
/// # Safety
/// As [`_polars_plugin_md5_hex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _polars_plugin_md5_binary(
    inputs: *mut SeriesExport,
    len: usize,
    _kwargs: *const u8,
    _kwargs_len: usize,
    out: *mut SeriesExport,
    _context: *mut CallerContext,
) {
    // SAFETY: as this function's contract.
    unsafe { run(inputs, len, out, false) }
}

/// The result's field of `md5_hex`, when Polars plans a query: refuses
/// anything but one String or Binary column.
///
/// # Safety
/// Polars' plugin interface (version 0.1): `fields` points to `len` schemas
/// that Polars keeps, and `out` to an empty one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _polars_plugin_field_md5_hex(
    fields: *const ArrowSchema,
    len: usize,
    out: *mut ArrowSchema,
    _kwargs: *const u8,
    _kwargs_len: usize,
) {
    // SAFETY: as this function's contract.
    unsafe { field(fields, len, out, true) }
}

/// The result's field of `md5_binary`, as [`_polars_plugin_field_md5_hex`].
///
/// # Safety
/// As [`_polars_plugin_field_md5_hex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _polars_plugin_field_md5_binary(
    fields: *const ArrowSchema,
    len: usize,
    out: *mut ArrowSchema,
    _kwargs: *const u8,
    _kwargs_len: usize,
) {
    // SAFETY: as this function's contract.
    unsafe { field(fields, len, out, false) }
}

/// polars-ffi's `SeriesExport` (the plugin interface's, version 0), whose
/// fields that crate keeps private: the inputs' schemas are read through
/// this before anything converts them to Polars types.
#[repr(C)]
struct SeriesExportFields {
    field: *mut ArrowSchema,
    arrays: *mut *mut ArrowArray,
    len: usize,
    release: Option<unsafe extern "C" fn(*mut SeriesExport)>,
    private_data: *mut c_void,
}

const _: () = assert!(size_of::<SeriesExportFields>() == size_of::<SeriesExport>());

/// # Safety
/// As [`_polars_plugin_md5_hex`].
unsafe fn run(inputs: *mut SeriesExport, len: usize, out: *mut SeriesExport, hex: bool) {
    let result = caught(|| {
        // SAFETY: `inputs` holds `len` valid exports (the caller's contract).
        if let Err(e) = unsafe { check_inputs(inputs, len) } {
            // SAFETY: as above; nothing imported them.
            unsafe { release_inputs(inputs, len) };
            return Err(e);
        }
        // SAFETY: as above; the exports are consumed here, once, and their
        // types were checked to be ones this build converts.
        let series = unsafe { import_series_buffer(inputs, len) }?;
        md5_series(&series, hex)
    });
    match result {
        // SAFETY: `out` is the caller's empty export, with nothing to drop.
        Ok(digests) => unsafe { out.write(export_series(&digests)) },
        Err(e) => _update_last_error(e),
    }
}

/// Each input's Arrow type, checked before any conversion.
///
/// # Safety
/// `inputs` points to `len` valid exports.
unsafe fn check_inputs(inputs: *const SeriesExport, len: usize) -> PolarsResult<()> {
    one_column(len)?;
    // SAFETY: a valid export's `field` is a valid schema (the interface's
    // contract), read through the mirror of its layout.
    let schema = unsafe { &*(*inputs.cast::<SeriesExportFields>()).field };
    // SAFETY: as above.
    let field = unsafe { import_field_from_c(schema) }?;
    check_type(&field)
}

/// Releases exports that will not be imported: each array (the export's
/// release frees only its own boxes, as an import takes the arrays over),
/// then the export.
///
/// # Safety
/// `inputs` points to `len` valid exports, not used again.
unsafe fn release_inputs(inputs: *mut SeriesExport, len: usize) {
    for i in 0..len {
        // SAFETY: each export is valid and consumed once, here: its arrays
        // moved out and dropped (released), then the export itself.
        unsafe {
            let export = inputs.add(i).read();
            let fields = &*(&raw const export).cast::<SeriesExportFields>();
            for k in 0..fields.len {
                drop((*fields.arrays.add(k)).read());
            }
            drop(export);
        }
    }
}

/// # Safety
/// As [`_polars_plugin_field_md5_hex`].
unsafe fn field(fields: *const ArrowSchema, len: usize, out: *mut ArrowSchema, hex: bool) {
    let result = caught(|| {
        one_column(len)?;
        // SAFETY: Polars passes one valid schema (checked: `len` is 1).
        let input = unsafe { import_field_from_c(&*fields) }?;
        check_type(&input)?;
        let dtype = if hex {
            ArrowDataType::Utf8View
        } else {
            ArrowDataType::BinaryView
        };
        Ok(ArrowField::new(input.name, dtype, true))
    });
    match result {
        // SAFETY: `out` is the caller's empty schema, with nothing to drop.
        Ok(f) => unsafe { out.write(export_field_to_c(&f)) },
        Err(e) => _update_last_error(e),
    }
}

fn one_column(len: usize) -> PolarsResult<()> {
    if len != 1 {
        polars_bail!(InvalidOperation: "md5 takes one column, not {}", len);
    }
    Ok(())
}

/// String and Binary columns (in any of Arrow's layouts), and nothing else.
fn check_type(field: &ArrowField) -> PolarsResult<()> {
    use ArrowDataType as A;
    match field.dtype {
        A::Utf8View | A::Utf8 | A::LargeUtf8 | A::BinaryView | A::Binary | A::LargeBinary => Ok(()),
        ref other => polars_bail!(
            InvalidOperation: "md5 takes String or Binary columns, not {} (column {:?})",
            polars_name(other), field.name.as_str()
        ),
    }
}

/// A column's type as Python's Polars shows it (`Int64`, `Categorical`,
/// `List(Categorical)` ...), from its Arrow type: the conversion to a
/// Polars type is what panics on types this build leaves out.
fn polars_name(dtype: &ArrowDataType) -> String {
    use ArrowDataType as A;
    let name = match dtype {
        A::Null => "Null",
        A::Boolean => "Boolean",
        A::Int8 => "Int8",
        A::Int16 => "Int16",
        A::Int32 => "Int32",
        A::Int64 => "Int64",
        A::Int128 => "Int128",
        A::UInt8 => "UInt8",
        A::UInt16 => "UInt16",
        A::UInt32 => "UInt32",
        A::UInt64 => "UInt64",
        A::UInt128 => "UInt128",
        A::Float16 => "Float16",
        A::Float32 => "Float32",
        A::Float64 => "Float64",
        A::Date32 | A::Date64 => "Date",
        A::Timestamp(..) => "Datetime",
        A::Duration(_) => "Duration",
        A::Time32(_) | A::Time64(_) => "Time",
        A::Dictionary(_, _, true) => "Enum",
        A::Dictionary(_, _, false) => "Categorical",
        A::Struct(_) => "Struct",
        A::Utf8 | A::LargeUtf8 | A::Utf8View => "String",
        A::Binary | A::LargeBinary | A::BinaryView => "Binary",
        A::Decimal(p, s) | A::Decimal32(p, s) | A::Decimal64(p, s) | A::Decimal256(p, s) => {
            return format!("Decimal({p}, {s})");
        }
        A::List(inner) | A::LargeList(inner) => {
            return format!("List({})", polars_name(&inner.dtype));
        }
        A::FixedSizeList(inner, size) => {
            return format!("Array({}, {size})", polars_name(&inner.dtype));
        }
        // Polars has no fixed-size binary type: Python's Polars hands an
        // Object column over as the addresses of its values, so.
        A::FixedSizeBinary(_) => "Object",
        A::Extension(ext) if ext.name.as_str() == "_POLARS_PYTHON_OBJECT" => "Object",
        other => return format!("{other:?}"),
    };
    name.to_owned()
}

/// `f()`, with a panic turned into an error carrying its message: one
/// that escaped would cross the C interface (an abort), and Polars' panic
/// hook keeps the message off stderr.
fn caught<T>(f: impl FnOnce() -> PolarsResult<T>) -> PolarsResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        polars_bail!(ComputeError: "md5 panicked: {}", message)
    })
}

fn md5_series(inputs: &[Series], hex: bool) -> PolarsResult<Series> {
    let [s] = inputs else {
        polars_bail!(InvalidOperation: "md5 takes one column, not {}", inputs.len());
    };
    if !matches!(s.dtype(), DataType::String | DataType::Binary) {
        polars_bail!(InvalidOperation: "md5 takes String or Binary columns, not {}", s.dtype());
    }
    let chunks = s
        .chunks()
        .iter()
        .map(|chunk| md5_array(chunk.as_ref() as &dyn Array, hex, Shape::Views, 1))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| polars_err!(ComputeError: "{}", e))?;
    Series::try_from((s.name().clone(), chunks))
}
