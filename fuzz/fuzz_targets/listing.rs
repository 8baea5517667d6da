//! libFuzzer's entry for `listing`: the property lives in
//! `linerate-fuzz-props`, where `cargo test` replays the seeds through it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| linerate_fuzz_props::listing::listing(data));
