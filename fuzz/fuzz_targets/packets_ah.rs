//! Fuzzes the AH parser and the IP parser on raw IP packets (as a raw-IP
//! capture would hand them over), with the ICV input built from whatever
//! AH is found.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_packets::ah;
use linerate_packets::ip;
use linerate_packets::mutable::icv_input;

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = ah::parse(data) {
        assert!(h.len >= ah::FIXED && h.len <= data.len());
    }
    let Ok(layout) = ip::parse(data) else {
        return;
    };
    assert!(layout.len <= data.len() && layout.insert_at <= layout.len);
    if let Some(ah_at) = layout.ah_at {
        if let Ok(h) = ah::parse(&data[ah_at..layout.len]) {
            let mut input = Vec::new();
            let _ = icv_input(
                data,
                layout.version,
                layout.len,
                ah_at,
                h.len - ah::FIXED,
                &mut input,
            );
        }
    }
});
