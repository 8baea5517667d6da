//! Signing a capture: every whole, unfragmented IP packet gets an AH in
//! transport mode (RFC 4302), or every TCP segment a TCP-MD5 option (RFC
//! 2385, [`crate::tcp_md5`]); everything else is copied unchanged and
//! reported.
//!
//! The capture is read chunk by chunk ([`crate::stream`]) and every record
//! is written out at once, a signed packet's frame built directly in the
//! writer's buffer with its ICV zeroed; the ICVs are computed in batches
//! (the multi-buffer HMAC-MD5) and filled in before the buffer is written.

use std::io::{self, Write};

use linerate::MacAlgorithm;
use linerate::mac::MacKey;

use crate::ah;
use crate::capture::{Item, Packet};
use crate::icv;
use crate::ip::{self, AH};
use crate::keys::KeyTable;
use crate::mutable::icv_input;
use crate::packet::{Located, locate};
use crate::problem::{Kind, Problem, Tally};
use crate::stream::CaptureReader;
use crate::tcp_ao::{self, Placed, TrafficKey};
use crate::tcp_ao_flows::{Flows, Unkeyed};
use crate::tcp_md5::{self, Pending};
use crate::write::{CaptureWriter, FLUSH_AT};
use linerate::lanes::many::md5_many_into;
use std::rc::Rc;

/// Packets whose ICVs are computed together.
const BATCH: usize = 256;

/// A packet with its AH in place, ICV still zero.
#[derive(Default)]
pub struct Inserted {
    /// The whole frame, AH inserted.
    pub frame: Vec<u8>,
    pub ip_at: usize,
    /// The IP packet's new length.
    pub ip_len: usize,
    /// The AH's offset from the IP header, and its length.
    pub ah_at: usize,
    pub ah_len: usize,
    pub seq: u32,
    /// The ICV input: the IP packet with mutable fields and ICV zeroed.
    pub input: Vec<u8>,
}

impl Inserted {
    /// The IP packet (without link-layer padding).
    pub fn ip(&self) -> &[u8] {
        &self.frame[self.ip_at..self.ip_at + self.ip_len]
    }
}

/// Builds `frame` with an AH inserted, and its ICV input, into `out`
/// (reused), or says why the packet is not signed.
pub fn insert_ah(
    frame: &[u8],
    at: &Located,
    alg: MacAlgorithm,
    spi: u32,
    seq: u32,
    out: &mut Inserted,
) -> Result<(), Problem> {
    out.frame.clear();
    build(frame, at, alg, spi, seq, &mut out.frame, &mut out.input)?;
    let ah_len = ah::length(alg.tag_len(), at.layout.version);
    out.ip_at = at.ip_at;
    out.ip_len = at.layout.len + ah_len;
    out.ah_at = at.layout.insert_at;
    out.ah_len = ah_len;
    out.seq = seq;
    Ok(())
}

/// Appends `frame` with an AH inserted (ICV zero) to `dest`, and puts its
/// ICV input into `input`; the ICV's offset in `dest`. On an error, `dest`
/// may hold part of the frame.
fn build(
    frame: &[u8],
    at: &Located,
    alg: MacAlgorithm,
    spi: u32,
    seq: u32,
    dest: &mut Vec<u8>,
    input: &mut Vec<u8>,
) -> Result<usize, Problem> {
    let layout = &at.layout;
    if layout.fragment {
        return Err(Problem::new(Kind::Fragment, "fragment: not signed"));
    }
    if layout.ah_at.is_some() {
        return Err(Problem::new(Kind::AlreadyAh, "already carries an AH"));
    }
    let ah_len = ah::length(alg.tag_len(), layout.version);
    let insert = at.ip_at + layout.insert_at;
    let next_header = frame[at.ip_at + layout.next_header_at];
    let base = dest.len();
    dest.reserve(frame.len() + ah_len);
    dest.extend_from_slice(&frame[..insert]);
    ah::build(next_header, spi, seq, ah_len, dest);
    dest.extend_from_slice(&frame[insert..]);
    let signed = &mut dest[base..];
    signed[at.ip_at + layout.next_header_at] = AH;
    ip::grow(&mut signed[at.ip_at..], layout.version, ah_len)?;
    let ip_len = layout.len + ah_len;
    let ip = &signed[at.ip_at..at.ip_at + ip_len];
    icv_input(
        ip,
        layout.version,
        ip_len,
        layout.insert_at,
        alg.tag_len(),
        input,
    )?;
    Ok(insert + base + ah::FIXED)
}

