//! `linerate speed ssh`: the OpenSSH bulk-transfer section, run with small
//! transfers: every MAC row present with positive figures (or the whole
//! section explained where OpenSSH is missing), the 2007 quotations
//! present, and nothing left behind: no sshd running, no port listening,
//! no files, also after SIGINT. Never its speed.
//!
//! OpenSSH's server is a peer: missing, the tests note it and pass, unless
//! `LINERATE_PEERS=required` (scripts/test-all.sh installs
//! openssh-server).

use super::speed::table;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_linerate");

fn sshd_present(test: &str) -> bool {
    let found = ["/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"]
        .iter()
        .any(|p| Path::new(p).is_file());
    if !found {
        if std::env::var_os("LINERATE_PEERS").is_some_and(|v| v == "required") {
            panic!("{test}: OpenSSH's sshd is not installed (LINERATE_PEERS=required)");
        }
        eprintln!("{test}: skipped, OpenSSH's sshd is not installed");
    }
    found
}

/// The private server's directory of linerate process `pid`, read from
/// the command line of the sshd it started (`-f DIR/sshd_config`), where
/// ever the lab put it.
fn server_dir(pid: u32) -> Option<PathBuf> {
    let config = format!("linerate-sshd-{pid}/sshd_config");
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // sshd rewrites its command line into one string: split on spaces
        // as well as NULs.
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if let Some(arg) = cmdline.split(' ').find(|a| a.ends_with(&config)) {
            return Path::new(arg).parent().map(Path::to_path_buf);
        }
    }
    None
}

/// Every place a run's private directory could be: none may be left.
fn possible_server_dirs(pid: u32) -> Vec<PathBuf> {
    let name = format!("linerate-sshd-{pid}");
    let mut bases = vec![std::env::temp_dir(), PathBuf::from("/run")];
    bases.extend(std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from));
    bases.extend(std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/linerate")));
    bases.into_iter().map(|b| b.join(&name)).collect()
}

/// Processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        // A reaped-but-unwaited (zombie) process has an empty command line.
        if cmdline.contains(needle) {
            found.push(cmdline);
        }
    }
    found
}

/// The port the server of `dir` was configured to listen on.
fn configured_port(dir: &Path) -> Option<u16> {
    let config = std::fs::read_to_string(dir.join("sshd_config")).ok()?;
    config
        .lines()
        .find_map(|l| l.strip_prefix("Port "))
        .and_then(|p| p.trim().parse().ok())
}

