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
use std::net::TcpStream;
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

/// The private server's directory for a linerate process.
fn server_dir(pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("linerate-sshd-{pid}"))
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
    assert!(!server_dir(pid).exists());
    assert!(processes_mentioning(&format!("linerate-sshd-{pid}")).is_empty());
}

#[test]
fn sigint_stops_the_server_and_removes_its_files() {
    let test = "sigint_stops_the_server_and_removes_its_files";
    if !sshd_present(test) {
        return;
    }
    let mut child = Command::new(BIN)
        .args(["speed", "ssh", "--bytes", "100000000000", "--trials", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run linerate");
    let pid = child.id();
    let dir = server_dir(pid);
    let needle = format!("linerate-sshd-{pid}");
    // Wait until the server runs and a transfer is under way.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut port = None;
    while Instant::now() < deadline {
        if port.is_none() {
            port = configured_port(&dir);
        }
        let running = processes_mentioning(&needle);
        if port.is_some() && running.iter().any(|c| c.contains("sshd")) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let port = port.expect("the server was configured");
    std::thread::sleep(Duration::from_millis(500));
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok(), "listening");
    Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit status after SIGINT");
    // Everything gone: the server (give the kernel a moment to reap it),
    // its port, its files.
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && !processes_mentioning(&needle).is_empty() {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        processes_mentioning(&needle).is_empty(),
        "{:?}",
        processes_mentioning(&needle)
    );
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "port {port} closed"
    );
    assert!(!dir.exists(), "{} removed", dir.display());
}
