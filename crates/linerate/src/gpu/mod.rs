//! MD5 on an NVIDIA GPU, for the work that has a GPU's parallelism: many
//! independent messages (rows of a column, files of a set, S3 parts of a
//! file). One message is a chain of dependent steps; a GPU runs tens of
//! thousands of them side by side, or gains nothing.
//!
//! The kernels are the project's own CUDA C (`kernels.cu`), shipped as
//! PTX that the driver compiles for its chip when first used; the driver
//! is loaded at run time (feature `cuda`, through `cudarc`), so building
//! needs no CUDA toolkit and a machine without a GPU or driver gets
//! [`Unavailable`] with one line saying why, and runs the CPU paths.
//!
//! Where the work runs is [`Device`]: `cpu`, `cuda` or `auto`, from the
//! caller or `LINERATE_DEVICE`; [`place`] decides, with `auto` taking the
//! GPU only for batches past the crossover measured in docs/performance.md.
//!
//! Layout:
//! - `driver`: the driver's handles (context, memory, streams, events).
//! - `rows`: MD5 of rows, already on the device or streamed from host
//!   memory through pinned, double-buffered chunks.
//! - `streams`: many long messages (files, parts) read in slices, each
//!   slice of every message absorbed by one kernel launch, the running
//!   states kept on the device and the padding done on the host.
//! - `md5p`: MD5-P/K, its K chains as K threads over stripes streamed in
//!   rounds.
//! - `limits`: the machine's ceilings (copy rates, the integer-ALU bound)
//!   for `linerate speed`.

use std::fmt;

#[cfg(feature = "cuda")]
mod driver;
#[cfg(feature = "cuda")]
pub mod limits;
#[cfg(feature = "cuda")]
mod md5p;
#[cfg(feature = "cuda")]
mod rows;
#[cfg(feature = "cuda")]
mod streams;

#[cfg(feature = "cuda")]
pub use driver::{Context, DeviceBuffer, Event, GpuError, PinnedBuffer, Stream};
#[cfg(feature = "cuda")]
pub use rows::{
    DEFAULT_ROWS_OPTIONS, DeviceOffsets, DeviceRows, DeviceRowsError, RowsOptions, Staging,
};
#[cfg(feature = "cuda")]
pub use streams::{Source, StreamOptions};

/// Where MD5 work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// The CPU's lanes engine, always.
    Cpu,
    /// The GPU; where there is none, the CPU with one line saying why.
    Cuda,
    /// The GPU for batches past the measured crossover, else the CPU.
    Auto,
}

/// The environment variable that picks [`Device`] when the caller does not.
pub const DEVICE_ENV: &str = "LINERATE_DEVICE";

/// A device name that is not `cpu`, `cuda` or `auto`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceNameError(pub String);

impl fmt::Display for DeviceNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid device '{}' (valid: cpu, cuda, auto)",
            self.0.escape_debug()
        )
    }
}

impl std::error::Error for DeviceNameError {}

impl Device {
    pub fn from_name(name: &str) -> Result<Device, DeviceNameError> {
        match name {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda),
            "auto" => Ok(Device::Auto),
            _ => Err(DeviceNameError(name.to_owned())),
        }
    }

    /// `LINERATE_DEVICE`, if set (and not empty).
    pub fn from_env() -> Result<Option<Device>, DeviceNameError> {
        match std::env::var(DEVICE_ENV) {
            Ok(v) if !v.is_empty() => Device::from_name(&v).map(Some),
            _ => Ok(None),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Cuda => "cuda",
            Device::Auto => "auto",
        }
    }
}

/// A batch of work, as [`place`] weighs it.
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// `count` rows of `bytes` bytes in all, in host memory.
    Rows { count: u64, bytes: u64 },
    /// `count` long messages (files, parts) of `bytes` bytes in all.
    Streams { count: u64, bytes: u64 },
}

