//! `linerate packets`: IP Authentication Headers (RFC 4302, transport mode)
//! and the TCP MD5 signature option (RFC 2385) on the packets of a capture
//! file: `sign` inserts them, `verify` checks them, `bench` times the
//! algorithms over a capture's packets against the link rates of RFC
//! 1810's speed lab and today's.
//!
//! The packets themselves (captures, link layers, IP, the AH, ICVs, signing
//! and verifying) are the packets crate's ([`linerate_packets`]); here are
//! the command lines ([`args`]), the messages ([`report`]) and the
//! commands: [`sign`], [`verify`] and [`bench`](mod@bench).
//!
//! `sign` and `verify` read their capture chunk by chunk, in bounded
//! memory; `bench` reads it into memory whole (it times the algorithms over
//! all of it).

use std::ffi::OsString;
use std::process::ExitCode;

pub mod args;
pub mod bench;
pub mod report;
pub mod sign;
pub mod verify;

use linerate_packets::{capture, stream};
use report::Reporter;

/// Everything signed (OUT written) or verified.
pub const EXIT_SUCCESS: u8 = 0;
/// OUT written with packets copied unsigned; bad ICVs, malformed packets.
pub const EXIT_FAILURE: u8 = 1;
/// A usage error, an unreadable input or key, an output that cannot be
/// created: nothing done, nothing written.
pub const EXIT_SETUP: u8 = 2;
/// `sign` ran but OUT was not written (left as it was): IN is damaged
/// (without `--partial`), or OUT could not be written whole.
pub const EXIT_NOT_WRITTEN: u8 = 3;

const HELP: &str = "\
Usage: linerate packets sign IN -o OUT --spi N --alg ALG (--key-file F | --key-env V | --key-hex HEX)
                             [--seq-start N] [--partial]
       linerate packets sign IN -o OUT --alg tcp-md5 (--key-file F | ... | --key-table F) [--partial]
       linerate packets sign IN -o OUT --alg tcp-ao-ALG (--key-file F | ...) [--key-id N]
                             [--rnext-key-id N] [--exclude-options] [--partial]
       linerate packets verify IN --alg ALG (--key-file F | --key-env V | --key-hex HEX) [--spi N] [-v]
       linerate packets bench IN [--alg ALG]... [-j N]
