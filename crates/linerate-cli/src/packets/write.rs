//! Writing a capture in the input's format (pcap in its byte order, or
//! pcapng block by block) through a temporary file in the output's
//! directory, put in the output's place only when everything was written
//! (renamed there, or swapped with the file it replaces): a failed or
//! killed run leaves no half-written capture (and a failed one no temporary
//! file). The file is not synced before the rename: like `cp` or
//! `sort -o`, we promise a whole OUT or none, not one that survives a power
//! failure, and the sync would cost a third of the run.
//!
//! Records are built in one reused buffer (a signed packet's frame directly
//! in it, its ICV filled in later) and written out in large pieces.
//!
//! Headers and blocks without packets are copied unchanged, except that a
//! snap length (pcap file header, pcapng interface) is raised by the
//! largest AH, so that signed packets still fit it. Packet records are
//! rebuilt around their (possibly longer) data with their timestamps,
//! interface and options.

use std::fs::Permissions;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use tempfile::NamedTempFile;

use super::capture::{Packet, RawKind, Record, u32_from};

/// The most bytes an AH adds (a 16-byte ICV padded for IPv6).
pub const MAX_AH: u32 = 32;

/// The buffer is written out once it holds this much (and no ICV in it is
/// still to be filled in: see [`CaptureWriter::drain`]).
pub const FLUSH_AT: usize = 1 << 20;

/// A capture being written to a temporary file.
pub struct CaptureWriter {
    file: NamedTempFile,
    /// Records not yet written to the file.
    pub buf: Vec<u8>,
}

/// Where a packet's record is in the buffer, between its header and its
/// trailer.
pub struct Open {
    start: usize,
    data_len: usize,
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
            file,
            buf: Vec::with_capacity(2 * FLUSH_AT),
        })
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

    /// Writes the buffer to the file if it holds [`FLUSH_AT`] bytes or
    /// more; the caller has filled in every ICV in it.
    pub fn drain(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.file.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes what is left and puts the temporary file at `path` (no
    /// sync: see the module's documentation).
    pub fn commit(mut self, path: &Path) -> io::Result<()> {
        self.file.write_all(&self.buf)?;
        put_in_place(self.file, path)
    }
}

/// Moves `file` to `path`. A regular file already at `path` is swapped
/// with it (Linux's `RENAME_EXCHANGE`) and then removed under the temporary
/// name: a rename over an existing file makes ext4 (with its default
/// `auto_da_alloc`) write the new file's data back inside the rename, which
/// measured about a third of a whole `sign` run of 153 MB. Either way `path`
/// names the old capture or the whole new one at every moment, never
/// neither.
#[cfg(target_os = "linux")]
fn put_in_place(file: NamedTempFile, path: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    let replaces_a_file = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    if replaces_a_file && renameat_with(CWD, file.path(), CWD, path, RenameFlags::EXCHANGE).is_ok()
    {
        let old_at = file.path().to_path_buf();
        return file.close().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "the new capture is in place, but the one it replaced is left at {}: {e}",
                    old_at.display()
                ),
            )
        });
    }
    // Nothing to replace, or no RENAME_EXCHANGE on this file system.
    file.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(not(target_os = "linux"))]
fn put_in_place(file: NamedTempFile, path: &Path) -> io::Result<()> {
    file.persist(path).map(drop).map_err(|e| e.error)
}

fn u32_to(v: u32, big_endian: bool) -> [u8; 4] {
    if big_endian {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}
