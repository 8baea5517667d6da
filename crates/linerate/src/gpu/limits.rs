//! The machine's ceilings, measured with device events: what any MD5 on
//! this GPU is weighed against in `linerate speed gpu`.
//!
//! - device-to-device copy: HBM's rate, counting bytes read and written;
//! - pinned host-to-device copy: the link's rate (PCIe or NVLink-C2C);
//! - the integer-ALU bound: compressions per second with the message in
//!   registers and nothing read from memory, every multiprocessor full.

use std::ffi::c_void;

use super::driver::{Context, DeviceBuffer, Event, GpuError, PinnedBuffer, Stream, arg};
use super::rows::DeviceRows;

/// Median of `trials` timings (milliseconds) of `f` between two events on
/// `stream`, after one untimed run.
pub fn time_ms(
    ctx: &Context,
    stream: &Stream,
    trials: usize,
    mut f: impl FnMut() -> Result<(), GpuError>,
) -> Result<f64, GpuError> {
    let start = Event::new(ctx)?;
    let end = Event::new(ctx)?;
    f()?;
    stream.synchronize()?;
    let mut times = Vec::with_capacity(trials);
    for _ in 0..trials.max(1) {
        start.record(stream)?;
        f()?;
        end.record(stream)?;
        end.synchronize()?;
        times.push(end.since(&start)?);
    }
    Ok(median(&mut times))
}

/// The median of `v` (sorted in place).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    crate::clock::median_of_sorted(v)
}

/// HBM: bytes read plus bytes written per second by a device-to-device
/// copy of `bytes`.
pub fn device_copy_rate(ctx: &Context, bytes: usize, trials: usize) -> Result<f64, GpuError> {
    let a = DeviceBuffer::new(ctx, bytes)?;
    let b = DeviceBuffer::new(ctx, bytes)?;
    let stream = Stream::new(ctx)?;
    // SAFETY: both buffers hold `bytes`.
    let ms = time_ms(ctx, &stream, trials, || unsafe {
        stream.copy_device(b.ptr(), a.ptr(), bytes)
    })?;
    Ok(2.0 * bytes as f64 / (ms / 1e3))
}

/// The link: bytes per second from pinned host memory to the device.
pub fn pinned_upload_rate(ctx: &Context, bytes: usize, trials: usize) -> Result<f64, GpuError> {
    let host = PinnedBuffer::new(ctx, bytes)?;
    let dev = DeviceBuffer::new(ctx, bytes)?;
    let stream = Stream::new(ctx)?;
    // SAFETY: `host` outlives the timed copies (time_ms syncs each).
    let ms = time_ms(ctx, &stream, trials, || unsafe {
        stream.copy_in(dev.ptr(), host.as_slice().as_ptr(), bytes)
    })?;
    Ok(bytes as f64 / (ms / 1e3))
}

/// The integer-ALU bound: MD5 compressions per second with nothing read
/// from memory, `iters` per thread on enough threads to fill every
/// multiprocessor several times over.
pub fn alu_compressions_per_second(
    ctx: &Context,
    iters: u32,
    trials: usize,
) -> Result<f64, GpuError> {
    let threads = u64::from(ctx.multiprocessors()) * 2048 * 4;
    let sink = DeviceBuffer::new(ctx, threads as usize * 4)?;
    let stream = Stream::new(ctx)?;
    let sink_ptr = sink.ptr();
    let ms = time_ms(ctx, &stream, trials, || {
        let mut params: [*mut c_void; 2] = [arg(&iters), arg(&sink_ptr)];
        // SAFETY: md5_alu(u32, u32*) with one word per thread in `sink`.
        unsafe { stream.launch(ctx.kernels.alu, threads, &mut params) }
    })?;
    Ok(threads as f64 * f64::from(iters) / (ms / 1e3))
}

/// Milliseconds (median) of MD5 of rows already on the device, the hash
/// kernel alone (offsets checked once, untimed), digests left on the
/// device.
///
/// # Safety
/// `rows` must name this context's device memory, live for the call.
pub unsafe fn device_rows_ms(
    ctx: &Context,
    rows: &DeviceRows,
    trials: usize,
) -> Result<f64, GpuError> {
    let digests = DeviceBuffer::new(ctx, rows.count as usize * 16)?;
    let stream = Stream::new(ctx)?;
    // SAFETY: the caller's contract; checks the offsets.
    unsafe { ctx.md5_device_rows_into(rows, digests.ptr(), &stream) }.map_err(|e| match e {
        super::rows::DeviceRowsError::Gpu(g) => g,
        super::rows::DeviceRowsError::BadOffsets { .. } => GpuError {
            doing: "checking the benchmark's offsets",
            error: super::driver::DriverError(
                cudarc::driver::sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE,
            ),
        },
    })?;
    // SAFETY: as above; the offsets were checked.
    time_ms(ctx, &stream, trials, || unsafe {
        ctx.launch_rows_unchecked(rows, digests.ptr(), &stream)
    })
}