/// Where a computed tag goes in the writer's buffer.
enum Slot {
    /// An AH's ICV, at this offset.
    Ah(usize),
    /// A TCP-MD5 digest, and the checksum that covers it.
    TcpMd5(Pending),
    /// A TCP-AO MAC, where it goes, and the traffic key it is under.
    TcpAo(Placed, Rc<TrafficKey>),
}

/// The signed packets of the writer's buffer whose tags are still zero.
struct Batch {
    /// The AH's MAC; `None` for the TCP options, whose keys are per
    /// connection (TCP-MD5's inputs end with theirs and are plain MD5).
    keyed: Option<MacKey>,
    /// Tag inputs, reused; the first `seqs.len()` are this batch's.
    inputs: Vec<Vec<u8>>,
    /// AH sequence numbers (UMAC's nonces; zero for TCP-MD5).
    seqs: Vec<u32>,
    slots: Vec<Slot>,
    tags: Vec<[u8; 16]>,
}

impl Batch {
    /// Computes the batch's tags together and fills them in.
    fn seal(&mut self, buf: &mut [u8]) {
        let n = self.seqs.len();
        let refs: Vec<&[u8]> = self.inputs[..n].iter().map(Vec::as_slice).collect();
        self.tags.resize(n, [0; 16]);
        let ao_keys: Vec<&TrafficKey> = self
            .slots
            .iter()
            .filter_map(|slot| match slot {
                Slot::TcpAo(_, key) => Some(&**key),
                _ => None,
            })
            .collect();
        match &mut self.keyed {
            Some(keyed) => icv::tags(keyed, &refs, &self.seqs, &mut self.tags),
            None if !ao_keys.is_empty() => tcp_ao::macs(&ao_keys, &refs, &mut self.tags),
            None => md5_many_into(&refs, &mut self.tags),
        }
        let len = self.keyed.as_ref().map_or(16, |k| k.algorithm().tag_len());
        for (slot, tag) in self.slots.iter().zip(&self.tags) {
            match slot {
                Slot::Ah(at) => buf[*at..at + len].copy_from_slice(&tag[..len]),
                Slot::TcpMd5(pending) => tcp_md5::seal(buf, pending, tag),
                Slot::TcpAo(placed, _) => {
                    let mac = tag[..tcp_ao::MAC_LEN].try_into().expect("12 bytes");
                    tcp_ao::seal(buf, placed, &mac);
                }
            }
        }
        self.seqs.clear();
        self.slots.clear();
    }
}

/// How a capture is signed, and with which keys.
pub enum Signing {
    /// An AH in every whole IP packet.
    Ah {
        /// The ICV's algorithm and key.
        key: MacKey,
        /// The Security Parameters Index of every AH.
        spi: u32,
        /// The first packet's sequence number.
        seq_start: u32,
    },
    /// A TCP-MD5 option in every TCP segment, under its connection's key.
    TcpMd5(Box<KeyTable>),
    /// A TCP-AO option in every TCP segment of a connection whose SYNs are
    /// in the capture, its MAC under the connection's traffic keys.
    TcpAo(Box<Flows>),
}

/// What signing a capture came to.
#[derive(Debug, Default)]
pub struct Signed {
    /// Packets read (a record that could not be read counts, and ends the
    /// capture).
    pub packets: usize,
    pub signed: usize,
    /// Packets copied unchanged, by why.
    pub skipped: Tally,
}

