//! Verifying a capture: every packet that carries an AH (under a given SPI,
//! if one is), or every TCP segment that carries a TCP-MD5 option, has its
//! tag recomputed and compared in constant time; tags of a batch are
//! computed together (the multi-buffer HMAC-MD5 and MD5). The capture is
//! read chunk by chunk ([`crate::stream`]).

use std::io;

use linerate::mac::MacKey;
use subtle::ConstantTimeEq;

use crate::ah;
use crate::capture::{Item, Packet};
use crate::icv;
use crate::ip::Version;
use crate::keys::KeyTable;
use crate::mutable::{self, icv_input};
use crate::packet::locate;
use crate::problem::{Kind, Problem};
use crate::stream::CaptureReader;
use crate::tcp;
use crate::tcp_ao;
use crate::tcp_ao::TrafficKey;
use crate::tcp_ao_flows::{Flows, Unkeyed};
use crate::tcp_md5;
use linerate::lanes::many::md5_many_into;
use std::rc::Rc;

const BATCH: usize = 256;

/// An AH packet waiting for its ICV.
#[derive(Default)]
struct Check {
    index: usize,
    input: Vec<u8>,
    seq: u32,
    icv: [u8; 16],
    /// TCP-AO: the traffic key of the segment's connection direction.
    ao_key: Option<Rc<TrafficKey>>,
}

/// What a packet is, for the summary.
enum Verdict {
    /// Not protected the way asked: no AH (under the SPI), no TCP-MD5
    /// option.
    Unprotected,
    /// No TCP in it (TCP options only).
    NotTcp,
    /// A TCP segment whose MAC has no key (no line in the key table, or
    /// TCP-AO's ISNs missing): said once per connection direction.
    Unkeyed(Problem),
    BadIcv(String),
    Malformed(Problem),
    /// Its ICV input, sequence number and received ICV (into the slot).
    Check,
}

/// What verifying a capture came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Packets read (a record that could not be read counts, and ends the
    /// capture).
    pub packets: usize,
    pub verified: usize,
    pub bad: usize,
    /// Packets without the protection asked for: no AH (under the SPI),
    /// or TCP segments without a TCP-MD5 option.
    pub unprotected: usize,
    /// Packets without TCP, when a TCP option is checked.
    pub not_tcp: usize,
    /// TCP-AO segments of connections whose SYNs the capture lacks.
    pub no_isn: usize,
    /// TCP segments whose connection has no line in the key table.
    pub no_key: usize,
    pub malformed: usize,
}

/// What is checked, and with which keys.
pub enum Checking {
    /// Every AH, or those with this SPI, under the key.
    Ah { key: MacKey, spi: Option<u32> },
    /// Every TCP-MD5 option, under its connection's key.
    TcpMd5(Box<KeyTable>),
    /// Every TCP-AO option (with the configured KeyID, if one is), under
    /// the connections' traffic keys.
    TcpAo(Box<Flows>),
}

/// What a notice is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// An ICV that does not match (or an AH of the wrong length for it).
    BadIcv,
    /// A packet or record that could not be read as one.
    Malformed,
}

