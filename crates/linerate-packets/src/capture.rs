//! Reading a capture: pcap (either byte order, micro- or nanosecond
//! timestamps) and pcapng (section headers of either byte order, interface
//! descriptions, enhanced and simple packet blocks), on `pcap-parser`'s
//! record and block parsers.
//!
//! [`Parser`] reads record after record from whatever bytes it is given,
//! and says how many bytes the next record needs ([`Parser::needed`]), so
//! that [`crate::stream`] can feed it a file chunk by chunk; [`Capture`]
//! feeds it a capture held in memory whole. Either yields every record in
//! file order: the file and section
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

/// The state of reading a capture: the container, the interfaces seen,
/// the packets counted. It holds no bytes: each call is given the rest of
/// the file, or as much of it as [`Parser::needed`] asks for.
pub struct Parser {
    format: Format,
    /// The pcap file header (24 bytes) is still to be yielded.
    header: bool,
    /// pcap: the file's link type; pcapng: each interface's in this section.
    interfaces: Vec<u16>,
    big_endian: bool,
    packets: usize,
    failed: bool,
}

/// The next item of a parse, or `None` at the end (or after an error).
type Next<'a> = Option<Result<Item<'a>, CaptureError>>;

const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];
const PCAP_HEADER: usize = 24;
const PCAP_RECORD_HEADER: usize = 16;
/// The bytes of a pcapng block that tell its length (a section header's
/// byte order is in the third word).
const PCAPNG_FRAMING: usize = 12;
/// The most bytes `pcap-parser` reads of a pcapng block before checking
/// that the block is that long (an enhanced packet block's fixed part): it
/// finds a block too short for its type only if it is given that many.
const PCAPNG_LONGEST_FIXED: usize = 32;

impl Parser {
    /// Recognises the container from the start of the file (all of it, or
    /// at least the pcap file header's 24 bytes) and checks the pcap file
    /// header.
    pub fn open(start: &[u8]) -> Result<Parser, OpenError> {
        let mut parser = Parser {
            format: Format::PcapNg,
            header: false,
            interfaces: Vec::new(),
            big_endian: false,
            packets: 0,
            failed: false,
        };
        if start.starts_with(&PCAPNG_MAGIC) {
            return Ok(parser);
        }
        let magic = start
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
        let (_, header) =
            parse_pcap_header(start).map_err(|_| OpenError::BadHeader("cut short"))?;
        parser.big_endian = header.is_bigendian();
        parser.format = Format::Pcap {
            big_endian: parser.big_endian,
        };
        parser.header = true;
        parser.interfaces = u16::try_from(header.network.0).ok().into_iter().collect();
        Ok(parser)
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether an error ended the capture.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// How many bytes from the start of `rest` the next record needs to be
    /// read whole (at least 1): more than `rest.len()` means that, unless
    /// the file ends there, the caller must come back with more. Given at
    /// least that many bytes, [`Parser::next`] reads the same record (or
    /// finds the same fault) as it would with the whole rest of the file.
    pub fn needed(&self, rest: &[u8]) -> usize {
        if self.header {
            return PCAP_HEADER;
        }
        match self.format {
            Format::Pcap { .. } => match rest.get(8..12) {
                Some(caplen) => PCAP_RECORD_HEADER + u32_from(caplen, self.big_endian) as usize,
                None => PCAP_RECORD_HEADER,
            },
            Format::PcapNg => {
                let Some(head) = rest.get(..PCAPNG_FRAMING) else {
                    return PCAPNG_LONGEST_FIXED;
                };
                // A section header gives its own byte order; any other
                // block is in its section's.
                let be = if head.starts_with(&PCAPNG_MAGIC) {
                    head[8..12] == [0x1a, 0x2b, 0x3c, 0x4d]
                } else {
                    self.big_endian
                };
                (u32_from(&head[4..8], be) as usize).max(PCAPNG_LONGEST_FIXED)
            }
        }
    }

    /// The next item from `rest` (the rest of the file, or at least
    /// [`Parser::needed`] bytes of it), advancing `rest` past it.
    pub fn next<'a>(&mut self, rest: &mut &'a [u8]) -> Next<'a> {
        if self.failed {
            return None;
        }
        if self.header {
            self.header = false;
            let (header, after) = rest.split_at(PCAP_HEADER.min(rest.len()));
            *rest = after;
            return Some(Ok(Item::Raw {
                bytes: header,
                kind: RawKind::PcapHeader,
                big_endian: self.big_endian,
            }));
        }
        if rest.is_empty() {
            return None;
        }
        match self.format {
            Format::Pcap { .. } => self.next_pcap(rest),
            Format::PcapNg => self.next_pcapng(rest),
        }
    }

    fn fail<'a>(&mut self, message: String) -> Next<'a> {
        self.failed = true;
        Some(Err(CaptureError {
            index: self.packets + 1,
            message,
        }))
    }

    fn next_pcap<'a>(&mut self, rest: &mut &'a [u8]) -> Next<'a> {
        let parsed = if self.big_endian {
            parse_pcap_frame_be(rest)
        } else {
            parse_pcap_frame(rest)
        };
        match parsed {
            Ok((after, frame)) => {
                *rest = after;
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
                let left = rest.len();
                self.fail(format!(
                    "truncated capture: {} ({left} bytes left in the file)",
                    describe(&e)
                ))
            }
        }
    }

    fn next_pcapng<'a>(&mut self, rest: &mut &'a [u8]) -> Next<'a> {
        let input = *rest;
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
                        *rest = &input[len..];
                        return Some(Ok(Item::Raw {
                            bytes: &input[..len],
                            kind: RawKind::Other,
                            big_endian: be,
                        }));
                    }
                }
            };
        let (after, block) = match parsed {
            Ok(ok) => ok,
            // The parser wants bytes past a block that is whole in the file
            // (its framing was checked): a length inside it is wrong.
            Err(e @ nom::Err::Incomplete(_))
                if input.len() < 8 || input.len() < self.block_len(input) =>
            {
                return self.fail(format!("truncated capture: {}", describe(&e)));
            }
            Err(e) => {
                let name = block_name(input, self.big_endian);
                return self.fail(format!("corrupt pcapng {name}: {}", block_fault(&e)));
            }
        };
        let bytes = &input[..input.len() - after.len()];
        *rest = after;
        let raw = |kind| Item::Raw {
            bytes,
            kind,
            big_endian: self.big_endian,
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
                let item = raw(RawKind::Interface);
                self.interfaces.push(idb.linktype.0 as u16);
                Some(Ok(item))
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
            _ => Some(Ok(raw(RawKind::Other))),
        }
    }

    fn u32_at(&self, b: &[u8], at: usize) -> u32 {
        u32_from(&b[at..at + 4], self.big_endian)
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
}

