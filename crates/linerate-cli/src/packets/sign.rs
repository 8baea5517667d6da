//! `linerate packets sign`: the capture signed by the packets crate
//! ([`linerate_packets::sign`]) into an output file put in place only when
//! whole ([`crate::output::OutputFile`]); every packet copied unchanged is
//! reported with its index, then the summary.

use std::path::Path;

use linerate_packets::sign::{SignError, Signing, sign};
use linerate_packets::write::CaptureWriter;

use super::report::Reporter;
use super::{EXIT_FAILURE, EXIT_NOT_WRITTEN, EXIT_SETUP, EXIT_SUCCESS};
use crate::output::{OutputFile, reason};
use linerate_packets::problem::Kind;

/// Runs `sign`; the exit status.
pub fn run(args: super::args::Sign) -> u8 {
    let reporter = Reporter::new(&args.input, true);
    let loaded = match super::load_keys(&args.keying) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let mut reader = match super::open_capture(&args.input, &reporter) {
        Ok(r) => r,
        Err(status) => return status,
    };
    let out_reporter = Reporter::new(args.output.as_os_str(), true);
    let out = match OutputFile::create(Path::new(&args.output), "packets") {
        Ok(out) => out,
        Err(e) => {
            out_reporter.error(&reason(&e));
            return EXIT_SETUP;
        }
    };
    let mut writer = CaptureWriter::new(out);
    let signing = match (loaded, args.ah) {
        (super::Loaded::Ah(key), Some((spi, seq_start))) => Signing::Ah {
            key,
            spi,
            seq_start,
        },
        (super::Loaded::Tcp(keys), _) => match super::ao_flows(args.keying.alg, keys, args.ao) {
            Ok(flows) => Signing::TcpAo(flows),
            Err(keys) => Signing::TcpMd5(Box::new(keys)),
        },
        (super::Loaded::Ah(_), None) => unreachable!("an AH algorithm has --spi"),
    };
    let mut note = |index: usize, message: &str| reporter.packet(index, message);
    let done = match sign(&mut reader, &mut writer, signing, &mut note) {
        Ok(done) => done,
        Err(SignError::Read(e)) => {
            reporter.error(&reason(&e));
            return EXIT_SETUP;
        }
        Err(SignError::Write(e)) => return write_failed(&e, &args.output, &out_reporter),
    };
    let skipped = done.skipped.total();
    let damaged = done.skipped.count(Kind::Capture) > 0;
    if damaged && !args.partial {
        // Dropped uncommitted: the temporary file goes, OUT stays.
        drop(writer);
        out_reporter.error("not written: the input capture is damaged (--partial writes the packets before the damage)");
        return EXIT_NOT_WRITTEN;
    }
    if let Err(e) = writer.finish().and_then(OutputFile::commit) {
        return write_failed(&e, &args.output, &out_reporter);
    }
    let mut line = format!(
        "{} packets: {} signed, {skipped} skipped",
        done.packets, done.signed
    );
    if skipped > 0 {
        line.push_str(&format!(" ({})", done.skipped.describe()));
    }
    if args.output == "-" {
        // Standard output carries the capture: the summary goes beside it.
        eprintln!("{line}");
    } else {
        reporter.summary(&line);
    }
    if skipped == 0 {
        EXIT_SUCCESS
    } else {
        EXIT_FAILURE
    }
}

/// Says why OUT was not written (or, copied in place over another user's
/// file, is left partial); the exit status. Standard output's reader gone
/// ends the run as for every command (quietly where SIGPIPE kills).
fn write_failed(e: &std::io::Error, output: &std::ffi::OsStr, out_reporter: &Reporter) -> u8 {
    if output == "-" && crate::output::is_broken_pipe(e) && crate::output::sigpipe_was_default() {
        crate::output::exit_on_write_error(e);
    }
    let fate = if crate::output::left_partial(e) {
        "left partial (it was being written in place)"
    } else {
        "not written"
    };
    out_reporter.error(&format!("write error: {}, {fate}", reason(e)));
    EXIT_NOT_WRITTEN
}
