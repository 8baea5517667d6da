//! `linerate packets sign`: every whole, unfragmented IP packet of a capture
//! gets an AH in transport mode (RFC 4302); everything else is copied
//! unchanged and reported.
//!
//! Signed packets are collected in batches so that their ICVs are computed
//! together (the multi-buffer HMAC-MD5); records are written in capture
//! order once their batch is done.

use std::path::Path;

use super::ah;
use super::capture::{Capture, Item, Packet};
use super::icv::{Alg, Keyed};
use super::ip::{self, AH};
use super::mutable::icv_input;
use super::packet::{Located, locate};
use super::problem::{Kind, Problem, Tally};
use super::report::Reporter;
use super::write::CaptureWriter;
use super::{EXIT_FAILURE, EXIT_SETUP, EXIT_SUCCESS};

/// Packets whose ICVs are computed together.
const BATCH: usize = 256;

/// A packet with its AH in place, ICV still zero.
#[derive(Default)]
pub struct Signed {
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

impl Signed {
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
    alg: Alg,
    spi: u32,
    seq: u32,
    out: &mut Signed,
) -> Result<(), Problem> {
    let layout = &at.layout;
    if layout.fragment {
        return Err(Problem::new(Kind::Fragment, "fragment: not signed"));
    }
    if layout.ah_at.is_some() {
        return Err(Problem::new(Kind::AlreadyAh, "already carries an AH"));
    }
    let ah_len = ah::length(alg.icv_len(), layout.version);
    let insert = at.ip_at + layout.insert_at;
    let next_header = frame[at.ip_at + layout.next_header_at];
    out.frame.clear();
    out.frame.reserve(frame.len() + ah_len);
    out.frame.extend_from_slice(&frame[..insert]);
    ah::build(next_header, spi, seq, ah_len, &mut out.frame);
    out.frame.extend_from_slice(&frame[insert..]);
    out.frame[at.ip_at + layout.next_header_at] = AH;
    ip::grow(&mut out.frame[at.ip_at..], layout.version, ah_len)?;
    out.ip_at = at.ip_at;
    out.ip_len = layout.len + ah_len;
    out.ah_at = layout.insert_at;
    out.ah_len = ah_len;
    out.seq = seq;
    let ip = &out.frame[out.ip_at..out.ip_at + out.ip_len];
    let icv_len = alg.icv_len();
    icv_input(
        ip,
        layout.version,
        out.ip_len,
        out.ah_at,
        icv_len,
        &mut out.input,
    )
}

/// Computes the ICVs of `batch` together and writes them into the frames.
pub fn seal(keyed: &mut Keyed, alg: Alg, batch: &mut [Signed]) {
    let refs: Vec<&[u8]> = batch.iter().map(|s| s.input.as_slice()).collect();
    let seqs: Vec<u32> = batch.iter().map(|s| s.seq).collect();
    let mut tags = vec![[0u8; 16]; batch.len()];
    keyed.tags(&refs, &seqs, &mut tags);
    let n = alg.icv_len();
    for (s, tag) in batch.iter_mut().zip(&tags) {
        let at = s.ip_at + s.ah_at + ah::FIXED;
        s.frame[at..at + n].copy_from_slice(&tag[..n]);
    }
}

/// What one record becomes.
enum Entry<'a> {
    Raw(Item<'a>),
    Copy(Packet<'a>),
    /// Index into the batch's signed packets.
    Signed(Packet<'a>, usize),
}

struct Run<'a> {
    writer: CaptureWriter,
    keyed: Keyed,
    alg: Alg,
    entries: Vec<Entry<'a>>,
    signed: Vec<Signed>,
    used: usize,
}

impl<'a> Run<'a> {
    fn flush(&mut self) -> std::io::Result<()> {
        seal(&mut self.keyed, self.alg, &mut self.signed[..self.used]);
        for entry in self.entries.drain(..) {
            match entry {
                Entry::Raw(Item::Raw {
                    bytes,
                    kind,
                    big_endian,
                }) => self.writer.raw(bytes, kind, big_endian)?,
                Entry::Raw(Item::Packet(p)) | Entry::Copy(p) => {
                    self.writer.packet(&p, p.data, p.orig_len)?;
                }
                Entry::Signed(p, i) => {
                    let s = &self.signed[i];
                    let added = (s.frame.len() - p.data.len()) as u32;
                    self.writer
                        .packet(&p, &s.frame, p.orig_len.saturating_add(added))?;
                }
            }
        }
        self.used = 0;
        Ok(())
    }
}

/// Runs `sign`; the exit status.
pub fn run(args: super::args::Sign) -> u8 {
    let reporter = Reporter::new(&args.input, true);
    let keyed = match super::keyed(&args.keying) {
        Ok(k) => k,
        Err(status) => return status,
    };
    super::with_capture(&args.input, &reporter, |capture| {
        sign_capture(capture, &args, keyed, &reporter)
    })
}

/// Signs `capture` into `args.output`.
fn sign_capture(
    capture: Capture<'_>,
    args: &super::args::Sign,
    keyed: Keyed,
    reporter: &Reporter,
) -> u8 {
    let alg = args.keying.alg;
    let out_path = Path::new(&args.output);
    let out_reporter = Reporter::new(args.output.as_os_str(), true);
    let writer = match CaptureWriter::create(out_path) {
        Ok(w) => w,
        Err(e) => {
            out_reporter.error(&format!("cannot create: {}", text(&e)));
            return EXIT_SETUP;
        }
    };
    let mut run = Run {
        writer,
        keyed,
        alg,
        entries: Vec::with_capacity(2 * BATCH),
        signed: (0..BATCH).map(|_| Signed::default()).collect(),
        used: 0,
    };
    let mut packets = 0usize;
    let mut signed = 0usize;
    let mut skipped = Tally::default();
    let mut next_seq = u64::from(args.seq_start);
    for item in capture {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                reporter.packet(e.index, &e.message);
                packets += 1;
                skipped.add(Kind::Capture);
                break;
            }
        };
        let Item::Packet(packet) = item else {
            run.entries.push(Entry::Raw(item));
            continue;
        };
        packets += 1;
        let outcome = match locate(&packet) {
            Ok(Some(at)) => match u32::try_from(next_seq) {
                Ok(seq) => {
                    let slot = &mut run.signed[run.used];
                    insert_ah(packet.data, &at, alg, args.spi, seq, slot)
                }
                Err(_) => Err(Problem::unsupported(
                    "sequence numbers exhausted: a new SA (another SPI or key) is needed",
                )),
            },
            Ok(None) => Err(Problem::new(Kind::NotIp, "not IP: copied unchanged")),
            Err(p) => Err(p),
        };
        match outcome {
            Ok(()) => {
                run.entries.push(Entry::Signed(packet, run.used));
                run.used += 1;
                signed += 1;
                next_seq += 1;
            }
            Err(problem) => {
                reporter.packet(packet.index, &problem.message);
                skipped.add(problem.kind);
                run.entries.push(Entry::Copy(packet));
            }
        }
        let full = run.used == BATCH || run.entries.len() >= 4 * BATCH;
        if let Err(e) = if full { run.flush() } else { Ok(()) } {
            out_reporter.error(&format!("write error: {}", text(&e)));
            return EXIT_FAILURE;
        }
    }
    let written = run.flush().and_then(|()| run.writer.commit(out_path));
    if let Err(e) = written {
        out_reporter.error(&format!("write error: {}", text(&e)));
        return EXIT_FAILURE;
    }
    let mut line = format!(
        "{packets} packets: {signed} signed, {} skipped",
        skipped.total()
    );
    if skipped.total() > 0 {
        line.push_str(&format!(" ({})", skipped.describe()));
    }
    reporter.summary(&line);
    if skipped.total() == 0 {
        EXIT_SUCCESS
    } else {
        EXIT_FAILURE
    }
}

fn text(e: &std::io::Error) -> String {
    String::from_utf8_lossy(&crate::sum::console::error_text(e)).into_owned()
}