/// A capture held in memory whole, iterated record by record.
pub struct Capture<'a> {
    parser: Parser,
    rest: &'a [u8],
}

impl<'a> Capture<'a> {
    /// Recognises the container and reads the pcap file header.
    pub fn open(data: &'a [u8]) -> Result<Capture<'a>, OpenError> {
        Ok(Capture {
            parser: Parser::open(data)?,
            rest: data,
        })
    }

    pub fn format(&self) -> Format {
        self.parser.format()
    }
}

impl<'a> Iterator for Capture<'a> {
    type Item = Result<Item<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.parser.next(&mut self.rest)
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

/// The name of the pcapng block at the start of `input` (its type read).
fn block_name(input: &[u8], big_endian: bool) -> String {
    if input.starts_with(&PCAPNG_MAGIC) {
        return "section header block".to_string();
    }
    match input.get(..4).map(|b| u32_from(b, big_endian)) {
        Some(1) => "interface description block".to_string(),
        Some(3) => "simple packet block".to_string(),
        Some(6) => "enhanced packet block".to_string(),
        Some(t) => format!("block of type {t:#010x}"),
        None => "block".to_string(),
    }
}

const LENGTH_MISFIT: &str =
    "a length inside it does not fit the block (captured length, options or block length)";

/// What is wrong with a pcapng block its parser refused, in a reader's
/// words (the parser's own names its internals: "predicate verification").
fn block_fault(e: &nom::Err<PcapError<&[u8]>>) -> &'static str {
    use nom::error::ErrorKind;
    match e {
        // Only for a block whole in the file: see the caller.
        nom::Err::Incomplete(_) => LENGTH_MISFIT,
        nom::Err::Error(e) | nom::Err::Failure(e) => match e {
            PcapError::Eof | PcapError::Incomplete(_) => "cut short",
            PcapError::HeaderNotRecognized => "its magic number is not pcapng's",
            PcapError::NomError(_, ErrorKind::Verify)
            | PcapError::OwnedNomError(_, ErrorKind::Verify) => LENGTH_MISFIT,
            _ => "a field has a value the format does not allow",
        },
    }
}

/// The 4 bytes at the start of `b` as a number in the given byte order.
pub fn u32_from(b: &[u8], big_endian: bool) -> u32 {
    let a = [b[0], b[1], b[2], b[3]];
    if big_endian {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}