/// The crossover, as measured (docs/performance.md, "MD5 on a GPU"; an
/// H100 on PCIe beside 16 threads of AVX-512, docs/gpu/h100-run3.json):
/// `auto` takes the GPU only where the GPU's rate from host memory beats
/// this machine's cores at the CPU's measured rate per core, and only for
/// batches large enough to hide the GPU's fixed costs. Rates are bytes per
/// second by row length (64 B, 1 KiB, 16 KiB), interpolated in log2 of the
/// mean row length.
const ROW_LENGTHS: [f64; 3] = [64.0, 1024.0, 16384.0];
/// MD5 of rows on one core (the lanes engine): 24.3, 49.5 and 84.0 GB/s
/// on 16 threads.
const CPU_ROWS_PER_CORE: [f64; 3] = [1.52e9, 3.09e9, 5.25e9];
/// Rows from host memory through the GPU (pinned staging, copy engine,
/// kernel), same run: 30.9, 41.6 and 46.2 GB/s.
const GPU_ROWS_FROM_HOST: [f64; 3] = [30.9e9, 41.6e9, 46.2e9];
/// Below this many bytes a batch stays on the CPU: the GPU first wins
/// (and keeps winning) at 256 MiB of 64-byte rows (4 Mi rows: 1.07x; 1 GiB:
/// 1.18x).
pub const ROWS_MIN_BYTES: u64 = 256 << 20;
/// Below this many rows the GPU has too few messages to run side by side:
/// one GPU thread hashes about 128 MB/s (one dependent MD5 step per ~18
/// cycles at 1.98 GHz), so the 46 GB/s of the link need some 360 rows in
/// flight; a chunk's worth, with margin.
pub const ROWS_MIN_COUNT: u64 = 4096;
/// Files through the GPU: 8.5 GB/s steady from the page cache (5.5-5.8
/// end to end for 4.9 GB in 3009 files, less a fixed 0.24-0.33 s) against
/// 14.9-17.1 GB/s on 16 threads, 1.0 per thread.
const FILES_GPU: f64 = 8.5e9;
const FILES_CPU_PER_CORE: f64 = 1.0e9;
pub const STREAMS_MIN_BYTES: u64 = 8 << 30;
/// Messages in flight below which the GPU has too few chains to run.
pub const STREAMS_MIN_COUNT: u64 = 1024;

/// `table` at `len` bytes, interpolated in log2(len), clamped at the ends.
fn by_length(table: [f64; 3], len: f64) -> f64 {
    let x = len.max(1.0).log2();
    let xs = ROW_LENGTHS.map(f64::log2);
    if x <= xs[0] {
        return table[0];
    }
    for i in 0..2 {
        if x <= xs[i + 1] {
            let t = (x - xs[i]) / (xs[i + 1] - xs[i]);
            return table[i] + t * (table[i + 1] - table[i]);
        }
    }
    table[2]
}

impl Work {
    /// Whether `auto` sends this batch to the GPU on a machine with
    /// `cores` CPU threads.
    pub fn past_crossover(self, cores: usize) -> bool {
        let cores = cores.max(1) as f64;
        match self {
            Work::Rows { count, bytes } => {
                if bytes < ROWS_MIN_BYTES || count < ROWS_MIN_COUNT {
                    return false;
                }
                let mean = bytes as f64 / count as f64;
                by_length(GPU_ROWS_FROM_HOST, mean) > cores * by_length(CPU_ROWS_PER_CORE, mean)
            }
            Work::Streams { count, bytes } => {
                count >= STREAMS_MIN_COUNT
                    && bytes >= STREAMS_MIN_BYTES
                    && FILES_GPU > cores * FILES_CPU_PER_CORE
            }
        }
    }
}

/// Why no GPU is used, in one line.
#[derive(Clone, Debug)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unavailable {}

/// Where a batch runs.
pub enum Placement {
    Cpu,
    #[cfg(feature = "cuda")]
    Gpu(&'static Context),
}

/// Decides where `work` runs under `device`. `Err` only for
/// [`Device::Cuda`] without a usable GPU: the caller says why in one line
/// and runs on the CPU.
pub fn place(device: Device, work: Work) -> Result<Placement, Unavailable> {
    match device {
        Device::Cpu => Ok(Placement::Cpu),
        Device::Cuda => gpu_placement(),
        Device::Auto if work.past_crossover(cores()) => {
            Ok(gpu_placement().unwrap_or(Placement::Cpu))
        }
        Device::Auto => Ok(Placement::Cpu),
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(feature = "cuda")]
fn gpu_placement() -> Result<Placement, Unavailable> {
    gpu().map(Placement::Gpu)
}

#[cfg(not(feature = "cuda"))]
fn gpu_placement() -> Result<Placement, Unavailable> {
    Err(Unavailable(
        "this build of linerate has no CUDA support (feature `cuda`)".into(),
    ))
}

/// The GPU (device 0), opened once per process; or why there is none.
#[cfg(feature = "cuda")]
pub fn gpu() -> Result<&'static Context, Unavailable> {
    static GPU: std::sync::OnceLock<Result<Context, Unavailable>> = std::sync::OnceLock::new();
    GPU.get_or_init(|| Context::open().map_err(|e| Unavailable(e.0)))
        .as_ref()
        .map_err(Clone::clone)
}

/// Without the `cuda` feature there is never a GPU.
#[cfg(not(feature = "cuda"))]
pub fn gpu() -> Result<std::convert::Infallible, Unavailable> {
    Err(Unavailable(
        "this build of linerate has no CUDA support (feature `cuda`)".into(),
    ))
}

/// Stream `i`'s chaining value in a buffer of states the kernels wrote
/// (16 bytes each, little-endian words).
#[cfg(feature = "cuda")]
pub(crate) fn state_at(states: &[u8], i: usize) -> [u32; 4] {
    let w = &states[i * 16..i * 16 + 16];
    std::array::from_fn(|k| {
        u32::from_le_bytes([w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]])
    })
}

