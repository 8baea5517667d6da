//! Where the command line writes: standard output, where a closed pipe
//! (`linerate sum big | head -1`) ends the command quietly instead of
//! panicking, and output files (`-o`), which every command writes through
//! [`OutputFile`].
//!
//! An output file (a regular one) is written to a temporary file in its
//! directory and put in its place only when everything was written (renamed there, or
//! swapped with the file it replaces): a failed or killed run leaves no
//! half-written output, and a failed one no temporary file. It is not
//! synced before the rename: like `cp` or `sort -o`, we promise a whole
//! output or none, not one that survives a power failure, and a sync would
//! cost a third of a `packets sign` run.

use std::fs::Permissions;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use tempfile::NamedTempFile;

/// Whether an I/O error means the reader went away.
pub fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Standard output, locked, on which a write fails with EBADF ("Bad file
/// descriptor") where the descriptor is closed or read-only, as md5sum's
/// does: Rust's `io::stdout()` would drop the bytes and report success.
pub fn stdout() -> Stdout {
    static UNUSABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    Stdout {
        lock: io::stdout().lock(),
        unusable: *UNUSABLE.get_or_init(|| linerate_files::check_stdout().is_err()),
    }
}

/// See [`stdout`].
pub struct Stdout {
    lock: io::StdoutLock<'static>,
    unusable: bool,
}

impl Stdout {
    /// Whether standard output is a terminal.
    pub fn is_terminal(&self) -> bool {
        use std::io::IsTerminal;
        self.lock.is_terminal()
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.unusable {
            return Err(rustix::io::Errno::BADF.into());
        }
        self.lock.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.lock.flush()
    }
}

/// Writes `bytes` to stdout and flushes; on a broken pipe exits quietly.
pub fn print_or_quiet(bytes: &[u8]) {
    let mut out = stdout();
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
    eprintln!(
        "{}: write error: {}",
        crate::PROGRAM,
        linerate_files::strerror(e)
    );
    std::process::exit(1);
}

/// An output file in the making: where `-o` names a regular file (or
/// nothing yet), written whole to a temporary file beside it and put in
/// place by [`commit`](Self::commit); dropped without a commit, it leaves
/// nothing behind and the path untouched. A symbolic link is written
/// through (its target is replaced, in the target's directory). A device,
/// FIFO or other non-regular file is opened and written directly, as `cp`
/// and `tee` do, never renamed over; `-` is standard output.
pub struct OutputFile {
    sink: Sink,
}

enum Sink {
    Replace {
        temp: NamedTempFile,
        /// Listed for removal on SIGINT/SIGTERM while it exists.
        _pending: Pending,
        /// The final path, symbolic links followed.
        path: PathBuf,
        /// The mode, owner and group of the file replaced, kept.
        kept: Option<(u32, u32, u32)>,
    },
    Direct(std::fs::File),
    Stdout(Stdout),
}

impl OutputFile {
    /// The output `path` names, named `.linerate-WHAT.*` while it is a
    /// temporary file so that a leftover says who left it. Fails at once
    /// where `path` cannot be written (a directory, a missing or read-only
    /// directory, a device that cannot be opened), before any work is done.
    pub fn create(path: &Path, what: &str) -> io::Result<OutputFile> {
        if path.as_os_str() == "-" {
            return Ok(OutputFile {
                sink: Sink::Stdout(stdout()),
            });
        }
        let kept = match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                ));
            }
            Ok(meta) if !meta.is_file() => return OutputFile::direct(path, false),
            Ok(meta) => Some((meta.mode() & 0o7777, meta.uid(), meta.gid())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let Some(path) = follow_links(path)? else {
            // A descriptor of this process (`/dev/stdout` redirected to a
            // file): the file it is open on, written as the shell opened it.
            return OutputFile::direct(path, true);
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // A new file's mode: 0666 under the umask, as for any new file.
        let temp = tempfile::Builder::new()
            .prefix(&format!(".linerate-{what}."))
            .suffix(".tmp")
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(dir)?;
        if let Some((mode, ..)) = kept {
            // No wider than the file it replaces while it is written (set-id
            // bits once it has its owner).
            temp.as_file()
                .set_permissions(Permissions::from_mode(mode & 0o777))?;
        }
        let _pending = Pending::new(temp.path());
        Ok(OutputFile {
            sink: Sink::Replace {
                temp,
                _pending,
                path,
                kept,
            },
        })
    }

    /// An output written where it is, not replaced.
    fn direct(path: &Path, truncate: bool) -> io::Result<OutputFile> {
        let file = std::fs::File::options()
            .write(true)
            .truncate(truncate)
            .open(path)?;
        Ok(OutputFile {
            sink: Sink::Direct(file),
        })
    }

    /// Puts the written file at its path (or flushes a direct output). A
    /// replaced file's owner, group (where this process may set them) and
    /// mode pass to the new one. A regular file already there is swapped
    /// with it (Linux's `RENAME_EXCHANGE`) and then removed under the
    /// temporary name: a rename over an existing file makes ext4 (with its
    /// default `auto_da_alloc`) write the new file's data back inside the
    /// rename, which measured about a third of a whole `sign` run of
    /// 153 MB. Either way the path names the old file or the whole new one
    /// at every moment, never neither.
    pub fn commit(self) -> io::Result<()> {
        match self.sink {
            Sink::Replace {
                mut temp,
                path,
                kept,
                _pending,
            } => {
                temp.flush()?;
                if let Some((mode, uid, gid)) = kept {
                    // Owner first: a change of owner clears set-id bits.
                    // Not allowed (not root, not a member of the group):
                    // the new file is ours, as `cp` leaves it.
                    let _ = std::os::unix::fs::fchown(temp.as_file(), Some(uid), Some(gid));
                    temp.as_file()
                        .set_permissions(Permissions::from_mode(mode))?;
                }
                put_in_place(temp, &path)
            }
            Sink::Direct(mut file) => file.flush(),
            Sink::Stdout(mut out) => out.flush(),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Replace { temp, .. } => temp,
            Sink::Direct(file) => file,
            Sink::Stdout(out) => out,
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

/// A temporary output file that SIGINT or SIGTERM removes before the
/// process exits (130 or 143, as a shell reports a process those signals
/// killed): an interrupted run leaves the old output as it was and no
/// temporary file. Dropped (the file committed or removed), it is off the
/// list.
struct Pending(PathBuf);

/// The temporary files of this process, for the signal thread.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What else the signal thread undoes before the process exits (the lab's
/// private sshd): one signal thread for the whole program, so that every
/// cleanup runs before anyone exits.
static HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());

/// Starts the signal thread once.
fn watch() {
    static WATCH: Once = Once::new();
    WATCH.call_once(watch_signals);
}

/// Runs `hook` on SIGINT or SIGTERM before the process exits (130 or 143).
pub fn on_signal(hook: fn()) {
    watch();
    HOOKS.lock().unwrap_or_else(|e| e.into_inner()).push(hook);
}

impl Pending {
    fn new(path: &Path) -> Pending {
        watch();
        lock_pending().push(path.to_path_buf());
        Pending(path.to_path_buf())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        lock_pending().retain(|p| p != &self.0);
    }
}

fn lock_pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic elsewhere while the list was held leaves it as it was.
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A thread that waits for SIGINT and SIGTERM, runs the hooks, removes the
/// pending temporary files and exits. (Where the handler cannot be installed,
/// the signals kill the process as before: a temporary file may be left.)
fn watch_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            for hook in HOOKS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                hook();
            }
            for path in lock_pending().iter() {
                let _ = std::fs::remove_file(path);
            }
            std::process::exit(128 + signal);
        }
    });
}

