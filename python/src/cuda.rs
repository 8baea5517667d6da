//! The GPU from Python: `md5_cuda` hashes a column already in GPU memory
//! (CuPy arrays, PyTorch CUDA tensors, Numba device arrays: anything with
//! `__cuda_array_interface__`) in place, and `device=` on the column
//! functions sends host columns through the GPU pipeline.

use linerate::gpu::{Device, Placement, Work, place};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

/// `device=` (else `LINERATE_DEVICE`, else cpu).
pub fn device(name: Option<&str>) -> PyResult<Device> {
    let parsed = match name {
        Some(n) => Device::from_name(n).map(Some),
        None => Device::from_env(),
    };
    Ok(parsed
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .unwrap_or(Device::Cpu))
}

/// Where rows of `bytes` bytes go under `device`. `cuda` without a GPU
/// warns once (Python's `RuntimeWarning`) and runs on the CPU.
pub fn placement(
    py: Python<'_>,
    device: Device,
    count: usize,
    bytes: usize,
) -> PyResult<Placement> {
    match place(
        device,
        Work::Rows {
            count: count as u64,
            bytes: bytes as u64,
        },
    ) {
        Ok(p) => Ok(p),
        Err(why) => {
            warn(py, &why)?;
            Ok(Placement::Cpu)
        }
    }
}

/// Where MD5 of the files at `paths` goes under `device` (the regular
/// files' count and bytes weighed as `linerate sum --device` weighs them).
pub fn placement_streams(
    py: Python<'_>,
    device: Device,
    paths: &[std::ffi::OsString],
) -> PyResult<Placement> {
    let inputs: Vec<linerate_files::Input<'_>> = paths
        .iter()
        .map(|p| linerate_files::Input::Path(p))
        .collect();
    let sizes = linerate_files::whole::regular_file_sizes(&inputs);
    let work = Work::Streams {
        count: sizes.len() as u64,
        bytes: sizes.iter().sum(),
    };
    match place(device, work) {
        Ok(p) => Ok(p),
        Err(why) => {
            warn(py, &why)?;
            Ok(Placement::Cpu)
        }
    }
}

/// A `RuntimeWarning` saying why the GPU was not used.
pub fn warn(py: Python<'_>, why: &linerate::gpu::Unavailable) -> PyResult<()> {
    let warnings = py.import("warnings")?;
    let category = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
    warnings.call_method1("warn", (format!("linerate: GPU not used: {why}"), category))?;
    Ok(())
}

/// MD5 of `rows` into `out` (16 bytes a row, or 32 hex digits) on the GPU.
/// Binary digests go straight into `out`; hex ones through a scratch
/// buffer allocated fallibly (an error, not an abort, where it does not fit).
#[cfg(feature = "cuda")]
pub fn hash_on_gpu<R: linerate::Rows + ?Sized>(
    ctx: &linerate::gpu::Context,
    rows: &R,
    hex: bool,
    out: &mut [u8],
) -> Result<(), String> {
    if !hex {
        let (digests, _) = out.as_chunks_mut::<16>();
        return ctx.md5_rows(rows, digests).map_err(|e| e.to_string());
    }
    let mut digests = crate::column::try_vec(rows.count()).map_err(|e| e.to_string())?;
    digests.resize(rows.count(), [0u8; 16]);
    ctx.md5_rows(rows, &mut digests)
        .map_err(|e| e.to_string())?;
    linerate::hex::hex_digests(&digests, out);
    Ok(())
}

/// One array's `__cuda_array_interface__`: its device address, element
/// count and element type; contiguous and one-dimensional only.
struct DeviceArray {
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    ptr: u64,
    len: usize,
    typestr: TypeStr,
}

/// An array interface's `typestr` (NumPy's, which CUDA's copies): byte
/// order (`<` little, `>` big, `|` none, `=` native), kind (`u`, `i`,
/// `b`, `f` ...) and item size in bytes, as in `|u1` or `<i8`.
struct TypeStr {
    text: String,
    order: u8,
    kind: u8,
    itemsize: usize,
}

impl TypeStr {
    /// `text` read, or a ValueError naming `what`: never an index into a
    /// string that could fall outside it or inside a character.
    fn parse(text: String, what: &str) -> PyResult<TypeStr> {
        let parsed = match text.as_bytes() {
            [order @ (b'<' | b'>' | b'|' | b'='), kind, size @ ..]
                if kind.is_ascii_alphabetic()
                    && !size.is_empty()
                    && size.iter().all(u8::is_ascii_digit) =>
            {
                // ASCII digits (checked), so text; too many for a usize
                // fails the parse.
                std::str::from_utf8(size)
                    .ok()
                    .and_then(|size| size.parse().ok())
                    .map(|itemsize| (*order, *kind, itemsize))
            }
            _ => None,
        };
        let Some((order, kind, itemsize)) = parsed else {
            return Err(PyValueError::new_err(format!(
                "{what}: __cuda_array_interface__ typestr {text:?} is not a type string such as '|u1' or '<i8'"
            )));
        };
        Ok(TypeStr {
            text,
            order,
            kind,
            itemsize,
        })
    }

    /// Whether the elements are `kind` of `itemsize` bytes, in an order
    /// this machine reads (little-endian or native: NVIDIA's GPUs and
    /// their hosts are little-endian; one byte has no order).
    fn is(&self, kind: u8, itemsize: usize) -> bool {
        self.kind == kind
            && self.itemsize == itemsize
            && (itemsize == 1 || matches!(self.order, b'<' | b'='))
    }
}

