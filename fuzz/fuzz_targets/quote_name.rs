//! Fuzzes the quoting of file names in diagnostics: it must never panic, a
//! name left unquoted must come out unchanged, and a quoted one must be
//! wrapped in matching quotes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_sumfile::quote::{Charset, quote};

fuzz_target!(|name: &[u8]| {
    for charset in [Charset::Utf8, Charset::Ascii] {
        let quoted = quote(name, charset);
        if quoted != name {
            let first = quoted.first().copied();
            assert!(matches!(first, Some(b'\'' | b'"')), "{quoted:?}");
            assert_eq!(quoted.last().copied(), first, "{quoted:?}");
        }
    }
});
