//! `linerate packets verify`: every packet of a capture that carries an AH
//! (under `--spi`, if given) has its ICV recomputed and compared in constant
//! time; ICVs of a batch are computed together (the multi-buffer
//! HMAC-MD5). The capture is read chunk by chunk ([`super::stream`]).

use subtle::ConstantTimeEq;

use super::ah;
use super::capture::Item;
use linerate::MacAlgorithm;
use linerate::mac::MacKey;

use super::icv;
use super::mutable::icv_input;
use super::packet::locate;
use super::problem::Problem;
use super::report::Reporter;
use super::stream::CaptureReader;
use super::{EXIT_FAILURE, EXIT_SETUP, EXIT_SUCCESS};

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

#[derive(Default)]
struct Counts {
    packets: usize,
    verified: usize,
    bad: usize,
    not_ah: usize,
    malformed: usize,
}

/// Classifies `frame`, filling `slot` for an AH packet to check.
fn classify(
    packet: &super::capture::Packet<'_>,
    alg: MacAlgorithm,
    spi: Option<u32>,
    slot: &mut Check,
) -> Verdict {
    let at = match locate(packet) {
        Ok(Some(at)) => at,
        Ok(None) => return Verdict::NotAh,
        Err(p) => return Verdict::Malformed(p),
    };
    let layout = at.layout;
    let Some(ah_at) = layout.ah_at else {
        return Verdict::NotAh;
    };
    if layout.fragment {
        return Verdict::Malformed(Problem::new(
            super::problem::Kind::Fragment,
            "fragment: not verified (AH covers whole datagrams)",
        ));
    }
    let ip = &packet.data[at.ip_at..at.ip_at + layout.len];
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
    counts: &mut Counts,
    reporter: &Reporter,
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
            reporter.packet(check.index, "bad ICV");
        }
    }
}

/// Runs `verify`; the exit status.
pub fn run(args: super::args::Verify) -> u8 {
    let reporter = Reporter::new(&args.input, args.verbose);
    let always = Reporter::new(&args.input, true);
    let mut keyed = match super::keyed(&args.keying) {
        Ok(k) => k,
        Err(status) => return status,
    };
    let alg = args.keying.alg;
    let reader = match super::open_capture(&args.input, &always) {
        Ok(r) => r,
        Err(status) => return status,
    };
    let counts = match check_capture(reader, &mut keyed, alg, args.spi, &reporter, &always) {
        Ok(counts) => counts,
        Err(e) => {
            let text = crate::sum::console::error_text(&e);
            always.error(&String::from_utf8_lossy(&text));
            return EXIT_SETUP;
        }
    };
    reporter.summary(&format!(
        "{} packets: {} verified, {} bad ICV, {} not AH, {} malformed",
        counts.packets, counts.verified, counts.bad, counts.not_ah, counts.malformed
    ));
    if counts.bad == 0 && counts.malformed == 0 {
        EXIT_SUCCESS
    } else {
        EXIT_FAILURE
    }
}

/// Checks every AH packet of the capture `reader` reads; the counts, or an
/// error if the file cannot be read.
fn check_capture(
    mut reader: CaptureReader,
    keyed: &mut MacKey,
    alg: MacAlgorithm,
    spi: Option<u32>,
    reporter: &Reporter,
    always: &Reporter,
) -> std::io::Result<Counts> {
    let mut counts = Counts::default();
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
                    always.packet(e.index, &e.message);
                    break;
                }
            };
            counts.packets += 1;
            match classify(&packet, alg, spi, &mut batch[used]) {
                Verdict::NotAh => counts.not_ah += 1,
                Verdict::BadIcv(m) => {
                    counts.bad += 1;
                    reporter.packet(packet.index, &m);
                }
                Verdict::Malformed(p) => {
                    counts.malformed += 1;
                    always.packet(packet.index, &p.message);
                }
                Verdict::Check => used += 1,
            }
            if used == BATCH {
                check_batch(keyed, alg, &batch[..used], &mut counts, reporter);
                used = 0;
            }
        }
    }
    check_batch(keyed, alg, &batch[..used], &mut counts, reporter);
    Ok(counts)
}
