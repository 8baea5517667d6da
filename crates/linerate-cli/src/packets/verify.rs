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
    let loaded = match super::load_keys(&args.keying) {
        Ok(loaded) => loaded,
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
    let table = matches!(args.keying.keys, super::args::Keys::Table(_));
    let checking = match loaded {
        super::Loaded::Ah(key) => Checking::Ah { key, spi: args.spi },
        super::Loaded::Tcp(keys) => match super::ao_flows(args.keying.alg, keys, args.ao) {
            Ok(flows) => Checking::TcpAo(flows),
            Err(keys) => Checking::TcpMd5(Box::new(keys)),
        },
    };
    let ao_name = matches!(checking, Checking::TcpAo(_)).then(|| args.keying.alg.name());
    let counts = match verify(&mut reader, checking, &mut note) {
        Ok(counts) => counts,
        Err(e) => {
            always.error(&linerate_files::strerror(&e));
            return EXIT_SETUP;
        }
    };
    let c = &counts;
    let mut parts = vec![format!("{} verified", c.verified)];
    if ao_name.is_some() {
        parts.push(format!("{} bad MAC", c.bad));
        parts.push(format!("{} no TCP-AO option", c.unprotected));
        parts.push(format!("{} no SYN", c.no_isn));
    } else if tcp {
        parts.push(format!("{} bad digest", c.bad));
        parts.push(format!("{} no TCP-MD5 option", c.unprotected));
    } else {
        parts.push(format!("{} bad ICV", c.bad));
        parts.push(format!("{} not AH", c.unprotected));
    }
    if table {
        parts.push(format!("{} no key", c.no_key));
    }
    if tcp {
        parts.push(format!("{} not TCP", c.not_tcp));
    }
    parts.push(format!("{} malformed", c.malformed));
    reporter.summary(&format!("{} packets: {}", c.packets, parts.join(", ")));
    if counts.verified + counts.bad == 0 {
        // A check that checked nothing is no success.
        let what = match (tcp, args.spi) {
            (true, _) if counts.no_key > 0 => {
                "the key table has no key for any connection with the option".to_string()
            }
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
    if counts.bad == 0 && counts.malformed == 0 && counts.no_isn == 0 && counts.no_key == 0 {
        EXIT_SUCCESS
    } else {
        EXIT_FAILURE
    }
}