/// `path` with symbolic links in its last component followed (those in
/// the directories before it the kernel follows anyway), so that an output
/// written through a link replaces its target, not the link; `None` where
/// a link leads into `/proc` or `/dev/fd` (`/dev/stdout`): those name a
/// process's open descriptors, not places to put a file.
fn follow_links(path: &Path) -> io::Result<Option<PathBuf>> {
    let mut path = path.to_path_buf();
    // Linux's own limit on links followed in one lookup.
    for _ in 0..40 {
        if path.starts_with("/proc") || path.starts_with("/dev/fd") {
            return Ok(None);
        }
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(Some(path)),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
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

    fn write_out(path: &Path, bytes: &[u8]) {
        let mut out = OutputFile::create(path, "test").unwrap();
        out.write_all(bytes).unwrap();
        out.commit().unwrap();
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().mode() & 0o7777
    }

    #[test]
    fn a_link_is_written_through_to_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        let link = dir.path().join("link");
        let chain = dir.path().join("chain");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink("real", &link).unwrap();
        std::os::unix::fs::symlink(&link, &chain).unwrap();
        write_out(&chain, b"new");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            std::fs::symlink_metadata(&chain)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A dangling link: its target is created.
        std::fs::remove_file(&real).unwrap();
        write_out(&link, b"again");
        assert_eq!(std::fs::read(&real).unwrap(), b"again");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        // A process's descriptors are not followed to places.
        assert_eq!(follow_links(Path::new("/dev/stdout")).unwrap(), None);
        // A loop is an error, not a hang.
        let a = dir.path().join("a");
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        assert!(OutputFile::create(&a, "test").is_err());
    }

    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_new_one_gets_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, Permissions::from_mode(0o600)).unwrap();
        write_out(&path, b"new");
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        write_out(&path, b"newer");
        assert_eq!(mode(&path), 0o640);
        assert_eq!(std::fs::read(&path).unwrap(), b"newer");
        // Linux says the umask in /proc without changing it.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        let fresh = dir.path().join("fresh");
        write_out(&fresh, b"x");
        assert_eq!(mode(&fresh), 0o666 & !umask);
    }

    #[test]
    fn a_fifo_or_device_is_written_to_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_out(&fifo, b"through the fifo");
        assert_eq!(reader.join().unwrap(), b"through the fifo");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        // A character device (as root: a null device of our own).
        let null = dir.path().join("null");
        let mknod = std::process::Command::new("mknod")
            .arg(&null)
            .args(["c", "1", "3"])
            .stderr(std::process::Stdio::null())
            .status();
        if mknod.is_ok_and(|s| s.success()) {
            write_out(&null, b"gone");
            let kind = std::fs::symlink_metadata(&null).unwrap().file_type();
            assert!(kind.is_char_device());
            assert_eq!(std::fs::read(&null).unwrap(), b"");
        }
        let expected = if null.exists() { 2 } else { 1 };
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), expected);
    }
}
