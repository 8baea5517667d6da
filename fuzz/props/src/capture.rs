//! Captures (pcap, pcapng blocks) as `packets sign`/`verify` read them.
//!
//! Properties: read record by record with only the bytes
//! `Parser::needed` asks for (as `stream` reads a file chunk by chunk),
//! the capture yields the same items as read whole; items and packet bytes
//! are bounded by the input; and the records read, written back by
//! `CaptureWriter`, read again as the same packets, with no error.

use linerate_packets::capture::{Capture, Item, Packet, Parser};
use linerate_packets::write::CaptureWriter;

pub fn capture(data: &[u8]) {
    let Ok(whole) = Capture::open(data) else {
        return;
    };
    let items: Vec<_> = whole.collect();
    assert!(
        items.len() <= data.len() / 8 + 2,
        "{} items from {} bytes",
        items.len(),
        data.len()
    );
    let packet_bytes: usize = items
        .iter()
        .filter_map(|i| match i {
            Ok(Item::Packet(p)) => Some(p.data.len()),
            _ => None,
        })
        .sum();
    assert!(packet_bytes <= data.len());
    assert!(
        items.iter().filter(|i| i.is_err()).count() <= 1,
        "reading goes on after an error"
    );

    assert_eq!(
        format!("{:?}", chunked(data)),
        format!("{items:?}"),
        "chunked and whole differ"
    );

    let mut writer = CaptureWriter::new(Vec::new());
    let mut packets = Vec::new();
    for item in items.iter().map_while(|i| i.as_ref().ok()) {
        match item {
            Item::Raw {
                bytes,
                kind,
                big_endian,
            } => writer.raw(bytes, *kind, *big_endian),
            Item::Packet(p) => {
                writer
                    .packet(p, p.data, p.orig_len)
                    .expect("a record is written");
                packets.push(*p);
            }
        }
    }
    let written = writer.finish().expect("written to memory");
    if written.is_empty() {
        // Not even a first block read: nothing to read back.
        return;
    }
    let again: Vec<_> = Capture::open(&written)
        .expect("a written capture opens")
        .collect();
    let again_packets: Vec<Packet<'_>> = again
        .iter()
        .filter_map(|i| match i {
            Ok(Item::Packet(p)) => Some(*p),
            Ok(Item::Raw { .. }) => None,
            Err(e) => panic!("a written capture fails to read: {e:?}"),
        })
        .collect();
    assert_eq!(
        format!("{again_packets:?}"),
        format!("{packets:?}"),
        "written and read back differ"
    );
}

/// The items of `data` read with no more bytes than `Parser::needed` says.
fn chunked(data: &[u8]) -> Vec<Result<Item<'_>, linerate_packets::capture::CaptureError>> {
    let mut parser = Parser::open(data).expect("it opened whole");
    let mut items = Vec::new();
    let mut offset = 0;
    loop {
        let rest = &data[offset..];
        let need = parser.needed(rest);
        assert!(need >= 1, "needed 0 bytes");
        let window = &rest[..need.min(rest.len())];
        let mut left = window;
        let Some(item) = parser.next(&mut left) else {
            break;
        };
        offset += window.len() - left.len();
        items.push(item);
        assert!(items.len() <= data.len() + 2, "no progress");
    }
    items
}
