//! Where the command line writes: standard output, where a closed pipe
//! (`linerate sum big | head -1`) ends the command quietly instead of
//! panicking, and output files (`-o`), which every command writes through
//! [`OutputFile`].
//!
//! An output file (a regular one) is written to an unnamed temporary file
//! in its directory and put in its place only when everything was written
//! (linked there, or swapped with the file it replaces): a failed or
//! killed run leaves no half-written output and no temporary file (see
//! [`OutputFile`] for the file systems and files where that is not so). It is not
//! synced before the rename: like `cp` or `sort -o`, we promise a whole
//! output or none, not one that survives a power failure, and a sync would
//! cost a third of a `packets sign` run.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once};

use rustix::fs::{AtFlags, Gid, Mode, OFlags, Uid};
use rustix::io::Errno;

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

/// Ends the process after a failed write to stdout. On a broken pipe where
/// SIGPIPE was inherited at its default, silently with status 141 (what a
/// shell reports for a process SIGPIPE killed, as it kills coreutils);
/// where it was inherited ignored (`trap '' PIPE`), and on every other
/// error, with a message and status 1, as md5sum does then.
pub fn exit_on_write_error(e: &io::Error) -> ! {
    if is_broken_pipe(e) && sigpipe_was_default() {
        std::process::exit(141);
    }
    eprintln!(
        "{}: write error: {}",
        crate::PROGRAM,
        linerate_files::strerror(e)
    );
    std::process::exit(1);
}

/// Whether SIGPIPE was at its default disposition when the process
/// started (it kills the writer to a closed pipe). Rust's runtime sets it
/// to ignored before `main`, so [`record_sigpipe`] reads it before that.
pub fn sigpipe_was_default() -> bool {
    !SIGPIPE_IGNORED_AT_START.load(Ordering::Relaxed)
}

static SIGPIPE_IGNORED_AT_START: AtomicBool = AtomicBool::new(false);

#[allow(unsafe_code)]
// SAFETY: an `.init_array` entry must be a function the C runtime may call
// with no arguments before `main`; `record_sigpipe` is one, and it touches
// nothing that needs initialising (an atomic, a system call).
#[unsafe(link_section = ".init_array")]
#[used]
static RECORD_SIGPIPE: extern "C" fn() = record_sigpipe;

/// Records whether SIGPIPE was inherited ignored: called by the C runtime
/// before `main`, and so before Rust's runtime ignores it.
extern "C" fn record_sigpipe() {
    #[allow(unsafe_code)]
    // SAFETY: with a null new action, sigaction only writes the current
    // one into `old`, a zeroed sigaction of our own.
    let ignored = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    };
    SIGPIPE_IGNORED_AT_START.store(ignored, Ordering::Relaxed);
}

/// An output file in the making: where `-o` names a regular file (or
/// nothing yet), written whole to a temporary file and put in place by
/// [`commit`](Self::commit); dropped without a commit, it leaves nothing
/// behind and the path untouched. A symbolic link is written through (its
/// target is replaced, in the target's directory). A device, FIFO or other
/// non-regular file is opened and written directly, as `cp` and `tee` do,
/// never renamed over; `-` is standard output.
///
/// The temporary file is unnamed (Linux's `O_TMPFILE`) until it is put in
/// place, so that not even SIGKILL can leave one behind; where the file
/// system has no unnamed files it is `.linerate-WHAT.PID.RANDOM.tmp`, and
/// a later run removes such files of ours whose process is gone.
///
/// An existing file is replaced only by a process that may open it for
/// writing (otherwise: "Permission denied", before any work). Where the
/// replacement cannot keep its owner and group (not root, another user's
/// file) or cannot be renamed there (a sticky directory such as /tmp,
/// a directory we may not write), the whole new contents are copied into
/// the file in place at the end, as `cp` does: owner, group, mode and
/// hard links stay; a failure during that copy leaves the file partial
/// ([`left_partial`] says so).
pub struct OutputFile {
    sink: Sink,
}

enum Sink {
    Replace(Replacement),
    Direct(File),
    Stdout(Stdout),
}

