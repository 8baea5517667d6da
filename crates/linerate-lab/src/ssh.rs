//! OpenSSH's 2007 experiment again: bulk transfers to localhost, once per
//! MAC, over a real SSH connection (`linerate speed ssh`, and a table of
//! the full lab where OpenSSH is installed).
//!
//! A private `sshd` from the machine's OpenSSH runs on 127.0.0.1 only, on a
//! free port it is seen to hold, as the current user, with its own
//! configuration, host key and a throwaway client key in a directory only
//! that user can enter (0700, its files 0600, whatever the umask; under
//! `$XDG_RUNTIME_DIR`, `/run` for root or `~/.cache/linerate`, never /tmp:
//! StrictModes stays on); the system's sshd, its configuration and its
//! keys are never read or touched. The client key may run the transfer
//! command only; root may log in only where linerate runs as root, and
//! then only to run it; the client accepts only the server's own host key.
//! The server and the clients die with linerate, SIGKILL included, and a
//! later run removes a killed run's directory. (Run as root, OpenSSH
//! insists on its privilege-separation directory `/run/sshd`, an empty
//! directory Debian's init makes at boot; where it is missing it is made,
//! 0755, and left: several runs at once share it, and one removing it
//! would break another's connections.) Each
//! transfer sends the same number of zero bytes through `ssh ... 'cat >
//! /dev/null'` with the cipher fixed at aes128-ctr (2007's arcfour256 is
//! gone; AES-CTR is its nearest living relative: a stream cipher mode, no
//! MAC of its own) and one MAC, plus chacha20-poly1305 and aes128-gcm, the
//! AEAD ciphers that need no separate MAC. The MACs alternate within each
//! trial; medians and spreads over the trials. Everything is stopped and
//! removed at the end and on an error; a program that handles SIGINT or
//! SIGTERM calls [`stop_running`] first (`linerate` does).

use std::fs::Permissions;
use std::io::{self, Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::cells::{Context, Rate};
use crate::permac;
use crate::seeds::{self, OPENSSH_UMAC_OVER_HMAC_MD5_PERCENT, OPENSSH_UMAC_OVER_HMAC_SHA1_PERCENT};
use crate::table::{Cell, Table, Unit, Value};
use crate::timing::{Measurement, NOISY_SPREAD};

/// What to transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SshRequest {
    /// Bytes per transfer.
    pub bytes: u64,
    /// Trials per configuration (each trial runs every configuration once).
    pub trials: usize,
}

impl SshRequest {
    pub const FULL: SshRequest = SshRequest {
        bytes: 1 << 30,
        trials: 3,
    };
    pub const QUICK: SshRequest = SshRequest {
        bytes: 4 << 20,
        trials: 1,
    };
}

/// The fixed cipher of the MAC rows.
pub const CIPHER: &str = "aes128-ctr";

/// The MACs timed, in the 2007 mail's order first, then their successors;
/// the `-etm` forms (encrypt-then-MAC) after the plain ones.
pub const MACS: [&str; 16] = [
    "hmac-md5",
    "hmac-md5-96",
    "hmac-sha1",
    "hmac-sha1-96",
    "umac-64@openssh.com",
    "umac-128@openssh.com",
    "hmac-sha2-256",
    "hmac-sha2-512",
    "hmac-md5-etm@openssh.com",
    "hmac-md5-96-etm@openssh.com",
    "hmac-sha1-etm@openssh.com",
    "hmac-sha1-96-etm@openssh.com",
    "umac-64-etm@openssh.com",
    "umac-128-etm@openssh.com",
    "hmac-sha2-256-etm@openssh.com",
    "hmac-sha2-512-etm@openssh.com",
];

/// The AEAD references: their own authentication, no MAC.
pub const AEADS: [&str; 2] = ["chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com"];

/// OpenSSH's bulk channel packets carry 32 KiB: linerate's MAC is timed on
/// packets of this size.
pub const PACKET_BYTES: usize = 32 << 10;

/// One configuration: a cipher and, for the MAC rows, a MAC.
#[derive(Clone, Debug)]
struct Config {
    cipher: &'static str,
    mac: Option<&'static str>,
}

impl Config {
    fn label(&self) -> String {
        match self.mac {
            Some(mac) => format!("{} + {mac}", self.cipher),
            None => format!("{} (AEAD)", self.cipher),
        }
    }

    /// The key cells are filed under: the MAC's name, or the AEAD cipher's.
    fn name(&self) -> &'static str {
        self.mac.unwrap_or(self.cipher)
    }
}

/// One transfer: wall seconds, the client's and the server session's CPU
/// seconds.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    wall: f64,
    client_cpu: f64,
    server_cpu: f64,
}

/// The programs, found.
struct Tools {
    sshd: PathBuf,
    ssh: PathBuf,
    keygen: PathBuf,
}

