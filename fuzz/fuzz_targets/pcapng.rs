//! libFuzzer's entry for `pcapng`: the property lives in
//! `linerate-fuzz-props`, where `cargo test` replays the seeds through it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linerate_fuzz_props::capture::capture(data));
