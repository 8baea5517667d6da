//! A capture's packets as a batch of ICV inputs: what `sign` would MAC (the
//! AH inserted, mutable fields zeroed; or the TCP-MD5 option inserted) or,
//! for packets that already carry an AH (a TCP-MD5 option), what `verify`
//! would MAC. `linerate packets bench` times the MACs over them alone.

use linerate::MacAlgorithm;

use crate::ah;
use crate::capture::{Capture, Item, Packet};
use crate::mutable::icv_input;
use crate::packet::{Located, locate};
use crate::sign::{Inserted, insert_ah};
use crate::tcp_ao;
use crate::tcp_md5;

/// The whole, unfragmented IP packets of a capture.
pub struct Packets<'a> {
    /// Each packet's located frame.
    pub frames: Vec<(Packet<'a>, Located)>,
    /// IP packet bytes (before any AH is added).
    pub ip_bytes: u64,
    /// Records left out (no IP, fragments, malformed).
    pub others: usize,
}

/// The ICV inputs of some packets under one algorithm.
pub struct Inputs {
    pub inputs: Vec<Vec<u8>>,
    /// Each input's AH sequence number (UMAC's nonce).
    pub seqs: Vec<u32>,
    /// IP bytes of the packets they stand for.
    pub ip_bytes: u64,
}

impl<'a> Packets<'a> {
    /// The packets of `capture`; `note` hears of a record that could not be
    /// read (its index, and why), which ends the capture.
    pub fn collect(capture: Capture<'a>, note: &mut dyn FnMut(usize, &str)) -> Packets<'a> {
        let mut packets = Packets {
            frames: Vec::new(),
            ip_bytes: 0,
            others: 0,
        };
        for item in capture {
            match item {
                Ok(Item::Packet(p)) => match locate(&p) {
                    Ok(Some(at)) if !at.layout.fragment => {
                        packets.ip_bytes += at.layout.len as u64;
                        packets.frames.push((p, at));
                    }
                    _ => packets.others += 1,
                },
                Ok(Item::Raw { .. }) => {}
                Err(e) => {
                    note(e.index, &e.message);
                    break;
                }
            }
        }
        packets
    }

    /// The ICV inputs under `alg`, with sequence numbers from 1.
    pub fn inputs(&self, alg: MacAlgorithm) -> Inputs {
        let mut out = Inputs {
            inputs: Vec::with_capacity(self.frames.len()),
            seqs: Vec::with_capacity(self.frames.len()),
            ip_bytes: 0,
        };
        let mut inserted = Inserted::default();
        let mut scratch = Vec::new();
        for (i, (p, at)) in self.frames.iter().enumerate() {
            if alg == MacAlgorithm::TcpMd5 {
                // Segments without TCP are left out, as `sign` leaves them.
                let mut input = Vec::new();
                scratch.clear();
                if tcp_md5::build(p.data, at, &mut scratch, &mut input).is_ok() {
                    out.inputs.push(input);
                    out.seqs.push(0);
                    out.ip_bytes += at.layout.len as u64;
                }
                continue;
            }
            if matches!(
                alg,
                MacAlgorithm::TcpAoHmacSha1_96 | MacAlgorithm::TcpAoAes128Cmac96
            ) {
                // The MAC input of the segment with its option in place
                // (SNE 0, options covered); the bench times the MAC under
                // one traffic key (the KDF runs once per connection).
                scratch.clear();
                if let Ok(placed) = tcp_ao::build(p.data, at, 0, 0, &mut scratch) {
                    let mut input = Vec::new();
                    let ip = placed.ip(&scratch);
                    tcp_ao::mac_input(
                        ip,
                        placed.version,
                        &placed.segment,
                        &placed.option,
                        0,
                        true,
                        &mut input,
                    );
                    out.inputs.push(input);
                    out.seqs.push(0);
                    out.ip_bytes += at.layout.len as u64;
                }
                continue;
            }
            let seq = (i as u32).wrapping_add(1);
            let layout = &at.layout;
            let built = match layout.ah_at {
                Some(ah_at) => {
                    let ip = &p.data[at.ip_at..at.ip_at + layout.len];
                    let mut input = Vec::new();
                    ah::parse(&ip[ah_at..])
                        .and_then(|h| {
                            let icv_len = alg.tag_len().min(h.len - ah::FIXED);
                            icv_input(ip, layout.version, layout.len, ah_at, icv_len, &mut input)
                        })
                        .map(|()| input)
                }
                None => insert_ah(p.data, at, alg, 0x100, seq, &mut inserted)
                    .map(|()| std::mem::take(&mut inserted.input)),
            };
            if let Ok(input) = built {
                out.inputs.push(input);
                out.seqs.push(seq);
                out.ip_bytes += layout.len as u64;
            }
        }
        out
    }
}