fn find(name: &str, extra: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn tools() -> Result<Tools, String> {
    let sbin = ["/usr/sbin", "/usr/local/sbin", "/sbin"];
    Ok(Tools {
        sshd: find("sshd", &sbin)
            .ok_or("OpenSSH's server (sshd) is not installed (Debian: openssh-server)")?,
        ssh: find("ssh", &[]).ok_or("OpenSSH's client (ssh) is not installed")?,
        keygen: find("ssh-keygen", &[]).ok_or("ssh-keygen is not installed")?,
    })
}

/// The private server: its directory, process, port and user. Dropping it
/// stops the server and removes what it made.
///
/// The server and every ssh client are started with `PR_SET_PDEATHSIG`,
/// which the kernel ties to the *thread* that started them: they are all
/// started and stopped within one call of [`transfers`], on the thread
/// that made the call, so that thread outlives them (a `PrivateSshd` is
/// never handed to another thread).
pub struct PrivateSshd {
    dir: PathBuf,
    child: Option<Child>,
    port: u16,
    user: String,
}

/// The server being run, for the signal handler.
static RUNNING: Mutex<Option<(u32, PathBuf)>> = Mutex::new(None);

/// The private directory's name: `linerate-sshd-PID`, so that a later run
/// can tell a killed run's leftovers from a live run's.
const DIR_PREFIX: &str = "linerate-sshd-";

/// The one command the client key may run (sshd forces it, whatever the
/// client asks): the session process (the shell's parent) reports its own
/// CPU time once everything has arrived.
const TRANSFER_COMMAND: &str = "cat > /dev/null; cat /proc/$PPID/stat";

impl PrivateSshd {
    fn start(tools: &Tools) -> Result<PrivateSshd, String> {
        let me = sys::current_user().ok_or("who this process runs as is unknown (getpwuid)")?;
        let base = private_base(&me)?;
        remove_stale(&base, me.uid);
        // Where versions before issue 32 put it (and a SIGKILL left it).
        remove_stale(&std::env::temp_dir(), me.uid);
        let dir = base.join(format!("{DIR_PREFIX}{}", std::process::id()));
        make_private_dir(&dir, me.uid)?;
        let mut server = PrivateSshd {
            dir,
            child: None,
            port: 0,
            user: me.name,
        };
        server.prepare(tools, me.uid)?;
        // A free port can be taken between asking and binding: try again.
        let mut last = String::new();
        for _ in 0..3 {
            match server.spawn(tools) {
                Ok(()) => return Ok(server),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn prepare(&mut self, tools: &Tools, uid: u32) -> Result<(), String> {
        for key in ["host", "client"] {
            let mut keygen = Command::new(&tools.keygen);
            keygen
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "linerate-lab", "-f"])
                .arg(self.dir.join(key))
                .stdin(Stdio::null());
            sys::private_child(&mut keygen);
            let out = keygen.output().map_err(|e| format!("ssh-keygen: {e}"))?;
            if !out.status.success() {
                return Err(format!("ssh-keygen failed: {}", first_line(&out.stderr)));
            }
            // ssh-keygen writes the public half with the umask's mode.
            for file in [key.to_string(), format!("{key}.pub")] {
                owner_only(&self.dir.join(file), uid)?;
            }
        }
        let client = self.read("client.pub")?;
        // The key may run the transfer and nothing else: no shell, no
        // forwarding, no terminal (and, as root, no other login at all:
        // PermitRootLogin forced-commands-only).
        write_private(
            &self.dir.join("authorized_keys"),
            &format!(
                "restrict,command=\"{TRANSFER_COMMAND}\" {}\n",
                client.trim()
            ),
        )?;
        // As root, sshd refuses to start without its privilege-separation
        // directory (Debian's init makes it at boot), owned by root and
        // writable by no one else.
        let privsep = Path::new("/run/sshd");
        if sys::is_root() && !privsep.exists() {
            match std::fs::DirBuilder::new().mode(0o755).create(privsep) {
                Ok(()) => std::fs::set_permissions(privsep, Permissions::from_mode(0o755))
                    .map_err(|e| format!("/run/sshd: {e}"))?,
                // Another run made it first.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("/run/sshd: {e}")),
            }
        }
        Ok(())
    }

    fn read(&self, name: &str) -> Result<String, String> {
        std::fs::read_to_string(self.dir.join(name)).map_err(|e| format!("{name}: {e}"))
    }

    fn spawn(&mut self, tools: &Tools) -> Result<(), String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port on 127.0.0.1: {e}"))?
            .port();
        // The client trusts this host key on this port and nothing else: a
        // process that took the port first cannot pass for the server.
        let host_key = self.read("host.pub")?;
        let mut host_key = host_key.split_whitespace();
        let (Some(kind), Some(blob)) = (host_key.next(), host_key.next()) else {
            return Err("host.pub: not a public key".into());
        };
        write_private(
            &self.dir.join("known_hosts"),
            &format!("[127.0.0.1]:{port} {kind} {blob}\n"),
        )?;
        let d = self.dir.display();
        let macs = MACS.join(",");
        // A connection that never authenticates ends within 30 s, also
        // one opened just before linerate ended (sshd's connection
        // processes are its own, not ours to signal). Root logs in only
        // where linerate itself runs as root (a server not run as root can
        // only log its own user in), and then only to run the forced
        // transfer command.
        let root_login = if sys::is_root() {
            "forced-commands-only"
        } else {
            "no"
        };
        let config = format!(
            "ListenAddress 127.0.0.1\nAddressFamily inet\nPort {port}\nHostKey {d}/host\n\
             PidFile none\nAuthorizedKeysFile {d}/authorized_keys\n\
             AuthenticationMethods publickey\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nHostbasedAuthentication no\nUsePAM no\n\
             StrictModes yes\nPermitRootLogin {root_login}\nAllowUsers {}\n\
             PermitUserEnvironment no\nAllowTcpForwarding no\nAllowAgentForwarding no\n\
             AllowStreamLocalForwarding no\nX11Forwarding no\nPermitTunnel no\nPermitTTY no\n\
             LoginGraceTime 30\n\
             Compression no\nUseDNS no\nLogLevel ERROR\nCiphers {CIPHER},{}\nMACs {macs}\n",
            self.user,
            AEADS.join(",")
        );
        let config_path = self.dir.join("sshd_config");
        write_private(&config_path, &config)?;
        let mut sshd = Command::new(&tools.sshd);
        sshd.arg("-D")
            .arg("-e")
            .arg("-f")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        sys::private_child(&mut sshd);
        let child = sshd
            .spawn()
            .map_err(|e| format!("{}: {e}", tools.sshd.display()))?;
        let pid = child.id();
        *RUNNING.lock().unwrap_or_else(|p| p.into_inner()) = Some((pid, self.dir.clone()));
        self.child = Some(child);
        self.port = port;
        // Listening: the server holds a listening socket on 127.0.0.1:port
        // (a connection accepted could be another process's).
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if listens_on(pid, port) {
                return Ok(());
            }
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                let mut err = String::new();
                if let Some(mut e) = self.child.as_mut().and_then(|c| c.stderr.take()) {
                    let _ = e.read_to_string(&mut err);
                }
                self.child = None;
                return Err(format!(
                    "sshd exited ({status}): {}",
                    first_line(err.as_bytes())
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        Err("sshd did not start listening within 5 s".into())
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// One transfer of `bytes` zero bytes with `config`.
    fn transfer(&self, tools: &Tools, config: &Config, bytes: u64) -> Result<Transfer, String> {
        let d = &self.dir;
        let mut cmd = Command::new(&tools.ssh);
        cmd.args([
            "-F",
            "/dev/null",
            "-T",
            "-o",
            "BatchMode=yes",
            "-o",
            "IdentitiesOnly=yes",
        ])
        .args([
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "GlobalKnownHostsFile=/dev/null",
            "-o",
            "HostKeyAlgorithms=ssh-ed25519",
            "-o",
            "UpdateHostKeys=no",
            "-o",
            "CheckHostIP=no",
            "-o",
            "Compression=no",
            "-o",
            "LogLevel=ERROR",
        ])
        .arg("-o")
        .arg(format!(
            "UserKnownHostsFile={}",
            d.join("known_hosts").display()
        ))
        .arg("-i")
        .arg(d.join("client"))
        .args(["-l", &self.user])
        .args(["-p", &self.port.to_string(), "-c", config.cipher]);
        if let Some(mac) = config.mac {
            cmd.args(["-m", mac]);
        }
        // The server runs its forced command whatever is asked; the same
        // command is asked for clarity.
        cmd.arg("127.0.0.1")
            .arg(TRANSFER_COMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        sys::private_child(&mut cmd);
        let start = Instant::now();
        let mut child = cmd.spawn().map_err(|e| format!("ssh: {e}"))?;
        let mut stdin = child.stdin.take().ok_or("ssh: no stdin")?;
        let writer = std::thread::spawn(move || -> io::Result<()> {
            let zeros = vec![0u8; 1 << 20];
            let mut left = bytes;
            while left > 0 {
                let n = left.min(zeros.len() as u64) as usize;
                stdin.write_all(&zeros[..n])?;
                left -= n as u64;
            }
            Ok(())
        });
        let mut out = String::new();
        let mut err = String::new();
        if let Some(mut o) = child.stdout.take() {
            let _ = o.read_to_string(&mut out);
        }
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        let (status, client_cpu) = wait_with_cpu(&mut child)?;
        let wall = start.elapsed().as_secs_f64();
        let wrote = writer
            .join()
            .map_err(|_| "the writer panicked".to_string())?;
        if !status {
            // ssh's last line is the reason it gave up (a banner, such as
            // a changed host key's, comes before it).
            return Err(format!(
                "ssh {}: {}",
                config.label(),
                last_line(err.as_bytes())
            ));
        }
        wrote.map_err(|e| format!("ssh {}: writing: {e}", config.label()))?;
        let server_cpu = stat_cpu_seconds(&out)
            .ok_or_else(|| format!("ssh {}: no CPU time from the server", config.label()))?;
        Ok(Transfer {
            wall,
            client_cpu,
            server_cpu,
        })
    }
}

impl Drop for PrivateSshd {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
        *RUNNING.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Where the private directory goes. sshd's StrictModes walks from
/// `authorized_keys` up to the user's home directory (or `/`) and refuses
/// any directory on the way that is writable by group or others or owned
/// by someone but the user or root: a directory under the world-writable
/// /tmp can never pass. The first place whose whole chain passes:
/// `$XDG_RUNTIME_DIR`, `/run` for root, `~/.cache/linerate` (made 0700).
fn private_base(me: &sys::User) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .into_iter()
        .collect();
    if me.uid == 0 {
        candidates.push(PathBuf::from("/run"));
    }
    for base in candidates {
        match private_chain(&base, me) {
            Ok(()) => return Ok(base),
            Err(why) => tried.push(why),
        }
    }
    let cache = me.home.join(".cache");
    let base = cache.join("linerate");
    for dir in [&cache, &base] {
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                tried.push(format!("{}: {e}", dir.display()));
                break;
            }
        }
    }
    match private_chain(&base, me) {
        Ok(()) => Ok(base),
        Err(why) => {
            tried.push(why);
            Err(format!(
                "no private directory for the server's keys (sshd's StrictModes): {}",
                tried.join("; ")
            ))
        }
    }
}

/// Whether `dir` and every directory above it, up to the home directory
/// or `/`, is owned by the user or root and writable by no one else (the
/// walk sshd's StrictModes makes); else which one is not.
fn private_chain(dir: &Path, me: &sys::User) -> Result<(), String> {
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let home = me.home.canonicalize().ok();
    let mut at = Some(dir.as_path());
    while let Some(d) = at {
        let meta = std::fs::metadata(d).map_err(|e| format!("{}: {e}", d.display()))?;
        if !meta.is_dir() || (meta.uid() != 0 && meta.uid() != me.uid) || meta.mode() & 0o022 != 0 {
            return Err(format!(
                "{}: writable by others or not owned by the user",
                d.display()
            ));
        }
        if home.as_deref() == Some(d) {
            break;
        }
        at = d.parent();
    }
    Ok(())
}

/// Makes `dir` 0700 whatever the umask. A leftover of this user's at the
/// same name (a killed run whose pid came round again) is removed first;
/// anything else there is refused.
fn make_private_dir(dir: &Path, uid: u32) -> Result<(), String> {
    let create = || std::fs::DirBuilder::new().mode(0o700).create(dir);
    match create() {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let ours = std::fs::symlink_metadata(dir)
                .is_ok_and(|m| m.file_type().is_dir() && m.uid() == uid);
            if !ours {
                return Err(format!("{}: exists and is not this user's", dir.display()));
            }
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            create().map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    // The umask may have taken bits away (never added any).
    std::fs::set_permissions(dir, Permissions::from_mode(0o700))
        .map_err(|e| format!("{}: {e}", dir.display()))
}

/// Removes what killed runs left in `base`: directories named
/// `linerate-sshd-PID`, owned by this user, whose process is gone.
/// Symbolic links are never followed, other users' directories never
/// touched.
fn remove_stale(base: &Path, uid: u32) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(DIR_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        // Exactly the name a run makes ("+5" or "05" are someone else's).
        if name.to_str() != Some(&format!("{DIR_PREFIX}{pid}")) || pid == std::process::id() {
            continue;
        }
        let path = entry.path();
        let stale = std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.file_type().is_dir() && m.uid() == uid)
            && !sys::process_exists(pid);
        if stale {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Writes a new file only its owner may read or write, whatever the umask.
fn write_private(path: &Path, contents: &str) -> Result<(), String> {
    let name = || path.file_name().unwrap_or_default().to_string_lossy();
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", name())),
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", name()))?;
    file.set_permissions(Permissions::from_mode(0o600))
        .and_then(|()| file.write_all(contents.as_bytes()))
        .map_err(|e| format!("{}: {e}", name()))
}

/// Makes a file another program wrote 0600, after checking that it is a
/// plain file of this user's.
fn owner_only(path: &Path, uid: u32) -> Result<(), String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{name}: {e}"))?;
    if !meta.file_type().is_file() || meta.uid() != uid {
        return Err(format!("{name}: not a file of this user's"));
    }
    std::fs::set_permissions(path, Permissions::from_mode(0o600))
        .map_err(|e| format!("{name}: {e}"))
}

/// Stops the server this process runs, if any, and removes its files:
/// for a program's SIGINT/SIGTERM handler (the signals are the program's
/// to handle: `linerate` calls this from its one signal thread before it
/// exits). Safe to call at any time, from any thread.
pub fn stop_running() {
    if let Some((pid, dir)) = RUNNING.lock().unwrap_or_else(|p| p.into_inner()).take() {
        sys::terminate(pid);
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Waits for `child`; whether it succeeded and its CPU seconds (user +
/// system) from the kernel's accounting of the reaped process.
fn wait_with_cpu(child: &mut Child) -> Result<(bool, f64), String> {
    sys::wait4(child.id()).map_err(|e| format!("waiting for ssh: {e}"))
}

/// The process calls std has no wrapper for.
mod sys {
    #![allow(unsafe_code)]

    /// Reaps `pid`: whether it exited 0, and its user + system seconds.
    pub fn wait4(pid: u32) -> std::io::Result<(bool, f64)> {
        let mut status = 0;
        // SAFETY: `rusage` is plain data the kernel fills in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: `pid` is our child, not yet reaped (std never waited
            // for it); `status` and `usage` are valid for writing.
            let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
            if r >= 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Ok((ok, secs(usage.ru_utime) + secs(usage.ru_stime)))
    }

    /// Clock ticks per second, the unit of /proc's CPU times.
    pub fn clock_ticks() -> f64 {
        // SAFETY: sysconf reads a constant.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if hz > 0 { hz as f64 } else { 100.0 }
    }

    pub fn is_root() -> bool {
        // SAFETY: geteuid cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    /// The user this process runs as (its effective uid).
    pub struct User {
        pub uid: u32,
        pub name: String,
        pub home: std::path::PathBuf,
    }

    pub fn current_user() -> Option<User> {
        use std::ffi::{CStr, OsStr};
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: geteuid cannot fail.
        let uid = unsafe { libc::geteuid() };
        let mut buf = vec![0 as libc::c_char; 16 << 10];
        // SAFETY: `passwd` is plain data that getpwuid_r fills in.
        let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the length given; the strings
        // it stores point into `buf`, which outlives their use below.
        let r = unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut found) };
        if r != 0 || found.is_null() || pw.pw_name.is_null() || pw.pw_dir.is_null() {
            return None;
        }
        // SAFETY: getpwuid_r succeeded: both are NUL-terminated strings in `buf`.
        let (name, home) = unsafe { (CStr::from_ptr(pw.pw_name), CStr::from_ptr(pw.pw_dir)) };
        Some(User {
            uid,
            name: name.to_str().ok()?.to_string(),
            home: OsStr::from_bytes(home.to_bytes()).into(),
        })
    }

    /// Whether process `pid` exists (ours to signal or not).
    pub fn process_exists(pid: u32) -> bool {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: signal 0 only checks; `pid` is positive, so it names one
        // process, never a group.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }

    /// Makes `cmd`'s process die with this one, by any signal (SIGKILL
    /// included: the kernel sends it SIGKILL when the thread that started
    /// it ends), and create its files for its owner only.
    pub fn private_child(cmd: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: between fork and exec the closure calls only
        // async-signal-safe functions (prctl, getppid, umask) and
        // allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before prctl: then no signal
                // comes, and the child is another process's.
                if libc::getppid() != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                libc::umask(0o077);
                Ok(())
            });
        }
    }

    /// SIGTERM to `pid` (our sshd).
    pub fn terminate(pid: u32) {
        // SAFETY: a plain signal to our own child.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
        }
    }
}

/// Whether process `pid` holds a socket listening on 127.0.0.1:`port`
/// (from /proc/net/tcp and the process's descriptors).
fn listens_on(pid: u32, port: u16) -> bool {
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return false;
    };
    let loopback = u32::from_ne_bytes([127, 0, 0, 1]);
    // "sl local_address rem_address st ... inode": local is ADDR:PORT in
    // hex, the address in the kernel's byte order; st 0A is LISTEN.
    let inodes: Vec<String> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (addr, p) = f.get(1)?.split_once(':')?;
            let ours = u32::from_str_radix(addr, 16).ok()? == loopback
                && u16::from_str_radix(p, 16).ok()? == port
                && *f.get(3)? == "0A";
            let inode = f.get(9)?;
            ours.then(|| format!("socket:[{inode}]"))
        })
        .collect();
    if inodes.is_empty() {
        return false;
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .is_ok_and(|target| inodes.iter().any(|i| target.as_os_str() == i.as_str()))
    })
}

