//! `--device cpu|cuda|auto` (and `LINERATE_DEVICE`): which GPU, if any,
//! a command's MD5 work goes to. `cuda` without a usable GPU says why in
//! one line and runs on the CPU; `auto` takes the GPU only past the
//! measured crossover (`linerate::gpu::Work`), silently.

use crate::PROGRAM;
use linerate::gpu::{Device, Work, place};

/// The GPU to use for `work` under `device`, or `None` for the CPU.
#[cfg(feature = "cuda")]
pub fn gpu_for(
    device: Device,
    work: impl FnOnce() -> Work,
) -> Option<&'static linerate::gpu::Context> {
    if device == Device::Cpu {
        return None;
    }
    match place(device, work()) {
        Ok(linerate::gpu::Placement::Gpu(ctx)) => Some(ctx),
        Ok(linerate::gpu::Placement::Cpu) => None,
        Err(why) => {
            eprintln!("{PROGRAM}: GPU not used: {why}");
            None
        }
    }
}

/// Without CUDA support: `cuda` says so once, everything runs on the CPU.
#[cfg(not(feature = "cuda"))]
pub fn gpu_for(device: Device, work: impl FnOnce() -> Work) -> Option<std::convert::Infallible> {
    if device == Device::Cuda {
        if let Err(why) = place(device, work()) {
            eprintln!("{PROGRAM}: GPU not used: {why}");
        }
    }
    None
}
