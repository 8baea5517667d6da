//! Where the command line writes: standard output, where a closed pipe
//! (`linerate sum big | head -1`) ends the command quietly instead of
//! panicking, and output files (`-o`), which every command writes through
//! [`OutputFile`].
//!
//! An output file is written to a temporary file in its directory and put
//! in its place only when everything was written (renamed there, or
//! swapped with the file it replaces): a failed or killed run leaves no
//! half-written output, and a failed one no temporary file. It is not
//! synced before the rename: like `cp` or `sort -o`, we promise a whole
//! output or none, not one that survives a power failure, and a sync would
//! cost a third of a `packets sign` run.

use std::fs::Permissions;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Whether an I/O error means the reader went away.
pub fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Writes `bytes` to stdout and flushes; on a broken pipe exits quietly.
pub fn print_or_quiet(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        exit_on_write_error(&e);
    }
}

/// Ends the process after a failed write to stdout: silently (status 141 is
/// what a shell reports for SIGPIPE; coreutils dies of the signal itself) on a
/// broken pipe, with a message and status 1 otherwise.
pub fn exit_on_write_error(e: &io::Error) -> ! {
    if is_broken_pipe(e) {
        std::process::exit(141);
    }
    eprintln!("{}: write error: {e}", crate::PROGRAM);
    std::process::exit(1);
}

/// An output file in the making: written whole to a temporary file beside
/// its path, then put in place by [`commit`](Self::commit). Dropped
/// without a commit, it leaves nothing behind and the path untouched.
pub struct OutputFile {
    temp: NamedTempFile,
    path: PathBuf,
}

impl OutputFile {
    /// A temporary file beside `path` (readable by all, as a new file would
    /// be), named `.linerate-WHAT.*` so that a leftover says who left it.
    /// Fails at once where `path` cannot be written (a directory, a missing
    /// or read-only directory), before any work is done.
    pub fn create(path: &Path, what: &str) -> io::Result<OutputFile> {
        if path.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(&format!(".linerate-{what}."))
            .suffix(".tmp")
            .permissions(Permissions::from_mode(0o644))
            .tempfile_in(dir)?;
        Ok(OutputFile {
            temp,
            path: path.to_path_buf(),
        })
    }

    /// Puts the written file at its path. A regular file already there is
    /// swapped with it (Linux's `RENAME_EXCHANGE`) and then removed under
    /// the temporary name: a rename over an existing file makes ext4 (with
    /// its default `auto_da_alloc`) write the new file's data back inside
    /// the rename, which measured about a third of a whole `sign` run of
    /// 153 MB. Either way the path names the old file or the whole new one
    /// at every moment, never neither.
    pub fn commit(mut self) -> io::Result<()> {
        self.temp.flush()?;
        put_in_place(self.temp, &self.path)
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.temp.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

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
                    "the new file is in place, but the one it replaced is left at {}: {e}",
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

/// An I/O error as a person reads it: `strerror`'s words, without the
/// temporary file's name that tempfile appends (the user named the output,
/// not the temporary file).
pub fn reason(e: &io::Error) -> String {
    let text = linerate_files::strerror(e);
    match text.find(" at path ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_whole_or_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        // Dropped: nothing left, nothing at the path.
        let mut out = OutputFile::create(&path, "test").unwrap();
        out.write_all(b"half").unwrap();
        drop(out);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // Committed: the whole file, replacing an old one.
        std::fs::write(&path, b"old").unwrap();
        let mut out = OutputFile::create(&path, "test").unwrap();
        out.write_all(b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        out.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A directory in the way fails at once.
        let e = OutputFile::create(dir.path(), "test").err().unwrap();
        assert_eq!(reason(&e), "is a directory");
    }
}