/// User + system seconds from a `/proc/PID/stat` line (fields 14 and 15,
/// in clock ticks, counted after the command name's closing parenthesis).
fn stat_cpu_seconds(stat: &str) -> Option<f64> {
    let line = stat.lines().rev().find(|l| l.contains(')'))?;
    let rest = &line[line.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ')': state is field 3, so utime (14) is index 11, stime index 12.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / sys::clock_ticks())
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn configs() -> Vec<Config> {
    MACS.iter()
        .map(|&mac| Config {
            cipher: CIPHER,
            mac: Some(mac),
        })
        .chain(AEADS.iter().map(|&cipher| Config { cipher, mac: None }))
        .collect()
}

/// The median and (max - min) / median of `v` (not empty).
fn median_spread(v: &[f64]) -> (f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = linerate::clock::median_of_sorted(&s);
    (
        m,
        if m > 0.0 {
            (s[s.len() - 1] - s[0]) / m
        } else {
            0.0
        },
    )
}

/// linerate's own MAC, for the MACs it has, on one `PACKET_BYTES` packet:
/// its name in the per-packet jobs.
fn linerate_mac(mac: &str) -> Option<&'static str> {
    let base = mac
        .split('@')
        .next()
        .unwrap_or(mac)
        .trim_end_matches("-etm");
    match base {
        "hmac-md5" | "hmac-md5-96" => Some("hmac-md5"),
        "hmac-sha1" | "hmac-sha1-96" => Some("hmac-sha1"),
        "umac-64" => Some("umac-64"),
        "umac-128" => Some("umac-128"),
        _ => None,
    }
}