/// Classifies `frame`, filling `slot` for a packet to check.
fn classify(packet: &Packet<'_>, checking: &mut Checking, slot: &mut Check) -> Verdict {
    let at = match locate(packet) {
        Ok(Some(at)) => at,
        Ok(None) if !matches!(checking, Checking::Ah { .. }) => return Verdict::NotTcp,
        Ok(None) => return Verdict::Unprotected,
        Err(p) => return Verdict::Malformed(p),
    };
    let (alg, spi) = match checking {
        Checking::Ah { key, spi } => (key.algorithm(), *spi),
        Checking::TcpMd5(keys) => return classify_tcp(packet, &at, keys, slot),
        Checking::TcpAo(flows) => return check_ao(packet, &at, flows, slot),
    };
    let layout = at.layout;
    let ip = &packet.data[at.ip_at..at.ip_at + layout.len];
    let Some(ah_at) = layout.ah_at else {
        // What `sign` would call malformed is malformed here too.
        if layout.version == Version::V4
            && let Err(p) = mutable::check_v4_options(ip)
        {
            return Verdict::Malformed(p);
        }
        return Verdict::Unprotected;
    };
    if layout.fragment {
        return Verdict::Malformed(Problem::new(
            Kind::Fragment,
            "fragment: not verified (AH covers whole datagrams)",
        ));
    }
    let header = match ah::parse(&ip[ah_at..]) {
        Ok(h) => h,
        Err(p) => return Verdict::Malformed(p),
    };
    if spi.is_some_and(|s| s != header.spi) {
        return Verdict::Unprotected;
    }
    let want = ah::length(alg.tag_len(), layout.version);
    if header.len != want {
        return Verdict::BadIcv(format!(
            "bad ICV: AH of {} bytes, {} makes {want}",
            header.len,
            alg.name()
        ));
    }
    let icv_len = alg.tag_len();
    if let Err(p) = icv_input(
        ip,
        layout.version,
        layout.len,
        ah_at,
        icv_len,
        &mut slot.input,
    ) {
        return Verdict::Malformed(p);
    }
    slot.index = packet.index;
    slot.seq = header.seq;
    slot.icv = [0; 16];
    slot.icv[..alg.tag_len()].copy_from_slice(&header.icv[..alg.tag_len()]);
    Verdict::Check
}

/// Classifies a located packet for TCP-MD5, filling `slot` for a segment
/// with the option.
fn classify_tcp(
    packet: &Packet<'_>,
    at: &crate::packet::Located,
    keys: &KeyTable,
    slot: &mut Check,
) -> Verdict {
    let ip = &packet.data[at.ip_at..at.ip_at + at.layout.len];
    let found = match tcp_md5::find(ip, at) {
        Ok(Some(found)) => found,
        Ok(None) => return Verdict::NotTcp,
        Err(p) => return Verdict::Malformed(p),
    };
    let Some(digest_at) = found.digest_at else {
        return Verdict::Unprotected;
    };
    let Some(key) = keys.key_for(ip, at.layout.version, &found.segment) else {
        let connection = tcp::describe(ip, at.layout.version, &found.segment);
        return Verdict::Unkeyed(Problem::unkeyed(Kind::NoKey, &connection, UNVERIFIED));
    };
    tcp_md5::digest_input(ip, at.layout.version, &found.segment, &mut slot.input);
    slot.input.extend_from_slice(key);
    slot.index = packet.index;
    slot.seq = 0;
    slot.icv.copy_from_slice(&ip[digest_at..digest_at + 16]);
    Verdict::Check
}

/// Checks a located packet's TCP-AO option at once.
fn check_ao(
    packet: &Packet<'_>,
    at: &crate::packet::Located,
    flows: &mut Flows,
    slot: &mut Check,
) -> Verdict {
    let ip = &packet.data[at.ip_at..at.ip_at + at.layout.len];
    let seg = match tcp::locate(ip, &at.layout) {
        Ok(Some(seg)) => seg,
        Ok(None) => return Verdict::NotTcp,
        Err(p) => return Verdict::Malformed(p),
    };
    let option = match tcp_ao::find(ip, &seg) {
        Ok(Some(o)) => o,
        Ok(None) => return Verdict::Unprotected,
        Err(p) => return Verdict::Malformed(p),
    };
    if flows.config.key_id.is_some_and(|k| k != option.key_id) {
        return Verdict::Unprotected;
    }
    match flows.prepare(ip, at.layout.version, &seg, &option, &mut slot.input) {
        Ok(key) => {
            slot.index = packet.index;
            slot.seq = 0;
            slot.icv = [0; 16];
            slot.icv[..tcp_ao::MAC_LEN]
                .copy_from_slice(&ip[option.at + 4..option.at + tcp_ao::OPTION_LEN]);
            slot.ao_key = Some(key);
            Verdict::Check
        }
        Err(Unkeyed::NoKey(c)) => Verdict::Unkeyed(Problem::unkeyed(Kind::NoKey, &c, UNVERIFIED)),
        Err(Unkeyed::NoIsn(c)) => Verdict::Unkeyed(Problem::unkeyed(Kind::NoIsn, &c, UNVERIFIED)),
    }
}

