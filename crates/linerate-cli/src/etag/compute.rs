//! `linerate etag FILE...`: one `ETAG  NAME` line per operand, in argument
//! order, from the file engine ([`linerate_files::s3::etags`]).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use linerate_files::s3::checksums::Request;
use linerate_files::s3::etags::checksums_in_order;
use linerate_files::s3::layout::{Layout, MAX_PARTS, Policy, S3_MAX_PART, S3_MIN_PART};
use linerate_files::s3::size::human;

use crate::sum::console::{Console, error_text};
use crate::sum::input;

/// Prints the ETag line of every operand (or with `checksums`, a tagged
/// line per checksum); true if all could be read.
pub fn run(
    console: &mut Console,
    files: &[OsString],
    policy: &Policy,
    checksums: Option<&Request>,
    threads: usize,
    device: linerate::gpu::Device,
) -> bool {
    if let Some(size) = policy.part_size
        && !(S3_MIN_PART..=S3_MAX_PART).contains(&size)
    {
        console.error(
            format!(
                "warning: part size {} is outside S3's range of 5 MiB to 5 GiB (only \
                 the last part may be smaller); such ETags come only from stores that \
                 accept it",
                human(size)
            )
            .as_bytes(),
        );
    }
    let mut ok = true;
    let mut line = Vec::new();
    let inputs: Vec<_> = files.iter().map(|f| input(f)).collect();
    let progress = std::sync::Arc::clone(&console.progress);
    let request = checksums.cloned().unwrap_or_else(Request::etag);
    let mut each = |index: usize,
                    layout: Option<Layout>,
                    result: Result<Vec<_>, linerate_files::FileError>| {
        let name = files[index].as_bytes();
        // S3 refuses uploads of more than 10,000 parts; say so, but print
        // the ETag.
        if let Some(Layout::Parts { size, count }) = layout
            && count > MAX_PARTS
        {
            let detail = format!(
                "warning: {count} parts of {}; S3 takes at most {MAX_PARTS}",
                human(size)
            );
            console.error_about(name, detail.as_bytes());
        }
        match result {
            Ok(values) => {
                line.clear();
                for value in &values {
                    if checksums.is_some() {
                        linerate_sumfile::s3::push_line(&mut line, value, name);
                    } else if let Some(etag) = value.as_etag() {
                        linerate_sumfile::etag::push_line(&mut line, &etag, name);
                    }
                }
                console.print(&line);
            }
            Err(e) => {
                console.error_about(name, &error_text(e.io_error()));
                ok = false;
            }
        }
    };
    // Plain ETags can go to the GPU: every part of every file one message.
    #[cfg(feature = "cuda")]
    if checksums.is_none() {
        let work = || {
            let sizes = linerate_files::whole::regular_file_sizes(&inputs);
            linerate::gpu::Work::Streams {
                count: sizes
                    .iter()
                    .map(|&l| policy.layout(l).segments() as u64)
                    .sum(),
                bytes: sizes.iter().sum(),
            }
        };
        if let Some(ctx) = crate::device::gpu_for(device, work) {
            let ran = linerate_files::gpu::etags_in_order_gpu(
                ctx, &inputs, policy, threads, &*progress, &mut each,
            );
            match ran {
                Ok(()) => return ok,
                Err(e) => eprintln!("{}: GPU not used: {e}", crate::PROGRAM),
            }
        }
    }
    #[cfg(not(feature = "cuda"))]
    let _ = crate::device::gpu_for(device, || linerate::gpu::Work::Streams {
        count: 0,
        bytes: 0,
    });
    checksums_in_order(&inputs, policy, &request, threads, &*progress, &mut each);
    ok
}