/// Cells the section reports to a progress bar: every transfer, the
/// host-key connection, and linerate's MACs.
pub fn cell_count(request: SshRequest) -> u64 {
    let ours = MACS.iter().filter(|m| linerate_mac(m).is_some()).count();
    ((MACS.len() + AEADS.len()) * request.trials.max(1) + 1 + ours) as u64
}

/// The section: the transfers' table and the then-and-now table; where
/// OpenSSH cannot be run, one table that says why.
pub fn measure(ctx: &Context<'_>, request: SshRequest) -> Vec<Table> {
    match transfers(ctx, request) {
        Ok(results) => {
            let bulk = bulk_table(ctx, request, &results);
            let then = then_and_now(&bulk);
            vec![bulk, then]
        }
        Err(why) => vec![not_measured(&why)],
    }
}

/// The section's table where nothing was measured, saying why in one line.
pub fn not_measured(why: &str) -> Table {
    let mut t = Table::new(
        "ssh_bulk",
        "Bulk transfers to localhost over OpenSSH, one MAC at a time",
        &["configuration", "MB/s"],
    );
    t.row(
        "openssh",
        vec![Cell::new(
            "openssh",
            "mb_per_second",
            Unit::Number,
            Value::NotAvailable(why.to_string()),
        )],
    );
    t.seeds.push(&seeds::OPENSSH2007);
    t
}

