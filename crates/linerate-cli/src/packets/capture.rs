//! Reading a capture file held in memory: pcap (either byte order, micro-
//! or nanosecond timestamps) and pcapng (section headers of either byte
//! order, interface descriptions, enhanced and simple packet blocks), on
//! `pcap-parser`'s record and block parsers.
//!
//! The reader yields every record in file order: the file and section
//! headers and blocks without packets as raw bytes (so that `sign` copies
//! them unchanged), packets with their link type and what their record
//! needs to be written again with other data ([`Record`]). The first record
//! that cannot be read ends the iteration with a [`CaptureError`] naming the
//! packet it would have been.

use pcap_parser::nom;
use pcap_parser::pcapng::{
    Block, parse_enhancedpacketblock_be, parse_enhancedpacketblock_le,
    parse_interfacedescriptionblock_be, parse_interfacedescriptionblock_le,
    parse_sectionheaderblock, parse_simplepacketblock_be, parse_simplepacketblock_le,
};
use pcap_parser::{PcapError, parse_pcap_frame, parse_pcap_frame_be, parse_pcap_header};

/// Which container the file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Classic pcap; `big_endian` is the byte order of its headers.
    Pcap { big_endian: bool },
    /// pcapng (each section has its own byte order).
    PcapNg,
}

/// A capture that could not be opened at all.
#[derive(Debug, PartialEq, Eq)]
pub enum OpenError {
    /// Neither pcap's nor pcapng's magic number.
    NotACapture,
    /// A pcap header that is cut short or has an unsupported variant.
    BadHeader(&'static str),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::NotACapture => f.write_str("not a pcap or pcapng capture"),
            OpenError::BadHeader(why) => write!(f, "bad pcap header: {why}"),
        }
    }
}

/// A record that could not be read; nothing after it is.
#[derive(Debug, PartialEq, Eq)]
pub struct CaptureError {
    /// The packet index (from 1) the record would have had.
    pub index: usize,
    pub message: String,
}

/// How a packet's record is written back: the fields that do not depend on
/// the packet's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record<'a> {
    /// A pcap record's timestamp (seconds, fraction), raw.
    Pcap { ts: [u32; 2] },
    /// An enhanced packet block: interface, raw timestamp, raw options.
    Enhanced {
        if_id: u32,
        ts: [u32; 2],
        options: &'a [u8],
    },
    /// A simple packet block (interface 0, no timestamp).
    Simple,
}

/// One packet of a capture.
#[derive(Clone, Copy, Debug)]
pub struct Packet<'a> {
    /// Position among the packets, from 1.
    pub index: usize,
    /// The link type of its interface, if the capture declares one.
    pub link_type: Option<u16>,
    /// The captured bytes.
    pub data: &'a [u8],
    /// The length on the wire (more than `data.len()` for a snap-cut packet).
    pub orig_len: u32,
    /// Byte order of the record (pcap file or pcapng section).
    pub big_endian: bool,
    pub record: Record<'a>,
}

/// Blocks copied unchanged, by what the writer must know about them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawKind {
    /// The pcap file header.
    PcapHeader,
    /// A pcapng section header: the byte order of what follows.
    SectionHeader,
    /// A pcapng interface description (its snap length may need raising).
    Interface,
    /// Any other pcapng block.
    Other,
}

/// An item of a capture, in file order.
#[derive(Clone, Copy, Debug)]
pub enum Item<'a> {
    Raw {
        bytes: &'a [u8],
        kind: RawKind,
        big_endian: bool,
    },
    Packet(Packet<'a>),
}

/// A capture in memory, iterated record by record.
pub struct Capture<'a> {
    format: Format,
    rest: &'a [u8],
    /// The pcap file header, yielded first.
    header: Option<&'a [u8]>,
    /// pcap: the file's link type; pcapng: each interface's in this section.
    interfaces: Vec<u16>,
    big_endian: bool,
    packets: usize,
    failed: bool,
}

const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

