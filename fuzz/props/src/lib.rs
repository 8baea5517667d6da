//! The properties of linerate's fuzz targets: one function per target,
//! taking the fuzzer's bytes and panicking when a property fails. The
//! targets (`fuzz/fuzz_targets/*.rs`) are one `fuzz_target!` line each
//! around these; `tests/replay.rs` runs every committed seed
//! (`fuzz/seeds/TARGET/*`) through them on stable, in every `cargo test`.
//!
//! Properties, not just "no panic": a parsed line printed again parses to
//! the same value, a listing or capture written again reads back the same,
//! fast paths agree with slow references (RFC 1321's MD5, RFC 1071's
//! checksum word by word), and what comes out is bounded by what went in.
//! Nothing here opens a file, reads the environment or starts anything.

pub mod capture;
pub mod check_lines;
pub mod digests;
pub mod keys;
pub mod lab_run;
pub mod listing;
pub mod manifest;
pub mod packets;
pub mod seeds;
pub mod tcp;

/// A target's name (its `fuzz_targets/NAME.rs` and `seeds/NAME/`) and its
/// property.
pub type Target = (&'static str, fn(&[u8]));

/// Every target (`scripts/fuzz.sh` runs them in `cargo fuzz list` order).
pub const TARGETS: &[Target] = &[
    ("check_line", check_lines::md5sum),
    ("check_sum", check_lines::sum),
    ("check_cksum", check_lines::cksum),
    ("check_mac", check_lines::mac),
    ("check_etag", check_lines::etag),
    ("quote_name", check_lines::quote_name),
    ("listing", listing::listing),
    ("manifest", manifest::manifest),
    ("tcp_options", tcp::tcp_options),
    ("pcapng", capture::capture),
    ("packets_parse", packets::packets_parse),
    ("packets_ah", packets::packets_ah),
    ("key_table", keys::key_table),
    ("lab_run", lab_run::lab_run),
    ("md5_reference", digests::md5_reference),
];

/// The property of the target `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
}