type Results = Vec<(Config, Vec<Transfer>)>;

/// Every configuration's transfers, the configurations alternating in
/// each trial.
fn transfers(ctx: &Context<'_>, request: SshRequest) -> Result<Results, String> {
    let tools = tools()?;
    let server = PrivateSshd::start(&tools)?;
    let mut results: Results = configs().into_iter().map(|c| (c, Vec::new())).collect();
    // A first connection records the host key (not timed).
    ctx.progress.start("ssh: first connection");
    let first = server.transfer(&tools, &results[0].0, 1);
    ctx.progress.done();
    first?;
    for _ in 0..request.trials.max(1) {
        for (config, runs) in &mut results {
            ctx.progress.start(&format!("ssh {}", config.label()));
            let run = server.transfer(&tools, config, request.bytes);
            ctx.progress.done();
            runs.push(run?);
        }
    }
    drop(server);
    Ok(results)
}

fn bulk_table(ctx: &Context<'_>, request: SshRequest, results: &Results) -> Table {
    let mut t = Table::new(
        "ssh_bulk",
        "Bulk transfers to localhost over OpenSSH, one MAC at a time (medians)",
        &[
            "configuration",
            "MB/s",
            "client CPU s/GiB",
            "server CPU s/GiB",
            "linerate's MAC, MB/s at 32 KiB",
            "MAC share at linerate's speed, %",
        ],
    );
    let gib = request.bytes as f64 / (1u64 << 30) as f64;
    for (config, runs) in results {
        let name = config.name();
        let rates: Vec<f64> = runs
            .iter()
            .map(|r| request.bytes as f64 / r.wall / 1e6)
            .collect();
        let (mbps, spread) = median_spread(&rates);
        let measured = |v: f64, spread: f64| {
            Value::Measured(
                v,
                Measurement {
                    seconds: 0.0,
                    spread,
                    trials: runs.len(),
                    calls: 1,
                },
            )
        };
        let (client, cs) =
            median_spread(&runs.iter().map(|r| r.client_cpu / gib).collect::<Vec<_>>());
        let (server, ss) =
            median_spread(&runs.iter().map(|r| r.server_cpu / gib).collect::<Vec<_>>());
        // linerate's MAC on one OpenSSH-sized packet, as MB/s.
        let ours = match config.mac.and_then(linerate_mac) {
            Some(job_name) => ctx.cell(
                &format!("{job_name} {PACKET_BYTES} bytes"),
                1,
                &|| permac::job(job_name, PACKET_BYTES, false),
                Rate::PerSecond(PACKET_BYTES as f64 / 1e6),
            ),
            None if config.mac.is_none() => Value::NotAvailable("AEAD: no separate MAC".into()),
            None => Value::NotAvailable("not in linerate".into()),
        };
        // The MAC's share of the server's CPU per GiB at linerate's speed:
        // (1 GiB / linerate's rate) / the server's CPU seconds per GiB.
        let share = match ours.number() {
            Some(r) if r > 0.0 && server > 0.0 => {
                Value::Derived(100.0 * ((1u64 << 30) as f64 / 1e6 / r) / server)
            }
            Some(_) => Value::NotAvailable("no server CPU time measured".into()),
            // Said once, in the linerate column.
            None => Value::Text("-".into()),
        };
        t.row(
            config.label(),
            vec![
                Cell::new(name, "mb_per_second", Unit::Number, measured(mbps, spread)),
                Cell::new(
                    name,
                    "client_cpu_s_per_gib",
                    Unit::Number,
                    measured(client, cs),
                ),
                Cell::new(
                    name,
                    "server_cpu_s_per_gib",
                    Unit::Number,
                    measured(server, ss),
                ),
                Cell::new(name, "linerate_mb_per_second", Unit::Number, ours)
                    .bytes(PACKET_BYTES as u64),
                Cell::new(name, "mac_share", Unit::Number, share),
            ],
        );
    }
    t.note(format!(
        "{} of zeros per transfer through 'ssh ... cat > /dev/null' to a private sshd on 127.0.0.1, \
         {} trials, every configuration once per trial, alternating; medians, '?' where the \
         trials differ by more than {:.0}%. The cipher is {CIPHER} (2007's arcfour256 is gone; \
         AES-CTR is its nearest living relative); the AEAD rows need no MAC. CPU: the ssh \
         client's and the server session process's user + system seconds per GiB. linerate's \
         MAC: one 32 KiB packet (OpenSSH's bulk packet) with the key set up once, on one core. \
         MAC share: the time linerate's MAC would take for 1 GiB, against the server's CPU \
         seconds per GiB.",
        human(request.bytes),
        request.trials.max(1),
        NOISY_SPREAD * 100.0
    ));
    t.seeds.push(&seeds::OPENSSH2007);
    t
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// The 2007 mail's relative figures beside today's from the same run.
pub fn then_and_now(bulk: &Table) -> Table {
    let mut t = Table::new(
        "ssh_then_and_now",
        "Then and now: OpenSSH 2007 and OpenSSH today, bulk transfers to localhost",
        &["comparison", "2007 (quoted)", "now (this run)"],
    );
    let rate = |mac: &str| {
        bulk.cells()
            .find(|c| c.algorithm == mac && c.key == "mb_per_second")
            .and_then(|c| c.value.number())
    };
    let faster = |slow: Option<f64>, fast: Option<f64>| match (slow, fast) {
        (Some(s), Some(f)) if s > 0.0 => Value::Derived((f / s - 1.0) * 100.0),
        _ => Value::NotAvailable("not measured in this run".into()),
    };
    let umac = rate("umac-64@openssh.com");
    let umac_etm = rate("umac-64-etm@openssh.com");
    let rows = [
        (
            "umac-64 over hmac-md5",
            Value::Quoted(OPENSSH_UMAC_OVER_HMAC_MD5_PERCENT),
            faster(rate("hmac-md5"), umac),
        ),
        (
            "umac-64 over hmac-sha1",
            Value::Quoted(OPENSSH_UMAC_OVER_HMAC_SHA1_PERCENT),
            faster(rate("hmac-sha1"), umac),
        ),
        (
            "umac-64-etm over hmac-md5-etm",
            Value::NotAvailable("no -etm MACs in 2007".into()),
            faster(rate("hmac-md5-etm@openssh.com"), umac_etm),
        ),
        (
            "umac-64-etm over hmac-sha2-256-etm",
            Value::NotAvailable("no SHA-2 MACs in 2007".into()),
            faster(rate("hmac-sha2-256-etm@openssh.com"), umac_etm),
        ),
        (
            "chacha20-poly1305 over aes128-ctr + umac-64-etm",
            Value::NotAvailable("no AEAD ciphers in 2007".into()),
            faster(umac_etm, rate("chacha20-poly1305@openssh.com")),
        ),
        (
            "aes128-gcm over aes128-ctr + umac-64-etm",
            Value::NotAvailable("no AEAD ciphers in 2007".into()),
            faster(umac_etm, rate("aes128-gcm@openssh.com")),
        ),
    ];
    for (label, then, now) in rows {
        t.row(
            label,
            vec![
                Cell::new("ssh", "then_faster_percent", Unit::Percent, then),
                Cell::new("ssh", "faster_percent", Unit::Percent, now),
            ],
        );
    }
    t.note(
        "Reusing the MAC context: +12 to +16% for HMAC-MD5 bulk transfers in 2007 (quoted); \
         OpenSSH has reused it ever since, so it cannot be switched off to measure again; the \
         per-packet table above gives the same comparison for the MAC alone.",
    );
    t.seeds.push(&seeds::OPENSSH2007);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proc_stat_line_gives_user_plus_system_seconds() {
        let hz = sys::clock_ticks();
        // pid (comm with ) and spaces) state ppid ... utime=150 stime=50
        let line = "1234 (sshd: a) b) S 1 2 3 4 5 6 7 8 9 10 150 50 0 0 20 0 1 0";
        assert_eq!(stat_cpu_seconds(line), Some(200.0 / hz));
        assert_eq!(stat_cpu_seconds("garbage"), None);
    }

    #[test]
    fn every_mac_maps_to_linerate_where_linerate_has_it() {
        assert_eq!(
            linerate_mac("hmac-md5-96-etm@openssh.com"),
            Some("hmac-md5")
        );
        assert_eq!(linerate_mac("umac-64@openssh.com"), Some("umac-64"));
        assert_eq!(linerate_mac("umac-128-etm@openssh.com"), Some("umac-128"));
        assert_eq!(linerate_mac("hmac-sha2-256"), None);
        assert_eq!(configs().len(), MACS.len() + AEADS.len());
    }

    /// A pid no process has: that of a child already reaped.
    fn gone_pid() -> u32 {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn only_this_users_leftovers_of_ended_runs_are_removed() {
        use std::os::unix::fs::symlink;
        let me = sys::current_user().unwrap();
        let base = std::env::temp_dir().join(format!("linerate-stale-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir(&base).unwrap();
        let dead = gone_pid();
        let at = |name: String| base.join(name);
        let stale = at(format!("{DIR_PREFIX}{dead}"));
        std::fs::create_dir(&stale).unwrap();
        std::fs::write(stale.join("authorized_keys"), "key").unwrap();
        // A live run's (this process, and pid 1), a name a run never
        // makes, and a link to a directory that must survive.
        let live = at(format!("{DIR_PREFIX}{}", std::process::id()));
        let init = at(format!("{DIR_PREFIX}1"));
        let odd = at(format!("{DIR_PREFIX}+{dead}"));
        let target = at("target".into());
        let link = at(format!("{DIR_PREFIX}{}", gone_pid()));
        for d in [&live, &init, &odd, &target] {
            std::fs::create_dir(d).unwrap();
        }
        symlink(&target, &link).unwrap();
        // Another user's directory, where this test can make one.
        let theirs = at(format!("{DIR_PREFIX}{}", gone_pid()));
        std::fs::create_dir(&theirs).unwrap();
        let chowned = std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).is_ok();
        remove_stale(&base, me.uid);
        assert!(!stale.exists());
        for kept in [&live, &init, &odd, &target] {
            assert!(kept.is_dir(), "{}", kept.display());
        }
        assert!(std::fs::symlink_metadata(&link).is_ok());
        assert_eq!(theirs.exists(), chowned);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn a_listening_socket_is_seen_as_its_holders_only() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(listens_on(std::process::id(), port));
        assert!(!listens_on(gone_pid(), port));
        drop(listener);
        assert!(!listens_on(std::process::id(), port));
    }

    /// What answers on the server's port must hold the server's host key:
    /// another sshd there (one that took the port) is refused before any
    /// byte is sent.
    #[test]
    fn the_client_talks_to_its_own_server_only() {
        let Ok(tools) = tools() else {
            eprintln!("skipped: OpenSSH is not installed");
            return;
        };
        let mut server = match PrivateSshd::start(&tools) {
            Ok(server) => server,
            Err(why) => {
                eprintln!("skipped: the private sshd does not start here: {why}");
                return;
            }
        };
        let config = &configs()[0];
        if let Err(why) = server.transfer(&tools, config, 1) {
            // (The user's account may be locked or have no shell.)
            eprintln!("skipped: no transfer to the private sshd here: {why}");
            return;
        }
        // The impostor: an sshd with a host key of its own.
        let other = server.dir.join("impostor");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&other)
            .unwrap();
        let keygen = Command::new(&tools.keygen)
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(other.join("host"))
            .status()
            .unwrap();
        assert!(keygen.success());
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let o = other.display();
        write_private(
            &other.join("sshd_config"),
            &format!(
                "ListenAddress 127.0.0.1\nPort {port}\nHostKey {o}/host\nPidFile none\n\
                 UsePAM no\nLogLevel QUIET\nCiphers {CIPHER}\nMACs {}\n",
                MACS.join(",")
            ),
        )
        .unwrap();
        let mut impostor = Command::new(&tools.sshd);
        impostor
            .args(["-D", "-f"])
            .arg(other.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        sys::private_child(&mut impostor);
        let mut impostor = impostor.spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline && !listens_on(impostor.id(), port) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // As if it held the server's port: the client's one entry names
        // the server's key at that port.
        let real_port = server.port;
        server.port = port;
        let known = std::fs::read_to_string(server.dir.join("known_hosts")).unwrap();
        let pinned = known.replace(
            &format!("[127.0.0.1]:{real_port} "),
            &format!("[127.0.0.1]:{port} "),
        );
        write_private(&server.dir.join("known_hosts"), &pinned).unwrap();
        let refused = server.transfer(&tools, config, 1);
        let _ = impostor.kill();
        let _ = impostor.wait();
        let why = refused.expect_err("the impostor was refused");
        assert_eq!(
            why,
            "ssh aes128-ctr + hmac-md5: Host key verification failed."
        );
    }

    #[test]
    fn a_directory_under_a_world_writable_one_is_not_private() {
        let me = sys::current_user().unwrap();
        let tmp = std::env::temp_dir();
        // /tmp is world-writable (sticky or not): sshd's StrictModes
        // refuses everything under it.
        if std::fs::metadata(&tmp).is_ok_and(|m| m.mode() & 0o002 != 0) {
            assert!(private_chain(&tmp, &me).is_err());
        }
        if me.uid == 0 {
            assert_eq!(private_chain(Path::new("/run"), &me), Ok(()));
        }
    }

    #[test]
    fn median_and_spread() {
        assert_eq!(median_spread(&[3.0, 1.0, 2.0]), (2.0, 1.0));
        assert_eq!(median_spread(&[2.0, 4.0]), (3.0, 2.0 / 3.0));
    }
}