/// Why signing stopped before the end of the capture.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// The input could not be read.
    #[error("{0}")]
    Read(#[source] io::Error),
    /// The output could not be written.
    #[error("{0}")]
    Write(#[source] io::Error),
}

/// Signs every packet `reader` reads as `signing` says into `writer`;
/// `note` hears of every packet copied unchanged (its index counted from
/// 1, and why). The writer is left holding the whole output, to be
/// finished by the caller.
pub fn sign<W: Write>(
    reader: &mut CaptureReader,
    writer: &mut CaptureWriter<W>,
    mut signing: Signing,
    note: &mut dyn FnMut(usize, &str),
) -> Result<Signed, SignError> {
    let keyed = match &signing {
        Signing::Ah { key, .. } => Some(key.clone()),
        Signing::TcpMd5(_) | Signing::TcpAo(_) => None,
    };
    let mut batch = Batch {
        keyed,
        inputs: (0..BATCH).map(|_| Vec::new()).collect(),
        seqs: Vec::with_capacity(BATCH),
        slots: Vec::with_capacity(BATCH),
        tags: Vec::with_capacity(BATCH),
    };
    let mut done = Signed::default();
    let mut said_once = std::collections::HashSet::new();
    let mut next_seq = match &signing {
        Signing::Ah { seq_start, .. } => u64::from(*seq_start),
        Signing::TcpMd5(_) | Signing::TcpAo(_) => 0,
    };
    while let Some(records) = reader.next_chunk().map_err(SignError::Read)? {
        for item in records {
            let packet = match item {
                Ok(Item::Packet(packet)) => packet,
                Ok(Item::Raw {
                    bytes,
                    kind,
                    big_endian,
                }) => {
                    writer.raw(bytes, kind, big_endian);
                    continue;
                }
                Err(e) => {
                    note(e.index, &e.message);
                    done.packets += 1;
                    done.skipped.add(Kind::Capture);
                    break;
                }
            };
            done.packets += 1;
            let outcome = match (locate(&packet), &mut signing) {
                (Ok(Some(at)), Signing::TcpMd5(keys)) => {
                    tcp_into(writer, &mut batch, keys, &packet, &at).map_err(SignError::Write)?
                }
                (Ok(Some(at)), Signing::TcpAo(flows)) => {
                    ao_into(writer, &mut batch, flows, &packet, &at).map_err(SignError::Write)?
                }
                (Ok(Some(at)), Signing::Ah { spi, .. }) => match u32::try_from(next_seq) {
                    Ok(seq) => sign_into(writer, &mut batch, &packet, &at, *spi, seq)
                        .map_err(SignError::Write)?,
                    Err(_) => Err(Problem::unsupported(
                        "sequence numbers exhausted: a new SA (another SPI or key) is needed",
                    )),
                },
                (Ok(None), _) => Err(Problem::new(Kind::NotIp, "not IP: copied unchanged")),
                (Err(p), _) => Err(p),
            };
            let copied = match outcome {
                Ok(()) => {
                    done.signed += 1;
                    next_seq += 1;
                    Ok(())
                }
                Err(problem) => {
                    // Missing keys and SYNs are said once per direction
                    // of a connection.
                    if !problem.once_per_connection() || said_once.insert(problem.message.clone()) {
                        note(packet.index, &problem.message);
                    }
                    done.skipped.add(problem.kind);
                    writer.packet(&packet, packet.data, packet.orig_len)
                }
            };
            let full = batch.seqs.len() == BATCH || writer.buf.len() >= FLUSH_AT;
            copied
                .and_then(|()| {
                    if full {
                        batch.seal(&mut writer.buf);
                        writer.drain()
                    } else {
                        Ok(())
                    }
                })
                .map_err(SignError::Write)?;
        }
    }
    batch.seal(&mut writer.buf);
    Ok(done)
}

/// Writes `packet`'s record with an AH inserted, its ICV left to the
/// batch; on a problem, nothing is written. An error if the record
/// cannot be written at all (too long for its length field).
fn sign_into<W: Write>(
    writer: &mut CaptureWriter<W>,
    batch: &mut Batch,
    packet: &Packet<'_>,
    at: &Located,
    spi: u32,
    seq: u32,
) -> io::Result<Result<(), Problem>> {
    let alg = batch
        .keyed
        .as_ref()
        .expect("AH signing has its key")
        .algorithm();
    let ah_len = ah::length(alg.tag_len(), at.layout.version);
    let orig_len = packet.orig_len.saturating_add(ah_len as u32);
    let open = writer.begin(packet, packet.data.len() + ah_len, orig_len)?;
    let input = &mut batch.inputs[batch.seqs.len()];
    match build(packet.data, at, alg, spi, seq, &mut writer.buf, input) {
        Ok(icv_at) => {
            writer.end(packet, open);
            batch.seqs.push(seq);
            batch.slots.push(Slot::Ah(icv_at));
            Ok(Ok(()))
        }
        Err(problem) => {
            writer.abandon(open);
            Ok(Err(problem))
        }
    }
}

/// Writes `packet`'s record with a TCP-MD5 option (inserted, or its
/// digest overwritten), the digest left to the batch; on a problem,
/// nothing is written.
fn tcp_into<W: Write>(
    writer: &mut CaptureWriter<W>,
    batch: &mut Batch,
    keys: &KeyTable,
    packet: &Packet<'_>,
    at: &Located,
) -> io::Result<Result<(), Problem>> {
    let grow = match tcp_md5::growth(packet.data, at) {
        Ok(grow) => grow,
        Err(problem) => return Ok(Err(problem)),
    };
    let key = match tcp_md5::key_for(packet.data, at, keys) {
        Some(Ok(key)) => key,
        Some(Err(connection)) => {
            return Ok(Err(Problem::unkeyed(Kind::NoKey, &connection, UNSIGNED)));
        }
        None => return Ok(Err(Problem::new(Kind::NotTcp, "not TCP: copied unchanged"))),
    };
    let orig_len = packet.orig_len.saturating_add(grow as u32);
    let open = writer.begin(packet, packet.data.len() + grow, orig_len)?;
    let input = &mut batch.inputs[batch.seqs.len()];
    match tcp_md5::build(packet.data, at, &mut writer.buf, input) {
        Ok(pending) => {
            input.extend_from_slice(key);
            writer.end(packet, open);
            batch.seqs.push(0);
            batch.slots.push(Slot::TcpMd5(pending));
            Ok(Ok(()))
        }
        Err(problem) => {
            writer.abandon(open);
            Ok(Err(problem))
        }
    }
}

/// Writes `packet`'s record with a TCP-AO option, its MAC left to the
/// batch (each segment under its connection's traffic key); on a
/// problem, nothing is written.
fn ao_into<W: Write>(
    writer: &mut CaptureWriter<W>,
    batch: &mut Batch,
    flows: &mut Flows,
    packet: &Packet<'_>,
    at: &Located,
) -> io::Result<Result<(), Problem>> {
    let grow = match tcp_ao::growth(packet.data, at) {
        Ok(grow) => grow,
        Err(problem) => return Ok(Err(problem)),
    };
    let key_id = flows.config.key_id.unwrap_or(0);
    let rnext = flows.config.rnext_key_id.unwrap_or(key_id);
    let orig_len = packet.orig_len.saturating_add(grow as u32);
    let open = writer.begin(packet, packet.data.len() + grow, orig_len)?;
    let placed = match tcp_ao::build(packet.data, at, key_id, rnext, &mut writer.buf) {
        Ok(placed) => placed,
        Err(problem) => {
            writer.abandon(open);
            return Ok(Err(problem));
        }
    };
    let ip = placed.ip(&writer.buf);
    let input = &mut batch.inputs[batch.seqs.len()];
    match flows.prepare(ip, placed.version, &placed.segment, &placed.option, input) {
        Ok(key) => {
            writer.end(packet, open);
            batch.seqs.push(0);
            batch.slots.push(Slot::TcpAo(placed, key));
            Ok(Ok(()))
        }
        Err(unkeyed) => {
            writer.abandon(open);
            Ok(Err(match unkeyed {
                Unkeyed::NoKey(c) => Problem::unkeyed(Kind::NoKey, &c, UNSIGNED),
                Unkeyed::NoIsn(c) => Problem::unkeyed(Kind::NoIsn, &c, UNSIGNED),
            }))
        }
    }
}

/// What becomes of segments that cannot be signed.
const UNSIGNED: &str = "copied unsigned";