impl<'a> Capture<'a> {
    /// Recognises the container and reads the pcap file header.
    pub fn open(data: &'a [u8]) -> Result<Capture<'a>, OpenError> {
        if data.starts_with(&PCAPNG_MAGIC) {
            return Ok(Capture {
                format: Format::PcapNg,
                rest: data,
                header: None,
                interfaces: Vec::new(),
                big_endian: false,
                packets: 0,
                failed: false,
            });
        }
        let magic = data
            .get(..4)
            .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
        let known = [0xa1b2_c3d4, 0xa1b2_3c4d, 0xd4c3_b2a1, 0x4d3c_b2a1];
        match magic {
            Some(0xa1b2_cd34 | 0x34cd_b2a1) => {
                return Err(OpenError::BadHeader("the modified (Kuznetzov) format"));
            }
            Some(m) if known.contains(&m) => {}
            _ => return Err(OpenError::NotACapture),
        }
        let (rest, header) =
            parse_pcap_header(data).map_err(|_| OpenError::BadHeader("cut short"))?;
        let big_endian = header.is_bigendian();
        let link = u16::try_from(header.network.0).ok();
        Ok(Capture {
            format: Format::Pcap { big_endian },
            rest,
            header: Some(&data[..24]),
            interfaces: link.into_iter().collect(),
            big_endian,
            packets: 0,
            failed: false,
        })
    }

    pub fn format(&self) -> Format {
        self.format
    }

    fn fail(&mut self, message: String) -> Option<Result<Item<'a>, CaptureError>> {
        self.failed = true;
        Some(Err(CaptureError {
            index: self.packets + 1,
            message,
        }))
    }