/// A regular output file being written to a temporary file.
struct Replacement {
    /// The new contents.
    temp: File,
    /// The temporary file's name, where it has one (no `O_TMPFILE`).
    named: Option<Named>,
    /// The output's directory, where `temp` is (`None`: the directory
    /// cannot be written, `temp` is in the temporary directory).
    dir: Option<OwnedFd>,
    /// The output's directory as a path, and the output's name in it.
    dir_path: PathBuf,
    name: OsString,
    /// The file replaced: open for writing, with its mode, owner, group.
    existing: Option<Existing>,
    what: String,
}

struct Existing {
    file: File,
    mode: u32,
    uid: u32,
    gid: u32,
}

/// A temporary file's name in a directory, removed when dropped unless
/// it was renamed away; listed for removal on SIGINT/SIGTERM meanwhile.
struct Named {
    dir: OwnedFd,
    name: OsString,
    /// Still the temporary file's name (not renamed away).
    ours: bool,
    _pending: Pending,
}

impl Drop for Named {
    fn drop(&mut self) {
        if self.ours {
            let _ = rustix::fs::unlinkat(&self.dir, self.name.as_os_str(), AtFlags::empty());
        }
    }
}

/// Errors of an output written in place that failed after it was
/// truncated: the file is left partial (see [`left_partial`]).
#[derive(Debug)]
struct PartialOutput(io::Error);

impl std::fmt::Display for PartialOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&linerate_files::strerror(&self.0))
    }
}

impl std::error::Error for PartialOutput {}

/// Whether a failed [`OutputFile::commit`] left the output partial: it was
/// being copied in place (another user's file, a sticky directory) when
/// the write failed.
pub fn left_partial(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<PartialOutput>())
}

impl OutputFile {
    /// The output `path` names; `what` names its temporary file
    /// (`.linerate-WHAT.*`) where it needs a name. Fails at once where
    /// `path` cannot be written (a directory, a missing or read-only
    /// directory, an existing file we may not write, a device that cannot
    /// be opened), before any work is done.
    pub fn create(path: &Path, what: &str) -> io::Result<OutputFile> {
        if path.as_os_str() == "-" {
            return Ok(OutputFile {
                sink: Sink::Stdout(stdout()),
            });
        }
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(Errno::ISDIR.into()),
            Ok(meta) if !meta.is_file() => return OutputFile::direct(path, false),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let Some(path) = follow_links(path)? else {
            // A descriptor of this process (`/dev/stdout` redirected to a
            // file): the file it is open on, written as the shell opened it.
            return OutputFile::direct(path, true);
        };
        let dir_path = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let Some(name) = path.file_name().map(OsStr::to_os_string) else {
            return Err(Errno::ISDIR.into());
        };
        // The file replaced, opened for writing now (never truncated here):
        // what we may not open for writing we do not replace either.
        let existing = match open_existing(&path)? {
            Opened::File(existing) => existing,
            Opened::NotRegular(file) => {
                return Ok(OutputFile {
                    sink: Sink::Direct(file),
                });
            }
        };
        let dir = rustix::fs::open(
            &dir_path,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        remove_leftovers(&dir, &dir_path);
        // A new file's mode: 0666 under the umask, as for any new file; a
        // replacement no wider than the file it replaces while it is
        // written (set-id bits once it has its owner).
        let mode = existing.as_ref().map_or(0o666, |e| e.mode & 0o777);
        let (temp, named, dir) = match temp_file(&dir, &dir_path, what, mode) {
            Ok((temp, named)) => (temp, named, Some(dir)),
            // A file we may write in a directory we may not: the new
            // contents wait in the temporary directory, then are copied.
            Err(e)
                if existing.is_some()
                    && matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM)) =>
            {
                let tmp = std::env::temp_dir();
                let tmp_dir = rustix::fs::open(
                    &tmp,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                let (temp, named) = temp_file(&tmp_dir, &tmp, what, 0o600)?;
                (temp, named, None)
            }
            Err(e) => return Err(e),
        };
        // SIGINT and SIGTERM end the run through the signal thread (130,
        // 143), which removes a named temporary file first.
        watch();
        if existing.is_some() {
            // Exactly the old mode's permission bits, whatever the umask.
            rustix::fs::fchmod(&temp, Mode::from_raw_mode(mode))?;
        }
        Ok(OutputFile {
            sink: Sink::Replace(Replacement {
                temp,
                named,
                dir,
                dir_path,
                name,
                existing,
                what: what.to_string(),
            }),
        })
    }

