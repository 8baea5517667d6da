//! `linerate packets verify`: every AH packet of the capture checked by the
//! packets crate ([`linerate_packets::verify`]); bad ICVs reported with
//! `-v`, malformed packets always, then the summary.

use linerate_packets::icv::is_tcp;
use linerate_packets::verify::{Checking, Finding, verify};

use super::report::Reporter;
use super::{EXIT_FAILURE, EXIT_SETUP, EXIT_SUCCESS};

/// Runs `verify`; the exit status.
pub fn run(args: super::args::Verify) -> u8 {
    let reporter = Reporter::new(&args.input, args.verbose);
    let always = Reporter::new(&args.input, true);
    let (mut keyed, key) = match super::keyed(&args.keying) {
        Ok(k) => k,
        Err(status) => return status,
    };
    let mut reader = match super::open_capture(&args.input, &always) {
        Ok(r) => r,
        Err(status) => return status,
    };
    let mut note = |index: usize, message: &str, finding: Finding| match finding {
        Finding::BadIcv => reporter.packet(index, message),
        Finding::Malformed => always.packet(index, message),
    };
    let tcp = is_tcp(args.keying.alg);
    let ao = super::ao_flows(&args.keying, key, args.ao);
    let ao_name = ao.as_ref().map(|_| args.keying.alg.name());
    let checking = match ao {
        Some(flows) => Checking::TcpAo(flows),
        None if tcp => Checking::TcpMd5,
        None => Checking::Ah { spi: args.spi },
    };
    let counts = match verify(&mut reader, &mut keyed, checking, &mut note) {
        Ok(counts) => counts,
        Err(e) => {
            always.error(&linerate_files::strerror(&e));
            return EXIT_SETUP;
        }
    };
    reporter.summary(&if ao_name.is_some() {
        format!(
            "{} packets: {} verified, {} bad MAC, {} no TCP-AO option, {} no SYN, {} not TCP, {} malformed",
            counts.packets,
            counts.verified,
            counts.bad,
            counts.unprotected,
            counts.no_isn,
            counts.not_tcp,
            counts.malformed
        )
    } else if tcp {
        format!(
            "{} packets: {} verified, {} bad digest, {} no TCP-MD5 option, {} not TCP, {} malformed",
            counts.packets,
            counts.verified,
            counts.bad,
            counts.unprotected,
            counts.not_tcp,
            counts.malformed
        )
    } else {
        format!(
            "{} packets: {} verified, {} bad ICV, {} not AH, {} malformed",
            counts.packets, counts.verified, counts.bad, counts.unprotected, counts.malformed
        )
    });
    if counts.verified + counts.bad == 0 {
        // A check that checked nothing is no success.
        let what = match (tcp, args.spi) {
            (true, _) if ao_name.is_some() => {
                "no TCP segment with a TCP-AO option (of a connection whose SYNs are here)"
                    .to_string()
            }
            (true, _) => "no TCP segment with a TCP-MD5 option".to_string(),
            (false, Some(spi)) => format!("no AH packet with SPI {spi}"),
            (false, None) => "no AH packet".to_string(),
        };
        always.error(&format!("nothing verified: {what}"));
        return EXIT_FAILURE;
    }
    if counts.bad == 0 && counts.malformed == 0 && counts.no_isn == 0 {
        EXIT_SUCCESS
    } else {
        EXIT_FAILURE
    }
}
