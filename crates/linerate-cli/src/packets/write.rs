//! Writing a capture in the input's format (pcap in its byte order, or
//! pcapng block by block) through a temporary file in the output's
//! directory, renamed over the output only when everything was written: a
//! failed run leaves no half-written capture and no temporary file.
//!
//! Headers and blocks without packets are copied unchanged, except that a
//! snap length (pcap file header, pcapng interface) is raised by the
//! largest AH, so that signed packets still fit it. Packet records are
//! rebuilt around their (possibly longer) data with their timestamps,
//! interface and options.

use std::fs::Permissions;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use tempfile::NamedTempFile;

use super::capture::{Packet, RawKind, Record};

/// The most bytes an AH adds (a 16-byte ICV padded for IPv6).
pub const MAX_AH: u32 = 32;

const BUFFER: usize = 1 << 20;

/// A capture being written to a temporary file.
pub struct CaptureWriter {
    out: BufWriter<NamedTempFile>,
}

impl CaptureWriter {
    /// A temporary file beside `path` (readable by all, as a new capture
    /// would be).
    pub fn create(path: &Path) -> io::Result<CaptureWriter> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let file = tempfile::Builder::new()
            .prefix(".linerate-packets-")
            .suffix(".tmp")
            .permissions(Permissions::from_mode(0o644))
            .tempfile_in(dir)?;
        Ok(CaptureWriter {
            out: BufWriter::with_capacity(BUFFER, file),
        })
    }

    /// Copies a header or a block without packets.
    pub fn raw(&mut self, bytes: &[u8], kind: RawKind, big_endian: bool) -> io::Result<()> {
        // The snap length's offset: pcap header 16, interface block 12.
        let snaplen_at = match kind {
            RawKind::PcapHeader => Some(16),
            RawKind::Interface => Some(12),
            _ => None,
        };
        match snaplen_at.filter(|&at| bytes.len() >= at + 4) {
            Some(at) => {
                let mut copy = bytes.to_vec();
                let read = u32_from(&copy[at..at + 4], big_endian);
                // 0 in an interface block means "no limit".
                if read != 0 {
                    let raised = read.saturating_add(MAX_AH);
                    copy[at..at + 4].copy_from_slice(&u32_to(raised, big_endian));
                }
                self.out.write_all(&copy)
            }
            None => self.out.write_all(bytes),
        }
    }

    /// Writes `packet`'s record with `data` as its bytes and `orig_len` as
    /// its length on the wire.
    pub fn packet(&mut self, packet: &Packet<'_>, data: &[u8], orig_len: u32) -> io::Result<()> {
        let be = packet.big_endian;
        let caplen = u32::try_from(data.len()).map_err(io::Error::other)?;
        let w = |v: u32| u32_to(v, be);
        match packet.record {
            Record::Pcap { ts } => {
                self.out.write_all(&w(ts[0]))?;
                self.out.write_all(&w(ts[1]))?;
                self.out.write_all(&w(caplen))?;
                self.out.write_all(&w(orig_len))?;
                self.out.write_all(data)
            }
            Record::Enhanced { if_id, ts, options } => {
                let padded = data.len().div_ceil(4) * 4;
                let total = u32::try_from(32 + padded + options.len()).map_err(io::Error::other)?;
                self.out.write_all(&w(0x0000_0006))?;
                self.out.write_all(&w(total))?;
                self.out.write_all(&w(if_id))?;
                self.out.write_all(&w(ts[0]))?;
                self.out.write_all(&w(ts[1]))?;
                self.out.write_all(&w(caplen))?;
                self.out.write_all(&w(orig_len))?;
                self.out.write_all(data)?;
                self.out.write_all(&[0u8; 3][..padded - data.len()])?;
                self.out.write_all(options)?;
                self.out.write_all(&w(total))
            }
            Record::Simple => {
                let padded = data.len().div_ceil(4) * 4;
                let total = u32::try_from(16 + padded).map_err(io::Error::other)?;
                self.out.write_all(&w(0x0000_0003))?;
                self.out.write_all(&w(total))?;
                self.out.write_all(&w(orig_len))?;
                self.out.write_all(data)?;
                self.out.write_all(&[0u8; 3][..padded - data.len()])?;
                self.out.write_all(&w(total))
            }
        }
    }

    /// Flushes, syncs and renames the temporary file to `path`.
    pub fn commit(self, path: &Path) -> io::Result<()> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.as_file().sync_all()?;
        file.persist(path).map(drop).map_err(|e| e.error)
    }
}

fn u32_from(b: &[u8], big_endian: bool) -> u32 {
    let a = [b[0], b[1], b[2], b[3]];
    if big_endian {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

fn u32_to(v: u32, big_endian: bool) -> [u8; 4] {
    if big_endian {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}