    /// An output written where it is, not replaced.
    fn direct(path: &Path, truncate: bool) -> io::Result<OutputFile> {
        let file = File::options().write(true).truncate(truncate).open(path)?;
        Ok(OutputFile {
            sink: Sink::Direct(file),
        })
    }

    /// Puts the written file at its path (or flushes a direct output). A
    /// replaced file's owner, group and mode pass to the new one; where
    /// they cannot (not root, another user's file) or where the directory
    /// forbids the rename (sticky, not writable), the new contents are
    /// copied into the old file instead. A regular file already there is
    /// swapped with the new one (Linux's `RENAME_EXCHANGE`) and then
    /// removed under the temporary name: a rename over an existing file
    /// makes ext4 (with its default `auto_da_alloc`) write the new file's
    /// data back inside the rename, which measured about a third of a
    /// whole `sign` run of 153 MB. Either way the path names the old file
    /// or the whole new one at every moment, never neither.
    pub fn commit(self) -> io::Result<()> {
        match self.sink {
            Sink::Replace(r) => r.commit(),
            Sink::Direct(mut file) => file.flush(),
            Sink::Stdout(mut out) => out.flush(),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Replace(r) => &mut r.temp,
            Sink::Direct(file) => file,
            Sink::Stdout(out) => out,
        }
    }
}

impl Replacement {
    fn commit(mut self) -> io::Result<()> {
        let Some(dir) = self.dir.take() else {
            return self.copy_in_place();
        };
        if let Some(old) = &self.existing {
            // Owner first: a change of owner clears set-id bits. Not
            // allowed (not root, another user's file or group): the old
            // file is written in place, as `cp` does, and keeps them.
            let owner = rustix::fs::fchown(
                &self.temp,
                Some(Uid::from_raw(old.uid)),
                Some(Gid::from_raw(old.gid)),
            );
            if owner.is_err() {
                return self.copy_in_place();
            }
            rustix::fs::fchmod(&self.temp, Mode::from_raw_mode(old.mode))?;
        }
        let named = match self.named.take() {
            Some(named) => named,
            None => {
                // Unnamed: a new output is linked at its path at once (no
                // name of ours ever shows); a replacement first under a
                // temporary name, to be swapped in.
                if self.existing.is_none() {
                    match link_unnamed(&self.temp, &dir, &self.name) {
                        Ok(()) => return Ok(()),
                        Err(e) if e.raw_os_error() == Some(libc::EEXIST) => {}
                        Err(e) => return Err(e),
                    }
                }
                self.name_temp(&dir)?
            }
        };
        match put_in_place(named, &dir, &self.name, &self.dir_path) {
            Ok(()) => Ok(()),
            // A sticky directory (another user's file), or one we may not
            // write: the file itself we may write.
            Err(e)
                if self.existing.is_some()
                    && matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM)) =>
            {
                self.copy_in_place()
            }
            Err(e) => Err(e),
        }
    }

    /// Gives the unnamed temporary file a temporary name in `dir`.
    fn name_temp(&mut self, dir: &OwnedFd) -> io::Result<Named> {
        for _ in 0..100 {
            let name = temp_name(&self.what);
            match link_unnamed(&self.temp, dir, &name) {
                Ok(()) => {
                    return named(dir, &self.dir_path, name.clone()).inspect_err(|_| {
                        let _ = rustix::fs::unlinkat(dir, name.as_os_str(), AtFlags::empty());
                    });
                }
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(Errno::EXIST.into())
    }

    /// The new contents copied over the old file's, which keeps its
    /// owner, group, mode and links.
    fn copy_in_place(self) -> io::Result<()> {
        let Some(old) = self.existing else {
            return Err(Errno::ACCESS.into());
        };
        let mut temp = self.temp;
        temp.seek(SeekFrom::Start(0))?;
        // Until the truncation the old file is whole.
        let mut file = old.file;
        file.set_len(0)?;
        let partial = |e: io::Error| io::Error::new(e.kind(), PartialOutput(e));
        io::copy(&mut temp, &mut file).map_err(partial)?;
        file.flush().map_err(partial)
    }
}

/// What [`open_existing`] found.
enum Opened {
    /// A regular file (or nothing there).
    File(Option<Existing>),
    /// Something else took the name meanwhile: written directly.
    NotRegular(File),
}

/// The regular file at `path` opened for writing, not truncated, or
/// `None` where there is none: an error where it may not be written.
fn open_existing(path: &Path) -> io::Result<Opened> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking: a FIFO put there since we looked must not block us.
    let file = match File::options()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Opened::File(None)),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        rustix::fs::fcntl_setfl(&file, rustix::fs::fcntl_getfl(&file)? - OFlags::NONBLOCK)?;
        return Ok(Opened::NotRegular(file));
    }
    Ok(Opened::File(Some(Existing {
        file,
        mode: meta.mode() & 0o7777,
        uid: meta.uid(),
        gid: meta.gid(),
    })))
}