fn device_array(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<DeviceArray> {
    let cai = obj.getattr("__cuda_array_interface__").map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} has no __cuda_array_interface__ (give a CuPy array, a PyTorch CUDA tensor or a Numba device array)"
        ))
    })?;
    let cai = cai.cast::<PyDict>()?;
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        cai.get_item(k)?.ok_or_else(|| {
            PyValueError::new_err(format!("{what}: __cuda_array_interface__ has no '{k}'"))
        })
    };
    let shape = get("shape")?;
    let shape = shape.cast::<PyTuple>()?;
    if shape.len() != 1 {
        return Err(PyValueError::new_err(format!(
            "{what} must be one-dimensional (shape {shape})"
        )));
    }
    let len: usize = shape.get_item(0)?.extract()?;
    let typestr = TypeStr::parse(get("typestr")?.extract()?, what)?;
    if let Some(strides) = cai.get_item("strides")?
        && !strides.is_none()
    {
        let s: (isize,) = strides.extract()?;
        if usize::try_from(s.0).ok() != Some(typestr.itemsize) {
            return Err(PyValueError::new_err(format!("{what} must be contiguous")));
        }
    }
    // A buffer's size in bytes fits an isize (as NumPy's and CuPy's
    // arrays do): the element counts below are then free of overflow.
    if len
        .checked_mul(typestr.itemsize)
        .is_none_or(|bytes| bytes > isize::MAX as usize)
    {
        return Err(PyValueError::new_err(format!(
            "{what}: __cuda_array_interface__ shape ({len},) of {}-byte items is larger than any array",
            typestr.itemsize
        )));
    }
    let data = get("data")?;
    let (ptr, _readonly): (u64, bool) = data.extract()?;
    if len > 0 && ptr == 0 {
        return Err(PyValueError::new_err(format!(
            "{what} has a null data pointer"
        )));
    }
    Ok(DeviceArray { ptr, len, typestr })
}

/// `md5_cuda(values, offsets, *, hex=False) -> bytes`: MD5 of every row of
/// a column in GPU memory, in place: row `i` is
/// `values[offsets[i]:offsets[i + 1]]`, values of one-byte elements,
/// offsets int32 (cuDF's, Arrow's `binary`) or int64/uint64 (`large_binary`).
/// Returns the n digests as one `bytes` (16 n, or 32 n hex digits). The
/// offsets are checked on the GPU first: bad ones raise ValueError naming
/// the row. Waits for all of the device's work first (the arrays' producer
/// may still be writing them). Device 0 only.
#[pyfunction]
#[pyo3(signature = (values, offsets, *, hex = false))]
pub fn md5_cuda<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    hex: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let v = device_array(values, "values")?;
    let o = device_array(offsets, "offsets")?;
    if ![b'u', b'i', b'b'].iter().any(|&kind| v.typestr.is(kind, 1)) {
        return Err(PyTypeError::new_err(format!(
            "values must have one-byte elements (typestr {:?})",
            v.typestr.text
        )));
    }
    if o.len == 0 {
        return Err(PyValueError::new_err(
            "offsets are empty: n rows need n + 1 offsets",
        ));
    }
    run_md5_cuda(py, v, o, hex)
}

#[cfg(feature = "cuda")]
fn run_md5_cuda<'py>(
    py: Python<'py>,
    v: DeviceArray,
    o: DeviceArray,
    hex: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    use linerate::gpu::{DeviceOffsets, DeviceRows, DeviceRowsError};
    let offsets = if o.typestr.is(b'i', 4) {
        DeviceOffsets::I32(o.ptr)
    } else if o.typestr.is(b'i', 8) || o.typestr.is(b'u', 8) {
        DeviceOffsets::U64(o.ptr)
    } else {
        return Err(PyTypeError::new_err(format!(
            "offsets must be little-endian int32, int64 or uint64 (typestr {:?})",
            o.typestr.text
        )));
    };
    let ctx =
        linerate::gpu::gpu().map_err(|why| PyRuntimeError::new_err(format!("no GPU: {why}")))?;
    let rows = DeviceRows {
        data: v.ptr,
        data_len: v.len as u64,
        offsets,
        count: (o.len - 1) as u64,
    };
    let digests = py
        .detach(|| {
            ctx.synchronize()?;
            // SAFETY: the addresses come from the arrays' own interface,
            // which promises device memory of that size; the offsets are
            // checked on the device before any row is read.
            unsafe { ctx.md5_device_rows(&rows) }
        })
        .map_err(|e| match e {
            DeviceRowsError::BadOffsets { .. } => PyValueError::new_err(e.to_string()),
            DeviceRowsError::Gpu(g) => PyRuntimeError::new_err(g.to_string()),
        })?;
    let w = if hex { 32 } else { 16 };
    PyBytes::new_with(py, w * digests.len(), |out| {
        if hex {
            linerate::hex::hex_digests(&digests, out);
        } else {
            out.copy_from_slice(digests.as_flattened());
        }
        Ok(())
    })
}

#[cfg(not(feature = "cuda"))]
fn run_md5_cuda<'py>(
    _py: Python<'py>,
    _v: DeviceArray,
    _o: DeviceArray,
    _hex: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    Err(PyRuntimeError::new_err(
        "this build of linerate has no CUDA support (feature `cuda`)",
    ))
}
