//! Per-packet MAC cost with the key set up once and reused (OpenSSH's 2007
//! change: keep the MAC context) against setting it up again for every
//! packet, at packet sizes from 64 to 1500 bytes; and the 2007 figures
//! beside today's.

use crate::blocks::Blocks;
use crate::cells::{Context, Rate};
use crate::seeds::{self, OPENSSH_UMAC_OVER_HMAC_MD5_PERCENT, OPENSSH_UMAC_OVER_HMAC_SHA1_PERCENT};
use crate::table::{Cell, Table, Unit, Value};
use crate::timing::Job;
use linerate::mac::hmac::{Compression, Md5Compression, RawHmacKey, Sha1Compression};
use linerate::mac::umac::{TagBits, Umac};
use std::hint::black_box;

/// Packet sizes: a minimum Ethernet frame's worth, two middling, an MTU.
pub const PACKET_SIZES: [u64; 4] = [64, 256, 512, 1500];

/// The MACs: OpenSSH's three of 2007 and its later umac-128.
const MACS: [&str; 4] = ["hmac-md5", "hmac-sha1", "umac-64", "umac-128"];

/// Cells this table measures.
pub fn cell_count() -> u64 {
    (MACS.len() * PACKET_SIZES.len() * 2) as u64
}

/// A job that MACs one `bytes`-byte packet, keyed once (`rekey` false) or
/// keyed afresh for every packet.
pub(crate) fn job(mac: &str, bytes: usize, rekey: bool) -> Result<Job, String> {
    let packet = Blocks::new(bytes, 1, None);
    let key: [u8; 16] = *b"openssh-umac-key";
    Ok(match mac {
        "hmac-md5" => hmac_job::<Md5Compression>(key, packet, rekey),
        "hmac-sha1" => hmac_job::<Sha1Compression>(key, packet, rekey),
        "umac-64" => umac_job(key, packet, TagBits::B64, rekey),
        "umac-128" => umac_job(key, packet, TagBits::B128, rekey),
        _ => return Err(format!("unknown MAC {mac}")),
    })
}

/// HMAC of one packet, keyed once or for every packet.
pub fn hmac_job<C>(key: [u8; 16], mut packets: Blocks, rekey: bool) -> Job
where
    C: Compression + Send + 'static,
    C::State: Send,
{
    let keyed = RawHmacKey::<C>::new(&key);
    Box::new(move || {
        let packet = packets.next(1);
        let tag = if rekey {
            RawHmacKey::<C>::new(black_box(&key)).tag(black_box(packet))
        } else {
            keyed.tag(black_box(packet))
        };
        black_box(tag);
    })
}

/// UMAC as OpenSSH tags a packet (the sequence number as the nonce).
fn umac_job(key: [u8; 16], mut packet: Blocks, bits: TagBits, rekey: bool) -> Job {
    let mut keyed = Umac::new(&key, bits);
    let mut seq: u64 = 0;
    Box::new(move || {
        seq = seq.wrapping_add(1);
        if rekey {
            keyed = Umac::new(black_box(&key), bits);
        }
        black_box(keyed.tag_openssh(seq, black_box(packet.next(1))));
    })
}

/// Measures every MAC at every packet size, reused and re-keyed.
pub fn measure(ctx: &Context<'_>) -> Table {
    let mut table = Table::new(
        "per_packet_mac",
        "Per-packet MAC cost: key set up once and reused, or again for every packet",
        &[
            "mac @ bytes",
            "reused ns/packet",
            "re-keyed ns/packet",
            "re-keying costs",
        ],
    );
    for mac in MACS {
        for bytes in PACKET_SIZES {
            let size = bytes as usize;
            let time = |rekey: bool| {
                let what = if rekey { "re-keyed" } else { "reused" };
                ctx.cell(
                    &format!("{mac} {bytes} bytes {what}"),
                    1,
                    &|| job(mac, size, rekey),
                    Rate::Nanoseconds,
                )
            };
            let reused = time(false);
            let rekeyed = time(true);
            let extra = match (reused.number(), rekeyed.number()) {
                (Some(r), Some(k)) if r > 0.0 => Value::Derived((k / r - 1.0) * 100.0),
                _ => Value::NotAvailable("needs both times".into()),
            };
            let cell = |key, unit, value| Cell::new(mac, key, unit, value).bytes(bytes);
            table.row(
                format!("{mac} @ {bytes}"),
                vec![
                    cell("ns_per_packet", Unit::Nanoseconds, reused),
                    cell("rekeyed_ns_per_packet", Unit::Nanoseconds, rekeyed),
                    cell("rekey_extra_percent", Unit::Percent, extra),
                ],
            );
        }
    }
    table.note(
        "UMAC packets are tagged as OpenSSH does (the sequence number as the nonce); \
         re-keyed UMAC runs the whole key derivation (AES) for every packet.",
    );
    table.seeds.push(&seeds::OPENSSH2007);
    table
}

/// OpenSSH's 2007 findings beside today's per-packet figures at 1500 bytes.
pub fn then_and_now(per_packet: &Table) -> Table {
    let mut table = Table::new(
        "macs_then_and_now",
        "Then and now: OpenSSH 2007 (bulk transfers) and this machine (one 1500-byte packet)",
        &["comparison", "2007 (quoted)", "now (this run)"],
    );
    let ns = |mac: &str| {
        per_packet
            .find(mac, Some(1500), None)
            .and_then(|c| c.value.number())
    };
    let rekey_ns = per_packet
        .cells()
        .find(|c| {
            c.algorithm == "hmac-md5" && c.bytes == Some(1500) && c.key == "rekeyed_ns_per_packet"
        })
        .and_then(|c| c.value.number());
    let faster = |slow: Option<f64>, fast: Option<f64>| match (slow, fast) {
        (Some(s), Some(f)) if f > 0.0 => Value::Derived((s / f - 1.0) * 100.0),
        _ => Value::NotAvailable("not measured in this run".into()),
    };
    let rows = [
        (
            "hmac-md5: reusing the context",
            "hmac-md5",
            Value::Text("+12 to +16% (bulk transfer)".into()),
            faster(rekey_ns, ns("hmac-md5")),
        ),
        (
            "umac-64 over hmac-md5",
            "umac-64",
            Value::Quoted(OPENSSH_UMAC_OVER_HMAC_MD5_PERCENT),
            faster(ns("hmac-md5"), ns("umac-64")),
        ),
        (
            "umac-64 over hmac-sha1",
            "umac-64",
            Value::Quoted(OPENSSH_UMAC_OVER_HMAC_SHA1_PERCENT),
            faster(ns("hmac-sha1"), ns("umac-64")),
        ),
    ];
    for (label, algorithm, then, now) in rows {
        table.row(
            label,
            vec![
                Cell::new(algorithm, "then_faster_percent", Unit::Percent, then),
                Cell::new(algorithm, "faster_percent", Unit::Percent, now).bytes(1500),
            ],
        );
    }
    table.note(
        "2007: whole bulk transfers to localhost with arcfour256 (cipher, MAC, copies), quoted; \
         now: the MAC alone on one 1500-byte packet, so today's differences are larger.",
    );
    table.seeds.push(&seeds::OPENSSH2007);
    table
}