/// What becomes of segments whose MAC has no key.
const UNVERIFIED: &str = "not verified";

/// Computes the batch's tags and compares them: AH's ICVs under the key,
/// TCP-MD5's digests (each input ends with its key), TCP-AO's MACs under
/// each segment's traffic key.
fn check_batch(
    checking: &mut Checking,
    batch: &mut [Check],
    counts: &mut Verified,
    note: &mut dyn FnMut(usize, &str, Finding),
) {
    let refs: Vec<&[u8]> = batch.iter().map(|c| c.input.as_slice()).collect();
    let mut tags = vec![[0u8; 16]; batch.len()];
    let (n, bad) = match checking {
        Checking::Ah { key, .. } => {
            let seqs: Vec<u32> = batch.iter().map(|c| c.seq).collect();
            icv::tags(key, &refs, &seqs, &mut tags);
            (key.algorithm().tag_len(), "bad ICV")
        }
        Checking::TcpMd5(_) => {
            md5_many_into(&refs, &mut tags);
            (16, "bad TCP-MD5 digest")
        }
        Checking::TcpAo(_) => {
            let keys: Vec<&TrafficKey> = batch
                .iter()
                .map(|c| c.ao_key.as_deref().expect("a TCP-AO check has its key"))
                .collect();
            tcp_ao::macs(&keys, &refs, &mut tags);
            (tcp_ao::MAC_LEN, "bad TCP-AO MAC")
        }
    };
    for (check, tag) in batch.iter_mut().zip(&tags) {
        check.ao_key = None;
        if bool::from(tag[..n].ct_eq(&check.icv[..n])) {
            counts.verified += 1;
        } else {
            counts.bad += 1;
            note(check.index, bad, Finding::BadIcv);
        }
    }
}

/// Checks every packet `reader` reads that `checking` names;
/// `note` hears of every bad tag and malformed packet (its index counted
/// from 1, and why). The counts, or an error if the capture cannot be
/// read.
pub fn verify(
    reader: &mut CaptureReader,
    mut checking: Checking,
    note: &mut dyn FnMut(usize, &str, Finding),
) -> io::Result<Verified> {
    let mut counts = Verified::default();
    let mut batch: Vec<Check> = (0..BATCH).map(|_| Check::default()).collect();
    let mut used = 0;
    let mut said_once = std::collections::HashSet::new();
    while let Some(records) = reader.next_chunk()? {
        for item in records {
            let packet = match item {
                Ok(Item::Packet(p)) => p,
                Ok(Item::Raw { .. }) => continue,
                Err(e) => {
                    counts.packets += 1;
                    counts.malformed += 1;
                    note(e.index, &e.message, Finding::Malformed);
                    break;
                }
            };
            counts.packets += 1;
            match classify(&packet, &mut checking, &mut batch[used]) {
                Verdict::Unprotected => counts.unprotected += 1,
                Verdict::NotTcp => counts.not_tcp += 1,
                Verdict::Unkeyed(problem) => {
                    if problem.kind == Kind::NoIsn {
                        counts.no_isn += 1;
                    } else {
                        counts.no_key += 1;
                    }
                    // Said once per direction of a connection.
                    if said_once.insert(problem.message.clone()) {
                        note(packet.index, &problem.message, Finding::Malformed);
                    }
                }
                Verdict::BadIcv(m) => {
                    counts.bad += 1;
                    note(packet.index, &m, Finding::BadIcv);
                }
                Verdict::Malformed(p) => {
                    counts.malformed += 1;
                    note(packet.index, &p.message, Finding::Malformed);
                }
                Verdict::Check => used += 1,
            }
            if used == BATCH {
                check_batch(&mut checking, &mut batch[..used], &mut counts, note);
                used = 0;
            }
        }
    }
    check_batch(&mut checking, &mut batch[..used], &mut counts, note);
    Ok(counts)
}
