//! `linerate packets bench`: each ICV algorithm timed over a capture's
//! packets by the lab ([`linerate_lab::packets`]), on one core and on all,
//! against link rates.

use super::report::Reporter;
use super::{EXIT_FAILURE, EXIT_SUCCESS};

/// Runs `bench`; the exit status.
pub fn run(args: super::args::Bench) -> u8 {
    let reporter = Reporter::new(&args.input, true);
    super::with_capture(&args.input, &reporter, |capture| {
        let mut note = |index: usize, message: &str| reporter.packet(index, message);
        let mut line = |text: &str| reporter.summary(text);
        match linerate_lab::packets::bench(capture, &args.algs, args.jobs, &mut note, &mut line) {
            Ok(()) => EXIT_SUCCESS,
            Err(e) => {
                reporter.error(&e.to_string());
                EXIT_FAILURE
            }
        }
    })
}
