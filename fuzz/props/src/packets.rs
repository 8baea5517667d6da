//! Packets as `packets sign` and `verify` take them.
//!
//! - [`packets_parse`]: the capture reader and everything a packet goes
//!   through: link layer, IP headers, AH insertion and the ICV input's
//!   zeroing, TCP options, the TCP-MD5 option's insertion and digest
//!   input, TCP-AO across a capture's connections. Any input must be read
//!   without a panic, and what is found lies inside its packet.
//! - [`packets_ah`]: the AH parser and the IP parser on raw IP packets (as
//!   a raw-IP capture would hand them over), with the ICV input built from
//!   whatever AH is found: the AH and the packet's length inside the input,
//!   the ICV input as long as the packet.

use linerate::MacAlgorithm;
use linerate_packets::ah;
use linerate_packets::capture::{Capture, Item};
use linerate_packets::ip;
use linerate_packets::keys::KeyTable;
use linerate_packets::mutable::icv_input;
use linerate_packets::packet::locate;
use linerate_packets::sign::{Inserted, insert_ah};
use linerate_packets::tcp;
use linerate_packets::tcp_ao::{self, AoAlgorithm};
use linerate_packets::tcp_ao_flows::{AoConfig, Flows};
use linerate_packets::tcp_md5;

pub fn packets_parse(data: &[u8]) {
    let Ok(capture) = Capture::open(data) else {
        return;
    };
    let mut signed = Inserted::default();
    let mut input = Vec::new();
    // TCP-AO follows connections across packets: one state per capture.
    let mut flows = Flows::new(AoConfig {
        alg: AoAlgorithm::HmacSha1_96,
        keys: KeyTable::single(vec![1, 2, 3].into()),
        include_options: data.len().is_multiple_of(2),
        key_id: None,
        rnext_key_id: None,
    });
    for item in capture {
        let Ok(Item::Packet(p)) = item else {
            continue;
        };
        let Ok(Some(at)) = locate(&p) else {
            continue;
        };
        let layout = at.layout;
        if let Some(ah_at) = layout.ah_at {
            let ip = &p.data[at.ip_at..at.ip_at + layout.len];
            if let Ok(h) = ah::parse(&ip[ah_at..]) {
                let _ = icv_input(
                    ip,
                    layout.version,
                    layout.len,
                    ah_at,
                    h.len - ah::FIXED,
                    &mut input,
                );
            }
        }
        let _ = insert_ah(p.data, &at, MacAlgorithm::KeyedMd5, 0x100, 1, &mut signed);
        let ip = &p.data[at.ip_at..at.ip_at + layout.len];
        if let Ok(Some(found)) = tcp_md5::find(ip, &at) {
            tcp_md5::digest_input(ip, layout.version, &found.segment, &mut input);
        }
        let mut frame = Vec::new();
        if let Ok(pending) = tcp_md5::build(p.data, &at, &mut frame, &mut input) {
            tcp_md5::seal(&mut frame, &pending, &[0xa5; 16]);
        }
        if let Ok(Some(seg)) = tcp::locate(ip, &layout)
            && let Ok(Some(option)) = tcp_ao::find(ip, &seg)
        {
            let _ = flows.mac(ip, layout.version, &seg, &option);
        }
        frame.clear();
        if let Ok(placed) = tcp_ao::build(p.data, &at, 1, 2, &mut frame) {
            let ip = placed.ip(&frame);
            if let Ok(mac) = flows.mac(ip, placed.version, &placed.segment, &placed.option) {
                tcp_ao::seal(&mut frame, &placed, &mac);
            }
        }
    }
}

pub fn packets_ah(data: &[u8]) {
    if let Ok(h) = ah::parse(data) {
        assert!(h.len >= ah::FIXED && h.len <= data.len());
    }
    let Ok(layout) = ip::parse(data) else {
        return;
    };
    assert!(layout.len <= data.len() && layout.insert_at <= layout.len);
    if let Some(ah_at) = layout.ah_at
        && let Ok(h) = ah::parse(&data[ah_at..layout.len])
    {
        let mut input = Vec::new();
        let made = icv_input(
            data,
            layout.version,
            layout.len,
            ah_at,
            h.len - ah::FIXED,
            &mut input,
        );
        // The ICV input is the packet with fields zeroed, never more.
        if made.is_ok() {
            assert_eq!(input.len(), layout.len);
        }
    }
}