#[test]
fn every_mac_row_is_there_with_figures_and_nothing_is_left() {
    let test = "every_mac_row_is_there_with_figures_and_nothing_is_left";
    let child = Command::new(BIN)
        .args(["speed", "ssh", "--quick", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run linerate");
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lab: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let bulk = table(&lab, "ssh_bulk");
    if !sshd_present(test) {
        // The section says why in one place.
        let cell = &bulk["cells"][0];
        assert_eq!(cell["kind"], "not_available");
        assert!(cell["not_available"].as_str().unwrap().contains("sshd"));
        return;
    }
    let rows: Vec<&str> = bulk["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    for mac in [
        "hmac-md5",
        "hmac-md5-96",
        "hmac-sha1",
        "umac-64@openssh.com",
        "umac-128@openssh.com",
        "hmac-sha2-256",
        "hmac-sha2-512",
        "hmac-md5-etm@openssh.com",
        "umac-64-etm@openssh.com",
        "hmac-sha2-512-etm@openssh.com",
    ] {
        assert!(
            rows.contains(&format!("aes128-ctr + {mac}").as_str()),
            "{mac} in {rows:?}"
        );
    }
    for aead in ["chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com"] {
        assert!(rows.contains(&format!("{aead} (AEAD)").as_str()), "{aead}");
    }
    let cells = bulk["cells"].as_array().unwrap();
    for label in &rows {
        let cell = |key: &str| {
            cells
                .iter()
                .find(|c| c["row"] == *label && c["key"] == key)
                .unwrap_or_else(|| panic!("{label} {key}"))
        };
        let rate = cell("mb_per_second")["mb_per_second"].as_f64().unwrap();
        assert!(rate.is_finite() && rate > 0.0, "{label}: {rate}");
        for key in ["client_cpu_s_per_gib", "server_cpu_s_per_gib"] {
            let v = cell(key)[key].as_f64().unwrap();
            assert!(v.is_finite() && v >= 0.0, "{label} {key}: {v}");
        }
    }
    // linerate's own figure where linerate has the MAC.
    let ours = cells
        .iter()
        .find(|c| {
            c["row"] == "aes128-ctr + umac-64@openssh.com" && c["key"] == "linerate_mb_per_second"
        })
        .unwrap();
    assert!(ours["linerate_mb_per_second"].as_f64().unwrap() > 0.0);
    // The 2007 mail's figures beside today's.
    let then = table(&lab, "ssh_then_and_now");
    let quoted: Vec<f64> = then["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "quoted")
        .filter_map(|c| c["then_faster_percent"].as_f64())
        .collect();
    assert!(
        quoted.contains(&20.0) && quoted.contains(&28.0),
        "{quoted:?}"
    );
    let seeds = bulk["seeds"].as_array().unwrap();
    assert!(seeds.iter().any(|s| s["id"] == "openssh2007"));
    // Nothing left: no server, no files.
    for dir in possible_server_dirs(pid) {
        assert!(!dir.exists(), "{} left", dir.display());
    }
    assert!(processes_mentioning(&format!("linerate-sshd-{pid}")).is_empty());
}

#[test]
fn sigint_stops_the_server_and_removes_its_files() {
    let test = "sigint_stops_the_server_and_removes_its_files";
    if !sshd_present(test) {
        return;
    }
    let mut run = Running(
        Command::new(BIN)
            .args(["speed", "ssh", "--bytes", "100000000000", "--trials", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run linerate"),
    );
    let pid = run.0.id();
    let needle = format!("linerate-sshd-{pid}");
    let (dir, port) = wait_for_transfer(pid);
    // Seen in the kernel's table, not by connecting: a connection would
    // start a process of sshd's own that this test then waits for.
    assert!(listening(port), "listening");
    Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let status = run.0.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit status after SIGINT");
    // Everything gone: the server (give the kernel a moment to reap it),
    // its port, its files.
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && !processes_mentioning(&needle).is_empty() {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        processes_mentioning(&needle).is_empty(),
        "{:?}",
        processes_mentioning(&needle)
    );
    assert!(!listening(port), "port {port} closed");
    assert!(!dir.exists(), "{} removed", dir.display());
}

/// A linerate process that is killed (SIGKILL) and reaped when dropped,
/// so that a failing test leaves nothing running.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Ends `run` with SIGINT (SIGKILL after 10 s).
fn stop_with_sigint(mut run: Running) {
    let _ = Command::new("kill")
        .args(["-INT", &run.0.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && matches!(run.0.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `linerate speed ssh` with a transfer that lasts until it is killed,
/// started under `umask`.
fn start_endless_run(umask: &str) -> Running {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask {umask}; exec \"$0\" speed ssh --bytes 100000000000 --trials 1"
        ))
        .arg(BIN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run linerate");
    Running(child)
}

/// Waits (30 s at most) until linerate `pid`'s server listens and a
/// transfer is under way: the server's directory and port.
fn wait_for_transfer(pid: u32) -> (PathBuf, u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Some(dir) = server_dir(pid)
            && let Some(port) = configured_port(&dir)
        {
            let client = format!("{}/client", dir.display());
            if listening(port)
                && processes_mentioning(&client)
                    .iter()
                    .any(|c| c.contains("ssh"))
            {
                // Past the first (one-byte) connection, into the long one.
                std::thread::sleep(Duration::from_millis(500));
                return (dir, port);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("linerate {pid}: no transfer under way within 30 s");
}

/// Whether anything listens on TCP port `port` (IPv4 or IPv6).
fn listening(port: u16) -> bool {
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|table| {
        std::fs::read_to_string(table)
            .unwrap_or_default()
            .lines()
            .skip(1)
            .any(|line| {
                let f: Vec<&str> = line.split_whitespace().collect();
                f.len() > 3
                    && f[3] == "0A"
                    && f[1]
                        .rsplit_once(':')
                        .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
                        == Some(port)
            })
    })
}

/// (pid, parent pid, state) of every process.
fn process_table() -> Vec<(u32, u32, char)> {
    let mut table = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold anything, so from the
        // last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut f = rest.split_whitespace();
        let state = f.next().and_then(|s| s.chars().next()).unwrap_or('?');
        if let Some(ppid) = f.next().and_then(|p| p.parse().ok()) {
            table.push((pid, ppid, state));
        }
    }
    table
}

/// Every process below `pid`: the server, its connections' processes, the
/// clients and their sessions' shells.
fn descendants(pid: u32) -> Vec<u32> {
    let table = process_table();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(table.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    found.remove(0);
    found
}

/// Whether `pid` still runs (a zombie has ended).
fn alive(pid: u32) -> bool {
    process_table()
        .iter()
        .any(|&(p, _, state)| p == pid && state != 'Z')
}

fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `script` run by `sh` as the unprivileged user nobody (20 s at most).
fn as_nobody(script: &str) -> std::process::Output {
    crate::support::as_nobody("timeout")
        .expect("root with setpriv")
        .args(["20", "sh", "-c", script])
        .env("HOME", "/")
        .stdin(Stdio::null())
        .output()
        .expect("setpriv")
}

/// An ssh login to `user` on the server at `port` with the key `key`,
/// trusting whatever answers: the attacker's client.
fn login_command(key: &Path, port: u16, user: &str) -> String {
    format!(
        "ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no \
         -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 -o IdentitiesOnly=yes \
         -i {} -p {port} {user}@127.0.0.1 id",
        key.display()
    )
}

/// A directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_second_user_can_neither_plant_a_key_nor_log_in_under_any_umask() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let test = "a_second_user_can_neither_plant_a_key_nor_log_in_under_any_umask";
    if !sshd_present(test) {
        return;
    }
    if !running_as_root() {
        eprintln!("{test}: skipped, not root (the test becomes the user nobody)");
        return;
    }
    // nobody's own key pair, in a directory only nobody can enter.
    let keys = Scratch(
        std::env::temp_dir().join(format!("linerate-test-nobody-key-{}", std::process::id())),
    );
    std::fs::create_dir(&keys.0).unwrap();
    std::os::unix::fs::chown(&keys.0, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&keys.0, std::fs::Permissions::from_mode(0o700)).unwrap();
    let key = keys.0.join("key");
    let made = as_nobody(&format!(
        "ssh-keygen -q -t ed25519 -N '' -C nobody -f {}",
        key.display()
    ));
    assert!(made.status.success(), "{made:?}");
    for umask in ["000", "002", "022"] {
        let run = start_endless_run(umask);
        let (dir, port) = wait_for_transfer(run.0.id());
        let at = format!("umask {umask}: {}", dir.display());
        // Every way in is tried before the test says which worked.
        let mut breaches = Vec::new();
        // nobody plants a key: appended, or replacing the file.
        let planted = std::fs::read(dir.join("authorized_keys")).unwrap();
        let d = dir.display();
        let k = key.display();
        for attack in [
            format!("cat {k}.pub >> {d}/authorized_keys"),
            format!("cp {k}.pub {d}/planted && mv -f {d}/planted {d}/authorized_keys"),
            format!("ls {d}"),
        ] {
            if as_nobody(&attack).status.success() {
                breaches.push(format!("nobody ran '{attack}'"));
            }
        }
        if std::fs::read(dir.join("authorized_keys")).ok() != Some(planted) {
            breaches.push("authorized_keys changed".to_string());
        }
        // ... and logs in with it, as root or as nobody; nor does root get
        // in with nobody's key.
        let mut logins: Vec<(&str, std::process::Output)> = ["root", "nobody"]
            .into_iter()
            .map(|user| (user, as_nobody(&login_command(&key, port, user))))
            .collect();
        let as_root = Command::new("timeout")
            .args(["20", "sh", "-c", &login_command(&key, port, "root")])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        logins.push(("root (by root, with nobody's key)", as_root));
        for (user, out) in logins {
            let stdout = String::from_utf8_lossy(&out.stdout);
            if out.status.success() || stdout.contains("uid=") {
                breaches.push(format!("logged in as {user}: {}", stdout.trim()));
            }
        }
        // The directory is the user's alone, and so is every file in it.
        // (Where an attack ended the run, it is gone: that is said too.)
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.mode() & 0o7777 != 0o700 || meta.uid() != 0 => breaches.push(format!(
                "directory mode {:o}, owner {}",
                meta.mode(),
                meta.uid()
            )),
            Ok(_) => {}
            Err(e) => breaches.push(format!("the directory: {e}")),
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if !meta.file_type().is_file() || meta.mode() & 0o7777 != 0o600 || meta.uid() != 0 {
                breaches.push(format!(
                    "{:?}: mode {:o}, owner {}",
                    entry.file_name(),
                    meta.mode(),
                    meta.uid()
                ));
            }
        }
        let config = std::fs::read_to_string(dir.join("sshd_config")).unwrap_or_default();
        let lines: Vec<&str> = config.lines().collect();
        for line in [
            "StrictModes yes",
            "ListenAddress 127.0.0.1",
            "PermitRootLogin forced-commands-only",
            "AllowUsers root",
        ] {
            if !lines.contains(&line) {
                breaches.push(format!("sshd_config lacks '{line}'"));
            }
        }
        // SIGINT: the run removes its directory as it ends.
        stop_with_sigint(run);
        assert!(breaches.is_empty(), "{at}:\n{}", breaches.join("\n"));
        assert!(!dir.exists(), "{at}: left behind");
    }
}

#[test]
fn sigkill_mid_transfer_leaves_no_server_no_port_and_a_later_run_no_directory() {
    let test = "sigkill_mid_transfer_leaves_no_server_no_port_and_a_later_run_no_directory";
    if !sshd_present(test) {
        return;
    }
    let mut run = start_endless_run("022");
    let pid = run.0.id();
    let (dir, port) = wait_for_transfer(pid);
    let below = descendants(pid);
    assert!(below.len() >= 2, "a server and a client: {below:?}");
    run.0.kill().unwrap();
    run.0.wait().unwrap();
    // Within a few seconds: no process of that run, no listening port.
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && (below.iter().any(|&p| alive(p)) || listening(port)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<String> = below
        .iter()
        .filter(|&&p| alive(p))
        .map(|p| {
            let cmdline = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            format!(
                "{p}: {}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            )
        })
        .collect();
    // What outlived linerate is this test's to end.
    for p in below.iter().filter(|&&p| alive(p)) {
        let _ = Command::new("kill")
            .args(["-KILL", &p.to_string()])
            .status();
    }
    assert!(left.is_empty(), "still running after SIGKILL: {left:?}");
    assert!(!listening(port), "port {port} still listening");
    // A later run removes the killed run's directory.
    let out = Command::new(BIN)
        .args(["speed", "ssh", "--quick", "--bytes", "1"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.exists(), "{} left after a later run", dir.display());
}