IP Authentication Headers (RFC 4302, transport mode), the TCP MD5
signature option (RFC 2385, what BGP sessions carry) and its successor
TCP-AO (RFC 5925, 5926), on the packets of a capture: RFC 1810's question
(can MD5 authenticate packets at the speed of the network?) asked of real
traffic.

  sign     insert an AH into every whole IP packet of IN and write OUT (in
           IN's format: pcap or pcapng). The AH goes after the IPv4 header
           and its options, or after IPv6's hop-by-hop, routing and
           fragment headers (before a final destination options header).
           Lengths, the IPv4 header checksum and the next-header chain are
           fixed; the link-layer framing is untouched. Sequence numbers
           count from 1 (or --seq-start N) over the signed packets. Frames
           without IP, fragments (AH covers whole datagrams), snap-cut,
           truncated or malformed packets are copied unchanged and reported.
           OUT is written to an unnamed temporary file and put in place at
           the end (nothing is left behind, even by SIGKILL). Prints
           'N packets: S signed, K skipped (REASONS)'.
  verify   recompute the ICV of every AH packet of IN (with --spi N, only
           those with that SPI) and compare in constant time. Prints
           'N packets: A verified, B bad ICV, C not AH, D malformed'; with
           -v, one line per bad ICV on standard error. Malformed packets
           are always reported.
  bench    read IN into memory, build every IP packet's ICV input, and time
           each ALG (all by default) on one core and on -j N threads (all
           cores by default): packets/s, Gb/s of IP packet bytes, and which
           link rates that keeps up with (100 Mb/s TCP, 130 Mb/s UDP and
           622 Mb/s ATM from RFC 1810's day; 1, 10, 25, 100, 400 Gb/s).
           With tcp-md5, the Linux kernel's own TCP-MD5 cost is measured
           beside it (loopback transfers with and without TCP_MD5SIG, a
           few seconds) and the ratio printed.

ALG (ICV length in bytes):
  hmac-md5-96    HMAC-MD5, first 12 bytes (RFC 2403)
  hmac-sha1-96   HMAC-SHA1, first 12 bytes (RFC 2404)
  keyed-md5      MD5(key, zeros to 64 bytes, packet, key), 16 bytes (RFC 1828;
                 it predates RFC 4302's sequence number, carried here in
                 RFC 4302's AH format)
  umac-64        UMAC-64 (RFC 4418), 8 bytes, nonce = the sequence number
                 as 8 bytes big-endian
  umac-96        UMAC-96, 12 bytes, the same nonce
  tcp-md5        the TCP MD5 signature option (RFC 2385): option kind 19
                 in every TCP segment, MD5 over the pseudo-header, the TCP
                 header without options (checksum zero), the payload and
                 the key. sign inserts it first among the options (NOP, NOP,
                 19, 18, digest: as Linux does), or overwrites the digest of
                 one already there, fixing the data offset, the IP length
                 and checksum and the TCP checksum; segments without room
                 (over 20 bytes of options) and packets without TCP are
                 copied unchanged and reported. verify prints 'N packets: A
                 verified, B bad digest, C no TCP-MD5 option, D not TCP, E
                 malformed'. No --spi or --seq-start.
  tcp-ao-hmac-sha1-96, tcp-ao-aes128-cmac-96
                 TCP-AO (RFC 5925) with RFC 5926's MACs: option kind 29
                 (KeyID, RNextKeyID, 12-byte MAC) under traffic keys
                 derived from the key (the master key) and each
                 connection's addresses, ports and ISNs, which are taken
                 from its SYNs in the capture (a connection without them
                 is reported once, its segments not signed or verified);
                 the MAC covers the SNE (sequence-number wraps are
                 followed), the pseudo-header, the header with its options
                 (--exclude-options: only TCP-AO's) and the payload. sign
                 writes --key-id N (default 0) and --rnext-key-id N
                 (default the KeyID); verify checks every KeyID, or only N
                 with --key-id N, and prints 'N packets: A verified, B bad
                 MAC, C no TCP-AO option, D no SYN, E not TCP, F malformed'.
The MD5-based ones are for legacy interoperation; UMAC is not an IANA AH
transform (for comparison only).

Options:
  -o, --output=OUT     the signed capture (sign; required, no default);
                         '-' is standard output (the summary then goes to
                         standard error). A regular OUT is replaced only
                         once the whole capture is written (mode, owner and
                         group kept), and only by a user who may write it;
                         another user's file or one in a sticky directory
                         is copied into in place at the end (a failed copy
                         leaves it partial, exit 3); a symbolic link is
                         written through, a device or FIFO written to. IN
                         '-' is standard input (sign and verify)
      --spi=N          Security Parameters Index, 1 to 4294967295, decimal
                         or 0x hex (1-255 are reserved by IANA)
      --alg=ALG        the ICV algorithm (bench: repeatable)
      --key-file=F     the key is F's bytes, exactly as stored (- standard
                         input, /dev/fd/N an inherited descriptor)
      --key-env=V      the key in hexadecimal in environment variable V
      --key-hex=HEX    the key in hexadecimal (visible to other users in
                         ps: prefer the two above); HMAC and keyed MD5 take any
                         non-empty key (RFC 2403/2404 use 16/20 bytes), UMAC
                         exactly 16 bytes
      --seq-start=N    the first sequence number (sign; default 1; required
                         for UMAC, whose nonce it is: never start a run
                         under a key where an earlier one has been)
      --partial        write OUT even from a damaged IN: the packets before
                         the damage (sign; exit 1)
      --key-table=F    TCP-MD5 and TCP-AO: keys per connection, as routers
                         configure them per peer. Lines 'LOCAL-PREFIX
                         PEER-PREFIX [PORT] KEY' (either way round; the first
                         line that holds both addresses, and the port if
                         given, wins); KEY is hex:HEX, env:NAME (hex) or
                         file:PATH (the file's bytes, at most 65536 as for
                         --key-file; relative to F's directory); # comments;
                         F at most 1 MiB. A connection without a line
                         is said once per direction, its segments counted
                         'no key' (not signed, not verified)
      --key-id=N       TCP-AO: the KeyID to write (sign) or to check (verify)
      --rnext-key-id=N TCP-AO: the RNextKeyID to write (sign)
      --exclude-options  TCP-AO: the MAC covers no TCP option but TCP-AO's
                         (the key's option flag; both ends must agree)
  -v, --verbose        report each bad ICV (verify)
  -j, --threads=N      threads for bench's all-core run (default: all cores)
  -h, --help           this text

Link types: Ethernet (1, one 802.1Q tag), raw IP (101, 228, 229), Linux
SLL (113) and SLL2 (276). Per-packet problems are reported on standard
error as 'linerate: IN: packet N: MESSAGE' (N counts from 1).

Exit status: 0 all signed (OUT written) or verified; 1 OUT written with
some packet copied unsigned (sign), a bad ICV, a malformed packet or no AH
packet at all to verify (verify); 2 a usage error, an unreadable IN or
key, or an OUT that cannot be created or that the user may not write
(nothing written); 3 (sign) OUT not written, left as it was: IN is damaged
(a truncated or corrupt capture; --partial writes the packets before the
damage, exit 1) or OUT could not be written whole (where OUT was being
copied into in place, it is left partial and the message says so).
";

/// Runs `linerate packets ARGS...`.
pub fn main(args: &[OsString]) -> ExitCode {
    let command = match args::parse(args) {
        Ok(c) => c,
        Err(message) => {
            setup_error(&format!(
                "{message}\nTry 'linerate packets --help' for more information."
            ));
            return ExitCode::from(EXIT_SETUP);
        }
    };
    ExitCode::from(match command {
        args::Command::Help => {
            crate::output::print_or_quiet(HELP.as_bytes());
            EXIT_SUCCESS
        }
        args::Command::Sign(a) => sign::run(a),
        args::Command::Verify(a) => verify::run(a),
        args::Command::Bench(a) => bench::run(a),
    })
}

/// `linerate: MESSAGE` on standard error.
pub fn setup_error(message: &str) {
    eprintln!("{}: {message}", crate::PROGRAM);
}

/// The keys loaded: an AH's MAC under its key, or TCP keys (one for
/// every connection, or a table).
pub enum Loaded {
    Ah(linerate::mac::MacKey),
    Tcp(linerate_packets::keys::KeyTable),
}

/// Reads the keys `keying` names (wiped when dropped), or says why not
/// and gives [`EXIT_SETUP`].
pub fn load_keys(keying: &args::Keying) -> Result<Loaded, u8> {
    let fail = |message: String| {
        setup_error(&message);
        EXIT_SETUP
    };
    match &keying.keys {
        args::Keys::One(source) => {
            let key = args::load_key(keying.alg, source).map_err(fail)?;
            Ok(if linerate_packets::icv::is_tcp(keying.alg) {
                Loaded::Tcp(linerate_packets::keys::KeyTable::single(key))
            } else {
                Loaded::Ah(
                    linerate::mac::MacKey::new(keying.alg, &key).expect("the key was checked"),
                )
            })
        }
        args::Keys::Table(path) => {
            use linerate_packets::keys::{MAX_TABLE, open_key_file, read_bounded, too_long};
            let name = std::path::Path::new(path).display().to_string();
            let read = open_key_file(std::path::Path::new(path))
                .and_then(|file| read_bounded(file, MAX_TABLE))
                .map_err(|e| fail(format!("{name}: {}", crate::output::reason(&e))))?;
            let bytes = read.ok_or_else(|| fail(format!("{name}: {}", too_long(MAX_TABLE))))?;
            let text = std::str::from_utf8(&bytes)
                .map_err(|_| fail(format!("{name}: stream did not contain valid UTF-8")))?;
            let dir = std::path::Path::new(path)
                .parent()
                .unwrap_or(std::path::Path::new("."));
            linerate_packets::keys::KeyTable::parse(text, dir, &|n| std::env::var(n).ok())
                .map(Loaded::Tcp)
                .map_err(|e| fail(format!("{name}: {e}")))
        }
    }
}

/// TCP-AO's connections under `keys`, if `alg` is TCP-AO's.
pub fn ao_flows(
    alg: linerate::MacAlgorithm,
    keys: linerate_packets::keys::KeyTable,
    ao: args::AoOptions,
) -> Result<Box<linerate_packets::tcp_ao_flows::Flows>, linerate_packets::keys::KeyTable> {
    let Some(alg) = linerate_packets::icv::tcp_ao(alg) else {
        return Err(keys);
    };
    Ok(Box::new(linerate_packets::tcp_ao_flows::Flows::new(
        linerate_packets::tcp_ao_flows::AoConfig {
            alg,
            keys,
            include_options: !ao.exclude_options,
            key_id: ao.key_id,
            rnext_key_id: ao.rnext_key_id,
        },
    )))
}

/// Opens the capture `path` to be read chunk by chunk, or says why not
/// (as [`with_capture`] does) and gives [`EXIT_SETUP`].
pub fn open_capture(path: &OsString, reporter: &Reporter) -> Result<stream::CaptureReader, u8> {
    // `LINERATE_PACKETS_CHUNK=N` sets the read buffer's size in bytes, so
    // that the tests can cut records at every boundary; not for users.
    let chunk = std::env::var("LINERATE_PACKETS_CHUNK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(stream::CHUNK);
    let opened = if path == "-" {
        stdin_file()
            .map_err(stream::OpenFailure::Io)
            .and_then(|file| stream::CaptureReader::from_file(file, chunk))
    } else {
        stream::CaptureReader::with_chunk(path, chunk)
    };
    opened.map_err(|failure| {
        match failure {
            stream::OpenFailure::Io(e) => {
                let text = crate::sum::console::error_text(&e);
                reporter.error(&String::from_utf8_lossy(&text));
            }
            stream::OpenFailure::Capture(e) => reporter.error(&e.to_string()),
        }
        EXIT_SETUP
    })
}

/// Reads the capture `path` into memory and runs `f` on it; the exit
/// status of `f`, or [`EXIT_SETUP`] after reporting an unreadable file or
/// one that is no capture.
pub fn with_capture(
    path: &OsString,
    reporter: &Reporter,
    f: impl FnOnce(capture::Capture<'_>) -> u8,
) -> u8 {
    let read = if path == "-" {
        stdin_file().and_then(|mut file| {
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut data).map(|_| data)
        })
    } else {
        std::fs::read(path)
    };
    let data = match read {
        Ok(data) => data,
        Err(e) => {
            let text = crate::sum::console::error_text(&e);
            reporter.error(&String::from_utf8_lossy(&text));
            return EXIT_SETUP;
        }
    };
    match capture::Capture::open(&data) {
        Ok(capture) => f(capture),
        Err(e) => {
            reporter.error(&e.to_string());
            EXIT_SETUP
        }
    }
}

/// Standard input as a file of its own (a duplicate descriptor), for the
/// capture `-`; EBADF where it is closed.
fn stdin_file() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    linerate_files::check_stdin()?;
    Ok(std::fs::File::from(
        std::io::stdin().as_fd().try_clone_to_owned()?,
    ))
}
