//! Writing a capture in the input's format (pcap in its byte order, or
//! pcapng block by block) to any [`Write`]: where the bytes end up (a
//! temporary file put in place only once whole, standard output) is the
//! caller's business.
//!
//! Records are built in one reused buffer (a signed packet's frame directly
//! in it, its ICV filled in later) and written out in large pieces.
//!
//! Headers and blocks without packets are copied unchanged, except that a
//! snap length (pcap file header, pcapng interface) is raised by the
//! largest AH, so that signed packets still fit it. Packet records are
//! rebuilt around their (possibly longer) data with their timestamps,
//! interface and options.

use std::io::{self, Write};

use crate::capture::{Packet, RawKind, Record, u32_from};

/// The most bytes an AH adds (a 16-byte ICV padded for IPv6).
pub const MAX_AH: u32 = 32;

/// The buffer is written out once it holds this much (and no ICV in it is
/// still to be filled in: see [`CaptureWriter::drain`]).
pub const FLUSH_AT: usize = 1 << 20;

/// A capture being written to `W`.
pub struct CaptureWriter<W> {
    out: W,
    /// Records not yet written out.
    pub buf: Vec<u8>,
}

/// Where a packet's record is in the buffer, between its header and its
/// trailer.
pub struct Open {
    start: usize,
    data_len: usize,
}

impl<W: Write> CaptureWriter<W> {
    /// A writer of records to `out`.
    pub fn new(out: W) -> CaptureWriter<W> {
        CaptureWriter {
            out,
            buf: Vec::with_capacity(2 * FLUSH_AT),
        }
    }

    /// Copies a header or a block without packets.
    pub fn raw(&mut self, bytes: &[u8], kind: RawKind, big_endian: bool) {
        let start = self.buf.len();
        self.buf.extend_from_slice(bytes);
        // The snap length's offset: pcap header 16, interface block 12.
        let snaplen_at = match kind {
            RawKind::PcapHeader => Some(16),
            RawKind::Interface => Some(12),
            _ => None,
        };
        if let Some(at) = snaplen_at.filter(|&at| bytes.len() >= at + 4) {
            let field = &mut self.buf[start + at..start + at + 4];
            let read = u32_from(field, big_endian);
            // 0 in an interface block means "no limit".
            if read != 0 {
                let raised = read.saturating_add(MAX_AH);
                field.copy_from_slice(&u32_to(raised, big_endian));
            }
        }
    }

    /// Writes `packet`'s record with `data` as its bytes and `orig_len` as
    /// its length on the wire.
    pub fn packet(&mut self, packet: &Packet<'_>, data: &[u8], orig_len: u32) -> io::Result<()> {
        let open = self.begin(packet, data.len(), orig_len)?;
        self.buf.extend_from_slice(data);
        self.end(packet, open);
        Ok(())
    }

    /// Writes the start of `packet`'s record for `data_len` bytes of data
    /// and `orig_len` on the wire; the caller appends the data to
    /// [`CaptureWriter::buf`] and then calls [`CaptureWriter::end`] (or
    /// [`CaptureWriter::abandon`]).
    pub fn begin(
        &mut self,
        packet: &Packet<'_>,
        data_len: usize,
        orig_len: u32,
    ) -> io::Result<Open> {
        let be = packet.big_endian;
        let caplen = u32::try_from(data_len).map_err(io::Error::other)?;
        let padded = data_len.div_ceil(4) * 4;
        let start = self.buf.len();
        let mut put = |v: u32| self.buf.extend_from_slice(&u32_to(v, be));
        match packet.record {
            Record::Pcap { ts } => {
                for v in [ts[0], ts[1], caplen, orig_len] {
                    put(v);
                }
            }
            Record::Enhanced { if_id, ts, options } => {
                let total = u32::try_from(32 + padded + options.len()).map_err(io::Error::other)?;
                for v in [0x0000_0006, total, if_id, ts[0], ts[1], caplen, orig_len] {
                    put(v);
                }
            }
            Record::Simple => {
                let total = u32::try_from(16 + padded).map_err(io::Error::other)?;
                for v in [0x0000_0003, total, orig_len] {
                    put(v);
                }
            }
        }
        Ok(Open { start, data_len })
    }

    /// Ends the record `begin` opened, its data now in the buffer.
    pub fn end(&mut self, packet: &Packet<'_>, open: Open) {
        let padded = open.data_len.div_ceil(4) * 4;
        let pad = &[0u8; 3][..padded - open.data_len];
        match packet.record {
            Record::Pcap { .. } => {}
            Record::Enhanced { options, .. } => {
                self.buf.extend_from_slice(pad);
                self.buf.extend_from_slice(options);
                self.repeat_total(open.start);
            }
            Record::Simple => {
                self.buf.extend_from_slice(pad);
                self.repeat_total(open.start);
            }
        }
    }

    /// Copies the block's total length (after its type) to its end.
    fn repeat_total(&mut self, start: usize) {
        let mut total = [0u8; 4];
        total.copy_from_slice(&self.buf[start + 4..start + 8]);
        self.buf.extend_from_slice(&total);
    }

    /// Drops the record `begin` opened, and whatever data followed it.
    pub fn abandon(&mut self, open: Open) {
        self.buf.truncate(open.start);
    }

    /// Writes the buffer out if it holds [`FLUSH_AT`] bytes or more; the
    /// caller has filled in every ICV in it.
    pub fn drain(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes what is left and hands back the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn u32_to(v: u32, big_endian: bool) -> [u8; 4] {
    if big_endian {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}
