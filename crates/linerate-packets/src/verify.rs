//! Verifying a capture: every packet that carries an AH (under a given SPI,
//! if one is) has its ICV recomputed and compared in constant time; ICVs of
//! a batch are computed together (the multi-buffer HMAC-MD5). The capture
//! is read chunk by chunk ([`crate::stream`]).

use std::io;

use linerate::MacAlgorithm;
use linerate::mac::MacKey;
use subtle::ConstantTimeEq;

use crate::ah;
use crate::capture::{Item, Packet};
use crate::icv;
use crate::ip::Version;
use crate::mutable::{self, icv_input};
use crate::packet::locate;
use crate::problem::{Kind, Problem};
use crate::stream::CaptureReader;

const BATCH: usize = 256;

/// An AH packet waiting for its ICV.
#[derive(Default)]
struct Check {
    index: usize,
    input: Vec<u8>,
    seq: u32,
    icv: [u8; 16],
}

/// What a packet is, for the summary.
enum Verdict {
    NotAh,
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
    pub not_ah: usize,
    pub malformed: usize,
}

/// What a notice is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// An ICV that does not match (or an AH of the wrong length for it).
    BadIcv,
    /// A packet or record that could not be read as one.
    Malformed,
}

/// Classifies `frame`, filling `slot` for an AH packet to check.
fn classify(packet: &Packet<'_>, alg: MacAlgorithm, spi: Option<u32>, slot: &mut Check) -> Verdict {
    let at = match locate(packet) {
        Ok(Some(at)) => at,
        Ok(None) => return Verdict::NotAh,
        Err(p) => return Verdict::Malformed(p),
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
        return Verdict::NotAh;
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
        return Verdict::NotAh;
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

/// Computes the batch's ICVs and compares them.
fn check_batch(
    keyed: &mut MacKey,
    alg: MacAlgorithm,
    batch: &[Check],
    counts: &mut Verified,
    note: &mut dyn FnMut(usize, &str, Finding),
) {
    let refs: Vec<&[u8]> = batch.iter().map(|c| c.input.as_slice()).collect();
    let seqs: Vec<u32> = batch.iter().map(|c| c.seq).collect();
    let mut tags = vec![[0u8; 16]; batch.len()];
    icv::tags(keyed, &refs, &seqs, &mut tags);
    let n = alg.tag_len();
    for (check, tag) in batch.iter().zip(&tags) {
        if bool::from(tag[..n].ct_eq(&check.icv[..n])) {
            counts.verified += 1;
        } else {
            counts.bad += 1;
            note(check.index, "bad ICV", Finding::BadIcv);
        }
    }
}

/// Checks every AH packet `reader` reads (only those under `spi`, if
/// given) with `keyed`; `note` hears of every bad ICV and malformed packet
/// (its index counted from 1, and why). The counts, or an error if the
/// capture cannot be read.
pub fn verify(
    reader: &mut CaptureReader,
    keyed: &mut MacKey,
    spi: Option<u32>,
    note: &mut dyn FnMut(usize, &str, Finding),
) -> io::Result<Verified> {
    let alg = keyed.algorithm();
    let mut counts = Verified::default();
    let mut batch: Vec<Check> = (0..BATCH).map(|_| Check::default()).collect();
    let mut used = 0;
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
            match classify(&packet, alg, spi, &mut batch[used]) {
                Verdict::NotAh => counts.not_ah += 1,
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
                check_batch(keyed, alg, &batch[..used], &mut counts, note);
                used = 0;
            }
        }
    }
    check_batch(keyed, alg, &batch[..used], &mut counts, note);
    Ok(counts)
}
