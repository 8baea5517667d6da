//! TCP-AO's connections, followed through a capture: each direction's
//! initial sequence number (from its SYN, or from the acknowledgment of
//! the peer's SYN-ACK), its Sequence Number Extension (RFC 5925 6.2, with
//! RFC 9187's rule for segments from before a rollover), and its traffic
//! keys, derived once per direction and pair of ISNs.
//!
//! A connection whose SYNs are not in the capture has no ISNs, so no
//! traffic keys: its segments cannot be checked, and the caller says so
//! once per connection.

use std::collections::HashMap;
use std::rc::Rc;

use crate::ip::Version;
use crate::keys::KeyTable;
use crate::tcp::{self, Segment};
use crate::tcp_ao::{self, AoAlgorithm, AoOption, MAC_LEN, TrafficKey};

/// How TCP-AO is applied: the algorithm, the master keys (one per
/// connection, from a key table, or one for all), whether the MAC covers
/// the TCP options, and the KeyIDs.
pub struct AoConfig {
    pub alg: AoAlgorithm,
    pub keys: KeyTable,
    /// RFC 5925's TCP option flag: `false` excludes every option but
    /// TCP-AO from the MAC.
    pub include_options: bool,
    /// `sign`: the KeyID written; `verify`: only segments with this KeyID
    /// are checked (all if `None`).
    pub key_id: Option<u8>,
    /// `sign`: the RNextKeyID written (the KeyID if `None`).
    pub rnext_key_id: Option<u8>,
}

/// Addresses and ports of one direction, as bytes: source and destination
/// address, source and destination port.
type DirectionId = Vec<u8>;

#[derive(Default)]
struct Direction {
    isn: Option<u32>,
    /// The highest sequence number seen, and its SNE.
    high: u32,
    sne: u32,
    /// Traffic keys by (this side's ISN, the peer's; zero for a SYN).
    keys: HashMap<(u32, u32), Rc<TrafficKey>>,
}

/// Why a segment's MAC could not be computed, with the segment's direction
/// ("10.0.0.1:179 > 10.0.0.2:40000").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unkeyed {
    /// The connection's SYNs are not in the capture: no ISNs.
    NoIsn(String),
    /// The key table has no key for the connection.
    NoKey(String),
}

/// The connections of a capture under one configuration.
pub struct Flows {
    pub config: AoConfig,
    directions: HashMap<DirectionId, Direction>,
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The direction of a segment, and the reverse one.
fn ids(ip: &[u8], version: Version, seg: &Segment) -> (DirectionId, DirectionId) {
    let (src, dst) = match version {
        Version::V4 => (&ip[12..16], &ip[16..20]),
        Version::V6 => (&ip[8..24], &ip[24..40]),
    };
    let (sport, dport) = (&ip[seg.at..seg.at + 2], &ip[seg.at + 2..seg.at + 4]);
    (
        [src, dst, sport, dport].concat(),
        [dst, src, dport, sport].concat(),
    )
}

impl Flows {
    pub fn new(config: AoConfig) -> Flows {
        Flows {
            config,
            directions: HashMap::new(),
        }
    }

    /// The MAC of the segment `seg` of `ip` carrying `option` (its MAC
    /// field read as zero), as [`prepare`](Self::prepare) sets it up.
    pub fn mac(
        &mut self,
        ip: &[u8],
        version: Version,
        seg: &Segment,
        option: &AoOption,
    ) -> Result<[u8; MAC_LEN], Unkeyed> {
        let mut input = Vec::with_capacity(seg.len + 64);
        let key = self.prepare(ip, version, seg, option, &mut input)?;
        Ok(key.mac(&input))
    }

    /// Notes the segment's ISNs and sequence number (segments must come in
    /// capture order), puts its MAC input into `input` and gives the
    /// traffic key its MAC is under, for a batch ([`tcp_ao::macs`]).
    pub fn prepare(
        &mut self,
        ip: &[u8],
        version: Version,
        seg: &Segment,
        option: &AoOption,
        input: &mut Vec<u8>,
    ) -> Result<Rc<TrafficKey>, Unkeyed> {
        let (id, reverse) = ids(ip, version, seg);
        let flags = ip[seg.at + 13];
        let (syn, ack) = (flags & 0x02 != 0, flags & 0x10 != 0);
        let seq = be32(ip, seg.at + 4);
        if syn {
            let dir = self.directions.entry(id.clone()).or_default();
            dir.isn = Some(seq);
            dir.high = seq;
            dir.sne = 0;
            if ack {
                let peer = self.directions.entry(reverse.clone()).or_default();
                if peer.isn.is_none() {
                    let isn = be32(ip, seg.at + 8).wrapping_sub(1);
                    peer.isn = Some(isn);
                    peer.high = isn;
                }
            }
        }
        let peer_isn = if syn && !ack {
            Some(0)
        } else {
            self.directions.get(&reverse).and_then(|d| d.isn)
        };
        let own = self.directions.get(&id).and_then(|d| d.isn);
        let Some(master) = self.config.keys.key_for(ip, version, seg) else {
            return Err(Unkeyed::NoKey(tcp::describe(ip, version, seg)));
        };
        let (Some(own_isn), Some(peer_isn)) = (own, peer_isn) else {
            return Err(Unkeyed::NoIsn(tcp::describe(ip, version, seg)));
        };
        let dir = self.directions.get_mut(&id).expect("seen");
        let sne = if syn { 0 } else { sne(dir, seq) };
        let alg = self.config.alg;
        let key = dir.keys.entry((own_isn, peer_isn)).or_insert_with(|| {
            let context = tcp_ao::context(ip, version, seg, own_isn, peer_isn);
            Rc::new(alg.traffic_key(master, &context))
        });
        tcp_ao::mac_input(
            ip,
            version,
            seg,
            option,
            sne,
            self.config.include_options,
            input,
        );
        Ok(Rc::clone(key))
    }
}

/// The SNE of a segment of sequence number `seq` in `dir`, moving the
/// direction's highest sequence number on: a number past the highest
/// (modulo 2^32) that is smaller as an integer has wrapped (SNE + 1); one
/// before the highest that is larger is from before the last wrap (SNE -
/// 1, RFC 9187).
fn sne(dir: &mut Direction, seq: u32) -> u32 {
    let ahead = seq.wrapping_sub(dir.high) < 1 << 31;
    if ahead {
        if seq < dir.high {
            dir.sne = dir.sne.wrapping_add(1);
        }
        dir.high = seq;
        dir.sne
    } else if seq > dir.high {
        dir.sne.wrapping_sub(1)
    } else {
        dir.sne
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sne_follows_rollover_and_late_segments() {
        let mut dir = Direction {
            isn: Some(0xffff_f000),
            high: 0xffff_f000,
            ..Direction::default()
        };
        assert_eq!(sne(&mut dir, 0xffff_f800), 0);
        assert_eq!(sne(&mut dir, 0x0000_0100), 1, "wrapped");
        assert_eq!(
            sne(&mut dir, 0xffff_fa00),
            0,
            "a retransmission from before"
        );
        assert_eq!(sne(&mut dir, 0x0000_0200), 1);
        assert_eq!(sne(&mut dir, 0x0000_0150), 1, "late but after the wrap");
        // Four more wraps, in steps under 2^31.
        for k in 2..6u32 {
            assert_eq!(sne(&mut dir, 0x6000_0000), k - 1);
            assert_eq!(sne(&mut dir, 0xc000_0000), k - 1);
            assert_eq!(sne(&mut dir, 0x0000_0010), k);
        }
    }
}