/// A temporary file in `dir` with `mode` (under the umask): unnamed where
/// the file system allows, otherwise named (and its [`Named`]).
fn temp_file(
    dir: &OwnedFd,
    dir_path: &Path,
    what: &str,
    mode: u32,
) -> io::Result<(File, Option<Named>)> {
    let mode = Mode::from_raw_mode(mode);
    #[cfg(target_os = "linux")]
    match rustix::fs::openat(
        dir,
        ".",
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        mode,
    ) {
        Ok(fd) => return Ok((File::from(fd), None)),
        // No O_TMPFILE in this file system (or kernel): a named one.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => {}
        Err(e) => return Err(e.into()),
    }
    for _ in 0..100 {
        let name = temp_name(what);
        match rustix::fs::openat(
            dir,
            name.as_os_str(),
            OFlags::CREATE | OFlags::EXCL | OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            mode,
        ) {
            Ok(fd) => {
                let named = named(dir, dir_path, name.clone()).inspect_err(|_| {
                    let _ = rustix::fs::unlinkat(dir, name.as_os_str(), AtFlags::empty());
                })?;
                return Ok((File::from(fd), Some(named)));
            }
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Errno::EXIST.into())
}

fn named(dir: &OwnedFd, dir_path: &Path, name: OsString) -> io::Result<Named> {
    Ok(Named {
        dir: dir.try_clone()?,
        _pending: Pending::new(&dir_path.join(&name)),
        name,
        ours: true,
    })
}

/// `.linerate-WHAT.PID.RANDOM.tmp`: whose it is, and (the PID) whether
/// its process is still there ([`remove_leftovers`]).
fn temp_name(what: &str) -> OsString {
    use std::hash::{BuildHasher, Hasher};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    let random = hasher.finish() & 0xff_ffff_ffff;
    format!(".linerate-{what}.{}.{random:010x}.tmp", std::process::id()).into()
}

/// The PID in a name [`temp_name`] made, or `None` for any other name.
fn leftover_pid(name: &OsStr) -> Option<i32> {
    let name = name.to_str()?;
    let rest = name.strip_prefix(".linerate-")?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    let random = parts.next()?;
    let pid = parts.next()?;
    let what = parts.next()?;
    let plain = |s: &str, ok: fn(char) -> bool| !s.is_empty() && s.chars().all(ok);
    if !plain(random, |c| c.is_ascii_hexdigit())
        || !plain(pid, |c| c.is_ascii_digit())
        || !plain(what, |c| c.is_ascii_alphanumeric() || c == '-')
    {
        return None;
    }
    pid.parse().ok().filter(|&p| p > 0)
}

/// Removes from `dir` the temporary files of ours that a killed run left:
/// named as [`temp_name`] names them, regular, owned by this user, with
/// one link, and whose process no longer exists. (A run killed inside the
/// moment between naming its file and renaming it, or on a file system
/// without `O_TMPFILE`, leaves one.)
fn remove_leftovers(dir: &OwnedFd, dir_path: &Path) {
    let Ok(entries) = std::fs::read_dir(dir_path) else {
        return;
    };
    let me = rustix::process::geteuid();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = leftover_pid(&name) else {
            continue;
        };
        let gone = rustix::process::Pid::from_raw(pid)
            .is_some_and(|p| rustix::process::test_kill_process(p) == Err(Errno::SRCH));
        if !gone {
            continue;
        }
        let Ok(stat) = rustix::fs::statat(dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        let regular =
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile;
        if regular && stat.st_uid == me.as_raw() && stat.st_nlink == 1 {
            let _ = rustix::fs::unlinkat(dir, name.as_os_str(), AtFlags::empty());
        }
    }
}

/// Gives the unnamed file `file` the name `name` in `dir`: through
/// `/proc/self/fd` (any user), or `AT_EMPTY_PATH` (where /proc is not
/// mounted; needs CAP_DAC_READ_SEARCH).
fn link_unnamed(file: &File, dir: &OwnedFd, name: &OsStr) -> io::Result<()> {
    let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    match rustix::fs::linkat(
        rustix::fs::CWD,
        proc_path.as_str(),
        dir,
        name,
        AtFlags::SYMLINK_FOLLOW,
    ) {
        Ok(()) => Ok(()),
        Err(Errno::NOENT) => {
            rustix::fs::linkat(file, "", dir, name, AtFlags::EMPTY_PATH).map_err(Into::into)
        }
        Err(e) => Err(e.into()),
    }
}

/// Renames the temporary file `temp` to `name` in `dir`: swapped with a
/// regular file there and the old one removed, or renamed.
fn put_in_place(mut temp: Named, dir: &OwnedFd, name: &OsStr, dir_path: &Path) -> io::Result<()> {
    use rustix::fs::{RenameFlags, renameat_with};
    let replaces_a_file = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|s| {
        rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::RegularFile
    });
    #[cfg(target_os = "linux")]
    if replaces_a_file
        && renameat_with(dir, temp.name.as_os_str(), dir, name, RenameFlags::EXCHANGE).is_ok()
    {
        // The old file is under the temporary name now: Named's drop
        // removes it.
        return rustix::fs::unlinkat(dir, temp.name.as_os_str(), AtFlags::empty())
            .map(|()| temp.ours = false)
            .map_err(|e| {
                let e = io::Error::from(e);
                io::Error::new(
                    e.kind(),
                    format!(
                        "the new file is in place, but the one it replaced is left at {}: {}",
                        dir_path.join(&temp.name).display(),
                        linerate_files::strerror(&e)
                    ),
                )
            });
    }
    let _ = (replaces_a_file, dir_path);
    // Nothing to replace, or no RENAME_EXCHANGE on this file system.
    rustix::fs::renameat(dir, temp.name.as_os_str(), dir, name)?;
    temp.ours = false;
    Ok(())
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

/// An I/O error as a person reads it, as coreutils prints one:
/// `strerror`'s words, without a path appended to them (the user named
/// the output, not a temporary file) or Rust's ` (os error N)`.
pub fn reason(e: &io::Error) -> String {
    let mut text = linerate_files::strerror(e);
    if let Some(at) = text.find(" at path ") {
        text.truncate(at);
    }
    if let Some(at) = text.find(" (os error ")
        && text.ends_with(')')
    {
        text.truncate(at);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::Permissions;
    use std::os::unix::fs::PermissionsExt;

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
        assert_eq!(reason(&e), "Is a directory");
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

    #[test]
    fn leftovers_of_dead_runs_of_ours_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        // A process that is gone: its PID, now free.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead = gone.id();
        gone.wait().unwrap();
        let me = std::process::id();
        let leftover = format!(".linerate-packets.{dead}.00a1b2c3d4.tmp");
        let keep = [
            // A live process's (ours).
            format!(".linerate-packets.{me}.00a1b2c3d4.tmp"),
            // Not a name we make.
            format!(".linerate-packets.{dead}.tmp"),
            format!("linerate-packets.{dead}.00a1b2c3d4.tmp"),
            ".linerate-packets.abcdef.tmp".to_string(),
        ];
        for name in keep.iter().chain([&leftover]) {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        // A dead process's, but a directory or a link: not ours to remove.
        let odd = format!(".linerate-report.{dead}.0000000001.tmp");
        std::fs::create_dir(dir.path().join(&odd)).unwrap();
        let link = format!(".linerate-report.{dead}.0000000002.tmp");
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join(&link)).unwrap();
        write_out(&dir.path().join("out"), b"new");
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected: Vec<String> = keep.to_vec();
        expected.extend([odd, link, "out".to_string()]);
        expected.sort();
        assert_eq!(left, expected);
        assert_eq!(leftover_pid(OsStr::new(&leftover)), Some(dead as i32));
    }

    #[test]
    fn reasons_are_words() {
        let e = io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Permission denied (os error 13)",
        );
        assert_eq!(reason(&e), "Permission denied");
        assert_eq!(
            reason(&io::Error::from_raw_os_error(13)),
            "Permission denied"
        );
        let e = io::Error::other("Permission denied (os error 13) at path \"/x/.t\"");
        assert_eq!(reason(&e), "Permission denied");
    }
}
