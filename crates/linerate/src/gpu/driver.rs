//! The CUDA driver, loaded at run time through `cudarc`'s thin `result`
//! layer, and owned handles over it: device and pinned host memory,
//! streams, events and the module of our kernels. Nothing here knows MD5.
//!
//! Why not `cudarc`'s safe layer: it tracks every buffer with events so
//! that streams cannot race, and the pipelines here overlap copies and
//! kernels on purpose, each wait placed by hand; the `result` layer gives
//! typed errors and leaves the order to us.

use std::ffi::c_void;
use std::fmt;

use cudarc::driver::result;
use cudarc::driver::sys;

pub use result::DriverError;

use super::Unavailable;

/// The PTX of `kernels.cu` (see scripts/gen_ptx.py), with a NUL for the
/// driver.
const PTX: &str = concat!(include_str!("kernels.ptx"), "\0");

/// A CUDA call that failed, with what we were doing.
#[derive(Debug)]
pub struct GpuError {
    pub doing: &'static str,
    pub error: DriverError,
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self
            .error
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("{:?}", self.error.0));
        write!(f, "CUDA error while {}: {name}", self.doing)
    }
}

impl std::error::Error for GpuError {}

/// `result` with what we were doing attached.
pub(crate) trait Doing<T> {
    fn doing(self, what: &'static str) -> Result<T, GpuError>;
}

impl<T> Doing<T> for Result<T, DriverError> {
    fn doing(self, doing: &'static str) -> Result<T, GpuError> {
        self.map_err(|error| GpuError { doing, error })
    }
}

/// The kernels of `kernels.cu`.
#[derive(Clone, Copy)]
pub(crate) struct Kernels {
    pub rows64: sys::CUfunction,
    pub rows32: sys::CUfunction,
    pub update: sys::CUfunction,
    pub check64: sys::CUfunction,
    pub check32: sys::CUfunction,
    pub alu: sys::CUfunction,
}

/// Device 0's primary context with our module loaded.
pub struct Context {
    device: sys::CUdevice,
    ctx: sys::CUcontext,
    pub(crate) kernels: Kernels,
    name: String,
    /// The row pipeline's buffers, kept between calls: pinned allocations
    /// cost milliseconds, which small batches would feel.
    pub(crate) row_slots: std::sync::Mutex<Vec<super::rows::RowSlot>>,
    multiprocessors: u32,
    capability: (i32, i32),
    memory: usize,
}

// SAFETY: a CUDA context may be used from any thread once made current
// there, which every entry point does first (`bind`); the function handles
// are immutable after loading.
unsafe impl Send for Context {}
// SAFETY: as above; the driver API is thread-safe.
unsafe impl Sync for Context {}

impl Context {
    /// Device 0, or why not: no driver library, no device, a driver that
    /// refuses (too old for the PTX, say).
    pub fn open() -> Result<Context, Unavailable> {
        // SAFETY: only tries to dlopen the driver library by its names.
        if !unsafe { sys::is_culib_present() } {
            return Err(Unavailable(
                "no CUDA driver (libcuda.so) on this machine".into(),
            ));
        }
        let fail = |what: &str, e: DriverError| {
            let text = e
                .error_string()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|_| format!("{:?}", e.0));
            Unavailable(format!("CUDA {what} failed: {text}"))
        };
        result::init().map_err(|e| fail("initialisation", e))?;
        let count = result::device::get_count().map_err(|e| fail("device count", e))?;
        if count < 1 {
            return Err(Unavailable("the CUDA driver sees no GPU".into()));
        }
        let device = result::device::get(0).map_err(|e| fail("device lookup", e))?;
        // SAFETY: `device` came from the driver; the context is released in
        // Drop, and made current on this thread before use.
        let ctx = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| fail("context creation", e))?;
        // SAFETY: `ctx` is the live primary context retained above.
        unsafe { result::ctx::set_current(ctx) }.map_err(|e| fail("context binding", e))?;
        // SAFETY: PTX is NUL-terminated text that lives for the program.
        let module = unsafe { result::module::load_data(PTX.as_ptr().cast()) }
            .map_err(|e| fail("loading the MD5 kernels (PTX)", e))?;
        let get = |name: &str| {
            let cname = std::ffi::CString::new(name).expect("kernel names have no NUL");
            // SAFETY: `module` is loaded and never unloaded while the
            // context lives (it goes with the context).
            unsafe { result::module::get_function(module, cname) }
                .map_err(|e| fail("finding a kernel", e))
        };
        let kernels = Kernels {
            rows64: get("md5_rows64")?,
            rows32: get("md5_rows32")?,
            update: get("md5_update")?,
            check64: get("check_offsets64")?,
            check32: get("check_offsets32")?,
            alu: get("md5_alu")?,
        };
        let attr = |a| {
            // SAFETY: `device` is valid; the attribute is a plain query.
            unsafe { result::device::get_attribute(device, a) }.map_err(|e| fail("device query", e))
        };
        let multiprocessors =
            attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let capability = (
            attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let name = result::device::get_name(device).unwrap_or_else(|_| "GPU".into());
        // SAFETY: `device` is valid.
        let memory = unsafe { result::device::total_mem(device) }.unwrap_or(0);
        Ok(Context {
            device,
            ctx,
            kernels,
            name,
            row_slots: std::sync::Mutex::new(Vec::new()),
            multiprocessors,
            capability,
            memory,
        })
    }