/// MD5's padding on the host: the digest of a message whose first
/// `absorbed` bytes (a multiple of 64) left chaining value `state`, and
/// whose remaining `tail` (< 64 bytes) follows.
pub fn finish(state: [u32; 4], absorbed: u64, tail: &[u8]) -> [u8; 16] {
    debug_assert!(tail.len() < 64 && absorbed.is_multiple_of(64));
    let mut st = state;
    let mut block = [0u8; 128];
    block[..tail.len()].copy_from_slice(tail);
    block[tail.len()] = 0x80;
    let blocks = if tail.len() < 56 { 1 } else { 2 };
    let bits = absorbed.wrapping_add(tail.len() as u64).wrapping_mul(8);
    block[blocks * 64 - 8..blocks * 64].copy_from_slice(&bits.to_le_bytes());
    for b in block[..blocks * 64].chunks_exact(64) {
        let b: &[u8; 64] = b.try_into().expect("64-byte chunk");
        crate::md5::reference::compress_block(&mut st, b);
    }
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(st) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_from_the_initial_state_is_md5() {
        for len in 0..64 {
            let msg: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(
                finish(crate::md5::reference::INIT, 0, &msg),
                crate::md5(&msg),
                "{len}"
            );
        }
    }

    #[test]
    fn finish_after_whole_blocks_is_md5() {
        let msg: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for whole in [64usize, 128, 192] {
            for tail in [0usize, 1, 55, 56, 63] {
                let mut st = crate::md5::reference::INIT;
                for b in msg[..whole].chunks_exact(64) {
                    crate::md5::reference::compress_block(&mut st, b.try_into().unwrap());
                }
                assert_eq!(
                    finish(st, whole as u64, &msg[whole..whole + tail]),
                    crate::md5(&msg[..whole + tail])
                );
            }
        }
    }

    #[test]
    fn the_shipped_ptx_is_built_from_this_kernel_source() {
        use sha2::Digest;
        let source = include_bytes!("kernels.cu");
        let ptx = include_str!("kernels.ptx");
        let digest: String = sha2::Sha256::digest(source)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let first = ptx.lines().next().unwrap_or("");
        assert_eq!(
            first,
            format!("// generated by scripts/gen_ptx.py from kernels.cu sha256 {digest}"),
            "kernels.ptx is stale: run scripts/gen_ptx.py"
        );
        for kernel in [
            "md5_rows64",
            "md5_rows32",
            "md5_update",
            "check_offsets64",
            "check_offsets32",
            "md5_alu",
        ] {
            assert!(ptx.contains(&format!(".entry {kernel}(")), "{kernel}");
        }
    }

    #[test]
    fn device_names() {
        assert_eq!(Device::from_name("cpu"), Ok(Device::Cpu));
        assert_eq!(Device::from_name("cuda"), Ok(Device::Cuda));
        assert_eq!(Device::from_name("auto"), Ok(Device::Auto));
        let e = Device::from_name("tpu").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid device 'tpu' (valid: cpu, cuda, auto)"
        );
    }

    #[test]
    fn the_crossover_follows_the_measured_rates() {
        let gib = 1u64 << 30;
        // 64-byte rows: the GPU beat 16 cores at 1 GiB (1.18x).
        let short = Work::Rows {
            count: gib / 64,
            bytes: gib,
        };
        assert!(short.past_crossover(16));
        assert!(!short.past_crossover(32));
        // 16 KiB rows: 16 cores beat the GPU (0.47x); 4 cores do not.
        let long = Work::Rows {
            count: gib / 16384,
            bytes: gib,
        };
        assert!(!long.past_crossover(16));
        assert!(long.past_crossover(4));
        // Small batches never, nor a few long rows.
        let small = Work::Rows {
            count: 1000,
            bytes: 64_000,
        };
        assert!(!small.past_crossover(1));
        assert!(
            !Work::Rows {
                count: 10,
                bytes: gib
            }
            .past_crossover(1)
        );
        // Files: only where the cores are few.
        let files = Work::Streams {
            count: 5000,
            bytes: 20 * gib,
        };
        assert!(!files.past_crossover(16));
        assert!(files.past_crossover(2));
        assert!(
            !Work::Streams {
                count: 10,
                bytes: 20 * gib
            }
            .past_crossover(1)
        );
        // Interpolation is monotonic between the measured lengths.
        assert!(by_length(CPU_ROWS_PER_CORE, 256.0) > CPU_ROWS_PER_CORE[0]);
        assert!(by_length(CPU_ROWS_PER_CORE, 256.0) < CPU_ROWS_PER_CORE[1]);
    }

    #[test]
    fn auto_keeps_small_batches_on_the_cpu() {
        let small = Work::Rows {
            count: 10,
            bytes: 1 << 40,
        };
        assert!(matches!(place(Device::Auto, small), Ok(Placement::Cpu)));
        let few = Work::Streams {
            count: 3,
            bytes: 1 << 40,
        };
        assert!(matches!(place(Device::Auto, few), Ok(Placement::Cpu)));
        assert!(matches!(place(Device::Cpu, few), Ok(Placement::Cpu)));
    }
}