    fn next_pcap(&mut self) -> Option<Result<Item<'a>, CaptureError>> {
        if self.rest.is_empty() {
            return None;
        }
        let parsed = if self.big_endian {
            parse_pcap_frame_be(self.rest)
        } else {
            parse_pcap_frame(self.rest)
        };
        match parsed {
            Ok((rest, frame)) => {
                self.rest = rest;
                self.packets += 1;
                Some(Ok(Item::Packet(Packet {
                    index: self.packets,
                    link_type: self.interfaces.first().copied(),
                    data: frame.data,
                    orig_len: frame.origlen,
                    big_endian: self.big_endian,
                    record: Record::Pcap {
                        ts: [frame.ts_sec, frame.ts_usec],
                    },
                })))
            }
            Err(e) => {
                let left = self.rest.len();
                self.fail(format!(
                    "truncated capture: {} ({left} bytes left in the file)",
                    describe(&e)
                ))
            }
        }
    }

    fn next_pcapng(&mut self) -> Option<Result<Item<'a>, CaptureError>> {
        if self.rest.is_empty() {
            return None;
        }
        let input = self.rest;
        let parsed =
            if input.starts_with(&PCAPNG_MAGIC) {
                parse_sectionheaderblock(input).map(|(r, b)| (r, Block::SectionHeader(b)))
            } else {
                // The block's framing is checked here, and only the blocks this
                // tool reads go to the crate's parsers: fuzzing found a block
                // type (process information) whose parser underflows on a
                // length below 12.
                let block_type = match self.framing(input) {
                    Ok(t) => t,
                    Err(message) => return self.fail(message),
                };
                let be = self.big_endian;
                match block_type {
                    0x0000_0001 if be => parse_interfacedescriptionblock_be(input)
                        .map(|(r, b)| (r, Block::InterfaceDescription(b))),
                    0x0000_0001 => parse_interfacedescriptionblock_le(input)
                        .map(|(r, b)| (r, Block::InterfaceDescription(b))),
                    0x0000_0006 if be => parse_enhancedpacketblock_be(input)
                        .map(|(r, b)| (r, Block::EnhancedPacket(b))),
                    0x0000_0006 => parse_enhancedpacketblock_le(input)
                        .map(|(r, b)| (r, Block::EnhancedPacket(b))),
                    0x0000_0003 if be => {
                        parse_simplepacketblock_be(input).map(|(r, b)| (r, Block::SimplePacket(b)))
                    }
                    0x0000_0003 => {
                        parse_simplepacketblock_le(input).map(|(r, b)| (r, Block::SimplePacket(b)))
                    }
                    _ => {
                        let len = self.block_len(input);
                        self.rest = &input[len..];
                        return Some(Ok(Item::Raw {
                            bytes: &input[..len],
                            kind: RawKind::Other,
                            big_endian: be,
                        }));
                    }
                }
            };
        let (rest, block) = match parsed {
            Ok(ok) => ok,
            Err(e) => {
                let what = match e {
                    nom::Err::Incomplete(_) => "truncated capture",
                    _ => "corrupt pcapng block",
                };
                return self.fail(format!("{what}: {}", describe(&e)));
            }
        };
        let bytes = &input[..input.len() - rest.len()];
        self.rest = rest;
        let raw = |kind| {
            Some(Ok(Item::Raw {
                bytes,
                kind,
                big_endian: false,
            }))
        };
        match block {
            Block::SectionHeader(shb) => {
                self.big_endian = shb.big_endian();
                self.interfaces.clear();
                Some(Ok(Item::Raw {
                    bytes,
                    kind: RawKind::SectionHeader,
                    big_endian: self.big_endian,
                }))
            }
            Block::InterfaceDescription(idb) => {
                self.interfaces.push(idb.linktype.0 as u16);
                let item = raw(RawKind::Interface);
                self.with_order(item)
            }
            Block::EnhancedPacket(epb) => {
                self.packets += 1;
                let caplen = epb.caplen as usize;
                let data = epb.data.get(..caplen).unwrap_or(epb.data);
                // The options follow the padded data: header 28, data, then
                // everything up to the trailing length.
                let options_at = (28 + data.len().div_ceil(4) * 4).min(bytes.len() - 4);
                Some(Ok(Item::Packet(Packet {
                    index: self.packets,
                    link_type: self.interfaces.get(epb.if_id as usize).copied(),
                    data,
                    orig_len: epb.origlen,
                    big_endian: self.big_endian,
                    record: Record::Enhanced {
                        if_id: epb.if_id,
                        ts: [epb.ts_high, epb.ts_low],
                        options: &bytes[options_at..bytes.len() - 4],
                    },
                })))
            }
            Block::SimplePacket(spb) => {
                self.packets += 1;
                let len = (spb.origlen as usize).min(spb.data.len());
                Some(Ok(Item::Packet(Packet {
                    index: self.packets,
                    link_type: self.interfaces.first().copied(),
                    data: &spb.data[..len],
                    orig_len: spb.origlen,
                    big_endian: self.big_endian,
                    record: Record::Simple,
                })))
            }
            _ => {
                let item = raw(RawKind::Other);
                self.with_order(item)
            }
        }
    }

    fn u32_at(&self, b: &[u8], at: usize) -> u32 {
        let a = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if self.big_endian {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    }

    fn block_len(&self, input: &[u8]) -> usize {
        self.u32_at(input, 4) as usize
    }

    /// Checks a pcapng block's framing (its two lengths, at least 12 and a
    /// multiple of 4, within the file); its type.
    fn framing(&self, input: &[u8]) -> Result<u32, String> {
        if input.len() < 8 {
            return Err(format!(
                "truncated capture: block header cut short ({} bytes left)",
                input.len()
            ));
        }
        let len = self.block_len(input);
        if len < 12 || !len.is_multiple_of(4) {
            return Err(format!("corrupt pcapng block: length {len}"));
        }
        if len > input.len() {
            return Err(format!(
                "truncated capture: block of {len} bytes, {} left in the file",
                input.len()
            ));
        }
        if self.u32_at(input, len - 4) as usize != len {
            return Err("corrupt pcapng block: its two lengths differ".to_string());
        }
        Ok(self.u32_at(input, 0))
    }

    /// Stamps a raw item with the section's byte order.
    fn with_order(
        &self,
        item: Option<Result<Item<'a>, CaptureError>>,
    ) -> Option<Result<Item<'a>, CaptureError>> {
        match item {
            Some(Ok(Item::Raw { bytes, kind, .. })) => Some(Ok(Item::Raw {
                bytes,
                kind,
                big_endian: self.big_endian,
            })),
            other => other,
        }
    }
}

impl<'a> Iterator for Capture<'a> {
    type Item = Result<Item<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if let Some(header) = self.header.take() {
            return Some(Ok(Item::Raw {
                bytes: header,
                kind: RawKind::PcapHeader,
                big_endian: self.big_endian,
            }));
        }
        match self.format {
            Format::Pcap { .. } => self.next_pcap(),
            Format::PcapNg => self.next_pcapng(),
        }
    }
}

/// A parser error in words, without the input bytes nom would show.
fn describe(e: &nom::Err<PcapError<&[u8]>>) -> String {
    match e {
        nom::Err::Incomplete(nom::Needed::Size(n)) => format!("{n} more bytes needed"),
        nom::Err::Incomplete(nom::Needed::Unknown) => "record cut short".to_string(),
        nom::Err::Error(e) | nom::Err::Failure(e) => match e {
            PcapError::Eof => "end of file inside a record".to_string(),
            PcapError::HeaderNotRecognized => "header not recognized".to_string(),
            PcapError::NomError(_, kind) | PcapError::OwnedNomError(_, kind) => {
                format!("invalid record ({})", kind.description())
            }
            PcapError::Incomplete(n) => format!("{n} more bytes needed"),
            _ => "invalid record".to_string(),
        },
    }
}