    /// Makes the context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        // SAFETY: `self.ctx` is retained until Drop.
        unsafe { result::ctx::set_current(self.ctx) }.doing("binding the context")
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    pub fn capability(&self) -> (i32, i32) {
        self.capability
    }

    /// Device memory in bytes.
    pub fn memory(&self) -> usize {
        self.memory
    }

    /// Waits for all work queued on the device, ours or another
    /// library's in the same (primary) context.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.bind()?;
        result::ctx::synchronize().doing("waiting for the device")
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Result<usize, GpuError> {
        self.bind()?;
        result::mem_get_info()
            .map(|(free, _)| free)
            .doing("asking for free memory")
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the primary context retained in `open`.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

/// Device memory.
pub struct DeviceBuffer {
    pub(crate) ptr: sys::CUdeviceptr,
    len: usize,
}

impl DeviceBuffer {
    /// `len` bytes (at least one, so that the pointer is a real one).
    pub fn new(ctx: &Context, len: usize) -> Result<DeviceBuffer, GpuError> {
        ctx.bind()?;
        // SAFETY: plain allocation; freed in Drop.
        let ptr = unsafe { result::malloc_sync(len.max(1)) }.doing("allocating device memory")?;
        Ok(DeviceBuffer { ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address, for kernels and copies.
    pub fn ptr(&self) -> u64 {
        self.ptr
    }

    /// Copies `src` in, synchronously.
    pub fn upload(&mut self, src: &[u8]) -> Result<(), GpuError> {
        assert!(src.len() <= self.len);
        // SAFETY: `src` fits (asserted) and stays borrowed for the call.
        unsafe { result::memcpy_htod_sync(self.ptr, src) }.doing("copying to the GPU")
    }

    /// Copies the first `dst.len()` bytes out, synchronously.
    pub fn download(&self, dst: &mut [u8]) -> Result<(), GpuError> {
        assert!(dst.len() <= self.len);
        // SAFETY: `dst` fits (asserted) and is borrowed mutably for the call.
        unsafe { result::memcpy_dtoh_sync(dst, self.ptr) }.doing("copying from the GPU")
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new`, freed once; pending work on it was
        // synchronised by its owner (every pipeline waits before dropping).
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Page-locked host memory, which the GPU's copy engines read directly.
pub struct PinnedBuffer {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: plain memory owned by this value.
unsafe impl Send for PinnedBuffer {}
// SAFETY: shared access is read-only through `&self`.
unsafe impl Sync for PinnedBuffer {}

impl PinnedBuffer {
    pub fn new(ctx: &Context, len: usize) -> Result<PinnedBuffer, GpuError> {
        ctx.bind()?;
        // SAFETY: plain allocation, zero flags (portable to this context);
        // freed in Drop.
        let ptr =
            unsafe { result::malloc_host(len.max(1), 0) }.doing("allocating pinned memory")?;
        // Touch it once so that the first timed use does not fault pages in.
        // SAFETY: `ptr` is `len` writable bytes just allocated.
        unsafe { std::ptr::write_bytes(ptr.cast::<u8>(), 0, len) };
        Ok(PinnedBuffer {
            ptr: ptr.cast(),
            len,
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated by malloc_host, freed once.
        let _ = unsafe { result::free_host(self.ptr.cast()) };
    }
}

/// Host memory we do not own, page-locked for the call so that the GPU's
/// copy engines read it in place (no staging copy); unlocked on drop.
pub struct Registered {
    ptr: *mut c_void,
    /// False where it was registered already (by its owner): left as is.
    ours: bool,
}

impl Registered {
    /// Locks the pages holding `bytes`, read-only; `None` where the driver
    /// refuses (then stage through pinned buffers instead).
    pub fn new(ctx: &Context, bytes: &[u8]) -> Option<Registered> {
        if bytes.is_empty() || ctx.bind().is_err() {
            return None;
        }
        const PAGE: usize = 4096;
        let start = bytes.as_ptr() as usize & !(PAGE - 1);
        let end = (bytes.as_ptr() as usize + bytes.len()).div_ceil(PAGE) * PAGE;
        let ptr = start as *mut c_void;
        // SAFETY: the pages holding `bytes` are mapped (they hold a live
        // slice); READ_ONLY: the device only reads them. Unregistered in
        // Drop, before the borrow of `bytes` can end (the caller keeps
        // both in one scope).
        let r = unsafe {
            sys::cuMemHostRegister_v2(ptr, end - start, sys::CU_MEMHOSTREGISTER_READ_ONLY)
        };
        match r {
            sys::cudaError_enum::CUDA_SUCCESS => Some(Registered { ptr, ours: true }),
            sys::cudaError_enum::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED => {
                Some(Registered { ptr, ours: false })
            }
            _ => None,
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if self.ours {
            // SAFETY: registered by `new`; every copy from it was waited
            // for by its user before the drop.
            let _ = unsafe { sys::cuMemHostUnregister(self.ptr) };
        }
    }
}

/// A CUDA stream: work on it runs in order, apart from other streams.
pub struct Stream(pub(crate) sys::CUstream);

// SAFETY: a stream handle may be used from any thread of the process (the
// driver API is thread-safe); its context is made current before each use.
unsafe impl Send for Stream {}

impl Stream {
    pub fn new(ctx: &Context) -> Result<Stream, GpuError> {
        ctx.bind()?;
        result::stream::create(result::stream::StreamKind::NonBlocking)
            .map(Stream)
            .doing("creating a stream")
    }

    pub fn synchronize(&self) -> Result<(), GpuError> {
        // SAFETY: a live stream.
        unsafe { result::stream::synchronize(self.0) }.doing("waiting for the GPU")
    }

    /// Work queued after this waits for `event`.
    pub fn wait(&self, event: &Event) -> Result<(), GpuError> {
        // SAFETY: both live.
        unsafe {
            result::stream::wait_event(
                self.0,
                event.0,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .doing("ordering streams")
    }

    /// Copies `len` bytes from host `src` to device `dst` in stream order.
    ///
    /// # Safety
    /// `src` must stay valid and unchanged until the copy is done (an event
    /// recorded after it has completed), and `dst..dst + len` must be device
    /// memory.
    pub unsafe fn copy_in(&self, dst: u64, src: *const u8, len: usize) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), len, self.0) }
            .result()
            .doing("copying to the GPU")
    }

    /// Copies `len` bytes from device `src` to host `dst` in stream order.
    ///
    /// # Safety
    /// `dst` must stay valid and unread until the copy is done.
    pub unsafe fn copy_out(&self, dst: *mut u8, src: u64, len: usize) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, len, self.0) }
            .result()
            .doing("copying from the GPU")
    }

    /// Device-to-device copy in stream order.
    ///
    /// # Safety
    /// Both ranges must be device memory.
    pub unsafe fn copy_device(&self, dst: u64, src: u64, len: usize) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { result::memcpy_dtod_async(dst, src, len, self.0) }.doing("copying on the GPU")
    }

    /// Launches `f` with one thread per item of `n`, 256 to a block.
    ///
    /// # Safety
    /// `params` must point at values of exactly the kernel's parameter
    /// types, and every buffer they name must outlive the launch.
    pub(crate) unsafe fn launch(
        &self,
        f: sys::CUfunction,
        n: u64,
        params: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        if n == 0 {
            return Ok(());
        }
        const BLOCK: u64 = 256;
        let blocks = n.div_ceil(BLOCK);
        let grid = u32::try_from(blocks).map_err(|_| GpuError {
            doing: "launching a kernel (too many threads)",
            error: DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE),
        })?;
        // SAFETY: the caller's contract.
        unsafe { result::launch_kernel(f, (grid, 1, 1), (BLOCK as u32, 1, 1), 0, self.0, params) }
            .doing("launching a kernel")
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: a live stream, destroyed once; the driver lets queued
        // work finish.
        let _ = unsafe { result::stream::destroy(self.0) };
    }
}

/// A point in a stream, for ordering and timing.
pub struct Event(pub(crate) sys::CUevent);

// SAFETY: as for Stream.
unsafe impl Send for Event {}

impl Event {
    pub fn new(ctx: &Context) -> Result<Event, GpuError> {
        ctx.bind()?;
        result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map(Event)
            .doing("creating an event")
    }

    pub fn record(&self, stream: &Stream) -> Result<(), GpuError> {
        // SAFETY: both live.
        unsafe { result::event::record(self.0, stream.0) }.doing("recording an event")
    }

    pub fn synchronize(&self) -> Result<(), GpuError> {
        // SAFETY: a live event.
        unsafe { result::event::synchronize(self.0) }.doing("waiting for the GPU")
    }

    /// Milliseconds from `start` to this event, both completed.
    pub fn since(&self, start: &Event) -> Result<f64, GpuError> {
        // SAFETY: both live and recorded.
        unsafe { result::event::elapsed(start.0, self.0) }
            .map(f64::from)
            .doing("timing on the GPU")
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: a live event, destroyed once.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

/// A kernel argument: the address of a value the kernel reads.
pub(crate) fn arg<T>(value: &T) -> *mut c_void {
    (value as *const T).cast_mut().cast()
}
