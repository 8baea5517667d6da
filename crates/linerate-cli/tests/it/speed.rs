//! `linerate speed` and `linerate report`, run as programs in their quick
//! mode: the structure and sanity of what they print and write (every
//! table, algorithm and seed quotation present, figures positive and
//! finite, self-contained HTML), and their errors. Never their speed.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_linerate");

fn linerate(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("LINERATE_MD5_BACKEND")
        .env_remove("LINERATE_LANES_BACKEND")
        .output()
        .expect("run linerate")
}

const TABLES: [&str; 12] = [
    "throughput",
    "digests_then_and_now",
    "key_setup",
    "per_packet_mac",
    "macs_then_and_now",
    // The OpenSSH section: in a quick run this table says it was left
    // out (tests/it/speed_ssh.rs runs `speed ssh --quick` itself).
    "ssh_bulk",
    "rfc1810_model",
    "rfc1810_then_and_now",
    "link_rates",
    "hardware_model",
    "hardware_results",
    // Not a table: the seeds every run quotes (checked separately).
    "",
];

const ALGOS: [&str; 22] = [
    "md5",
    "md5-mb",
    "md5p4",
    "md5p8",
    "md5p16",
    "md5p32",
    "hmac-md5",
    "hmac-md5-mb",
    "keyed-md5-mb",
    "hmac-sha1",
    "umac-32",
    "umac-64",
    "umac-96",
    "umac-128",
    "sha1",
    "ripemd160",
    "rc4",
    "cksum",
    "crc64nvme",
    "crc32c",
    "crc32",
    "read",
];

const SEEDS: [&str; 7] = [
    "rfc1810_measured",
    "rfc1810_model",
    "rfc1810_hardware",
    "eay1998_digests",
    "eay1998_key_setup",
    "openssh2007",
    "fpga2015",
];

/// The seed documents by their titles, as every quotation's source names
/// them.
const SEED_DOCUMENTS: [&str; 4] = [
    "Report on MD5 Performance",
    "Re: RC5 Patent Awarded",
    "Recent MAC improvements",
    "MD5 based on Timing and Area Implementation",
];

fn quick_json(extra: &[&str]) -> Value {
    let mut args = vec!["speed", "--quick", "--json"];
    args.extend_from_slice(extra);
    let out = linerate(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("speed --json prints valid JSON")
}

pub(crate) fn table<'a>(lab: &'a Value, id: &str) -> &'a Value {
    lab["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("table {id} missing"))
}

/// The figure of a cell: the value under the key the cell names.
fn figure(cell: &Value) -> Option<(&str, &Value)> {
    let key = cell["key"].as_str().expect("every cell names its key");
    cell.get(key).map(|v| (key, v))
}

#[test]
fn speed_json_has_every_table_algorithm_and_seed() {
    let lab = quick_json(&[]);
    let machine = &lab["machine"];
    for key in ["cpu", "commit", "date", "version"] {
        assert!(
            machine[key].as_str().is_some_and(|s| !s.is_empty()),
            "machine.{key}"
        );
    }
    assert!(
        machine["backends"]
            .as_object()
            .is_some_and(|b| !b.is_empty())
    );
    // The two clocks of RFC 1810's model: the core's (dependent adds) and
    // the time-stamp counter's, both measured and plausible for x86-64.
    #[cfg(target_arch = "x86_64")]
    for key in ["core_hz", "tsc_hz"] {
        let hz = machine[key].as_f64().unwrap_or(0.0);
        assert!((1e8..1e10).contains(&hz), "machine.{key} = {hz}");
    }
    for id in TABLES.iter().filter(|id| !id.is_empty()) {
        let t = table(&lab, id);
        assert!(!t["cells"].as_array().unwrap().is_empty(), "{id} has cells");
    }
    // Every cell: an algorithm, and a figure under its key or a reason.
    for t in lab["tables"].as_array().unwrap() {
        for cell in t["cells"].as_array().unwrap() {
            assert!(
                cell["algorithm"].as_str().is_some_and(|a| !a.is_empty()),
                "{cell}"
            );
            match cell["kind"].as_str().unwrap() {
                "not_available" => assert!(
                    cell["not_available"]
                        .as_str()
                        .is_some_and(|r| !r.is_empty())
                ),
                "text" => assert!(figure(cell).is_some_and(|(_, v)| v.is_string()), "{cell}"),
                kind => {
                    let (key, v) = figure(cell).unwrap_or_else(|| panic!("{cell}"));
                    let v = v.as_f64().unwrap_or_else(|| panic!("{key} of {cell}"));
                    assert!(v.is_finite(), "{cell}");
                    // Percentages may be negative, CPU seconds zero (a
                    // quick transfer can take less than a clock tick);
                    // everything else is a rate, a time, a size or a ratio.
                    if key.ends_with("cpu_s_per_gib") {
                        assert!(v >= 0.0, "{cell}");
                    } else if !key.ends_with("percent") {
                        assert!(v > 0.0 || t["id"] == "hardware_results", "{cell}");
                    }
                    if kind == "measured" {
                        assert!(cell["noisy"].is_boolean() && cell["trials"].as_u64() > Some(0));
                        assert!(cell["spread"].as_f64().is_some_and(|s| s >= 0.0));
                    }
                }
            }
        }
    }
    // The throughput table: every algorithm at every default size, in bytes
    // per second, measured.
    let throughput = table(&lab, "throughput")["cells"].as_array().unwrap();
    for algo in ALGOS {
        for bytes in [8, 64, 256, 1024, 8192, 16384] {
            let cell = throughput
                .iter()
                .find(|c| c["algorithm"] == algo && c["bytes"] == bytes)
                .unwrap_or_else(|| panic!("{algo} at {bytes}"));
            assert_eq!(cell["kind"], "measured", "{cell}");
            assert!(cell["bytes_per_second"].as_f64().unwrap() > 0.0);
        }
    }
    // The tables' own units.
    let keys = |id: &str| -> Vec<String> {
        table(&lab, id)["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| figure(c).map(|(k, _)| k.to_string()))
            .collect()
    };
    assert!(keys("key_setup").contains(&"set_key_ns".to_string()));
    assert!(keys("key_setup").contains(&"cost_bytes".to_string()));
    assert!(keys("per_packet_mac").contains(&"ns_per_packet".to_string()));
    assert!(keys("per_packet_mac").contains(&"rekeyed_ns_per_packet".to_string()));
    assert!(keys("link_rates").contains(&"gbps".to_string()));
    // Every seed quoted, with its source and text.
    let mut quoted = Vec::new();
    for t in lab["tables"].as_array().unwrap() {
        for s in t["seeds"].as_array().unwrap() {
            let source = s["source"].as_str().unwrap();
            assert!(
                SEED_DOCUMENTS.iter().any(|d| source.contains(d)),
                "{source}"
            );
            assert!(!s["quotation"].as_str().unwrap().is_empty());
            quoted.push(s["id"].as_str().unwrap().to_string());
        }
    }
    for seed in SEEDS {
        assert!(quoted.iter().any(|q| q == seed), "seed {seed} quoted");
    }
}

#[test]
fn speed_algo_arguments_select_rows() {
    let lab = quick_json(&["SHA1", "md5", "--bytes", "64"]);
    let ids: Vec<&str> = lab["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["throughput", "digests_then_and_now"]);
    let cells = table(&lab, "throughput")["cells"].as_array().unwrap();
    let algos: Vec<&str> = cells
        .iter()
        .map(|c| c["algorithm"].as_str().unwrap())
        .collect();
    assert_eq!(algos, ["sha1", "md5"]);
    assert!(cells.iter().all(|c| c["bytes"] == 64));
}

#[test]
fn speed_cold_streams_every_algorithm_from_a_large_buffer() {
    let lab = quick_json(&["--cold", "--bytes", "1500"]);
    let t = table(&lab, "throughput");
    let cells = t["cells"].as_array().unwrap();
    assert_eq!(cells.len(), ALGOS.len());
    for cell in cells {
        assert_eq!(cell["kind"], "measured", "{cell}");
        assert!(cell["bytes_per_second"].as_f64().unwrap() > 0.0);
    }
    let notes = t["notes"].to_string();
    assert!(notes.contains("Cold (--cold)"), "{notes}");
    let warm = table(&quick_json(&["md5", "--bytes", "64"]), "throughput")["notes"].to_string();
    assert!(warm.contains("Warm:"), "{warm}");
}

#[test]
fn speed_text_names_tables_and_quotes_seeds() {
    let out = linerate(&["speed", "--quick", "md5", "rc4"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("== Throughput by block size"));
    assert!(text.contains("1000s of bytes per second"));
    assert!(text.contains("Quoted from Eric Young, \"Re: RC5 Patent Awarded\""));
    assert!(text.contains("md5 1926.01k 11470.49k"));
    assert!(out.stderr.is_empty(), "no progress bar without a terminal");
}

#[test]
fn speed_errors_are_one_line_and_the_hint_and_exit_2() {
    for args in [
        &["speed", "md7"][..],
        &["speed", "--bytes", "0"],
        &["speed", "--frobnicate"],
        &["speed", "-j"],
        &["report", "--frobnicate"],
    ] {
        let out = linerate(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        let hint = format!("Try 'linerate {} --help' for more information.", args[0]);
        assert_eq!(err.lines().count(), 2, "{args:?}: {err}");
        assert_eq!(err.lines().nth(1), Some(hint.as_str()), "{args:?}: {err}");
        assert!(err.starts_with("linerate: "), "{err}");
    }
    let err = String::from_utf8(linerate(&["speed", "md7"]).stderr).unwrap();
    assert!(err.contains("'md7'") && err.contains("md5-mb"), "{err}");
}

/// What a self-contained page must not have: anything fetched.
fn assert_self_contained(page: &str) {
    for fetch in ["src=", "<link", "<script", "href=\"http", "url(", "@import"] {
        assert!(!page.contains(fetch), "page has {fetch}");
    }
}

/// The seed files' names and every table's title, as they appear on a page.
fn assert_complete(page: &str) {
    for document in SEED_DOCUMENTS {
        assert!(page.contains(document), "{document} quoted");
    }
    for quoted in [
        "87 Mbps    DEC Alpha (190 Mhz)",
        "md5 1926.01k",
        "Blowfish 997.606uS",
        "20% better than",
    ] {
        assert!(page.contains(quoted), "{quoted}");
    }
    for title in [
        "Throughput by block size",
        "Key setup",
        "Per-packet MAC",
        "RFC 1810",
        "Link rates",
        "hardware model",
    ] {
        assert!(page.contains(title), "{title}");
    }
    assert!(page.matches("<svg").count() >= 4, "four plots");
    assert!(!page.contains("not drawn"), "every plot drawn");
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".linerate-report"))
        .collect()
}

#[test]
fn report_html_is_complete_and_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.html");
    let out = linerate(&["report", "--quick", "-o", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let page = std::fs::read_to_string(&path).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    assert!(page.contains("<style>"));
    assert_self_contained(&page);
    assert_complete(&page);
    assert!(page.contains("Intel") || page.contains("CPU"));
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn report_markdown_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.md");
    let out = linerate(&[
        "report",
        "--quick",
        "--markdown",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&path).unwrap();
    assert!(page.starts_with("# linerate performance report"));
    assert!(page.contains("\n|---|"));
    assert_self_contained(&page);
    assert_complete(&page);
}

#[test]
fn report_to_standard_output() {
    let out = linerate(&["report", "--quick", "-o", "-"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}

#[test]
fn report_to_an_unwritable_place_fails_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("report.html");
    let out = linerate(&["report", "--quick", "-o", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("linerate: report: ") && err.contains("report.html"),
        "{err}"
    );
    assert!(!missing.exists());
    // A directory in the way.
    let out = linerate(&["report", "--quick", "-o", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(leftovers(dir.path()).is_empty());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A `--quick` run says that its figures are rough, in every output.
#[test]
fn quick_runs_say_their_figures_are_rough() {
    let lab = quick_json(&["md5", "--bytes", "64"]);
    assert_eq!(lab["quick"], Value::Bool(true));
    let out = linerate(&["speed", "--quick", "md5", "--bytes", "64"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Note: quick run (--quick): every trial is short, the figures are rough"),
        "{text}"
    );
}

/// A saved run (`speed --json`) is read back whole: printed again as JSON
/// it is the same document, and `report --from` renders its figures (a
/// date and a figure planted in the file show on the page) without
/// measuring.
#[test]
fn report_from_a_saved_run_renders_that_run() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("lab.json");
    let out = linerate(&["speed", "--quick", "--json"]);
    assert!(out.status.success());
    std::fs::write(&saved, &out.stdout).unwrap();
    let again = linerate(&["speed", "--from", saved.to_str().unwrap(), "--json"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        String::from_utf8(again.stdout).unwrap(),
        String::from_utf8(out.stdout.clone()).unwrap(),
        "a saved run prints back as the same JSON"
    );

    let mut lab: Value = serde_json::from_slice(&out.stdout).unwrap();
    lab["machine"]["date"] = "1995-08-01 12:00 UTC".into();
    let cells = lab["tables"][0]["cells"].as_array_mut().unwrap();
    let md5 = cells
        .iter_mut()
        .find(|c| c["algorithm"] == "md5" && c["bytes"] == 8192)
        .unwrap();
    md5["bytes_per_second"] = 123_456_789_000.0.into();
    std::fs::write(&saved, lab.to_string()).unwrap();
    let planted = "123456789.00k";
    for format in [None, Some("--markdown")] {
        let page = dir.path().join("page");
        let mut args = vec!["report", "--from", saved.to_str().unwrap()];
        args.extend(["-o", page.to_str().unwrap()]);
        args.extend(format);
        let out = linerate(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let page = std::fs::read_to_string(&page).unwrap();
        assert!(
            page.contains("1995-08-01 12:00 UTC"),
            "{format:?}: the saved date"
        );
        assert!(page.contains(planted), "{format:?}: the saved figure");
        assert!(
            page.contains("quick run"),
            "{format:?}: the saved run was quick"
        );
        assert_complete(&page);
    }
    // Standard input too; the text tables through speed.
    let out = Command::new(BIN)
        .args(["speed", "--from", "-"])
        .stdin(std::fs::File::open(&saved).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("123456789.00k")
    );
}

/// A file that is not a saved run: one line naming the file and the place
/// in it, exit 1, and the old output left as it was.
#[test]
fn report_from_a_bad_file_names_it_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("lab.json");
    let page = dir.path().join("report.html");
    std::fs::write(&page, "old page").unwrap();
    let out = linerate(&["speed", "--quick", "--json", "md5", "--bytes", "64"]);
    let mut lab: Value = serde_json::from_slice(&out.stdout).unwrap();
    lab["tables"][0]["cells"][0]["unit"] = "furlongs".into();
    for (content, expect) in [
        ("".to_string(), "lab.json: not JSON".to_string()),
        (
            "{}".to_string(),
            "lab.json: not a saved run of 'linerate speed --json'".to_string(),
        ),
        (
            lab.to_string(),
            "lab.json: table 'throughput': cell 1: unknown unit 'furlongs'".to_string(),
        ),
    ] {
        std::fs::write(&saved, content).unwrap();
        for cmd in ["report", "speed"] {
            let mut args = vec![cmd, "--from", saved.to_str().unwrap()];
            if cmd == "report" {
                args.extend(["-o", page.to_str().unwrap()]);
            }
            let out = linerate(&args);
            assert_eq!(out.status.code(), Some(1), "{cmd}");
            assert!(out.stdout.is_empty());
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.starts_with(&format!("linerate: {cmd}: ")), "{err}");
            assert!(err.contains(&expect), "{err}");
        }
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "old page");
        assert!(leftovers(dir.path()).is_empty());
    }
    let out = linerate(&[
        "report",
        "--from",
        dir.path().join("none").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("none: No such file or directory")
    );
    // Measuring options make no sense with a saved run.
    for args in [
        &["report", "--quick", "--from", "x"][..],
        &["speed", "--from", "x", "md5"],
    ] {
        assert_eq!(linerate(args).status.code(), Some(2), "{args:?}");
    }
}

/// `linerate ARGS` with 10 s to finish (killed after that): its exit
/// status (None: it had to be killed), standard output and error.
fn linerate_bounded(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let out_path = dir.join("stdout");
    let err_path = dir.join("stderr");
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("run linerate");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let outcome = (status, read(&out_path), read(&err_path));
    let _ = std::fs::remove_file(out_path);
    let _ = std::fs::remove_file(err_path);
    outcome
}

/// Figures no machine gives (1e308, below zero, 1e-308, counts near 2^64)
/// in a saved run: every renderer (text, Markdown, HTML) says at once,
/// in one line, which table, cell and key is out of range, exit 1, and
/// writes nothing; the run as saved still renders.
#[test]
fn report_from_a_run_with_absurd_figures_names_the_cell_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("lab.json");
    let page = dir.path().join("report.html");
    let out = linerate(&["speed", "--quick", "--json", "md5", "--bytes", "64"]);
    assert!(out.status.success());
    let lab: Value = serde_json::from_slice(&out.stdout).unwrap();
    std::fs::write(&saved, lab.to_string()).unwrap();
    let (status, markdown, err) = linerate_bounded(
        &["report", "--markdown", "--from", saved.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(status, Some(0), "{err}");
    assert!(markdown.contains("<svg"), "the valid run is plotted");
    // Figures at the edges of the range, side by side: drawn, at once.
    let mut edges = lab.clone();
    for (i, cell) in edges["tables"][0]["cells"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        let key = cell["key"].as_str().unwrap().to_string();
        if cell[&key].is_number() {
            cell[&key] = if i % 2 == 0 { 1e15 } else { 1e-15 }.into();
        }
    }
    std::fs::write(&saved, edges.to_string()).unwrap();
    for format in ["--markdown", "--output=-"] {
        let from = saved.to_str().unwrap();
        let (status, page, err) = linerate_bounded(&["report", format, "--from", from], dir.path());
        assert_eq!(status, Some(0), "{format}: {err}");
        assert!(page.contains("<svg"), "{format}: plotted");
    }
    let at = "lab.json: table 'throughput': cell 1:";
    let cases: [(&str, Value, String); 6] = [
        (
            "bytes_per_second",
            1e308.into(),
            format!("{at} \"bytes_per_second\" is 1e308: out of range"),
        ),
        (
            "bytes_per_second",
            (-1.0).into(),
            format!("{at} \"bytes_per_second\" is -1e0: out of range"),
        ),
        (
            "bytes_per_second",
            1e-308.into(),
            format!("{at} \"bytes_per_second\" is 1e-308: out of range"),
        ),
        (
            "spread",
            1e300.into(),
            format!("{at} \"spread\" is 1e300: out of range"),
        ),
        (
            "trials",
            u64::MAX.into(),
            format!("{at} \"trials\" is 18446744073709551615: out of range (at most 1000000)"),
        ),
        (
            "bytes",
            u64::MAX.into(),
            format!("{at} \"bytes\" is 18446744073709551615: out of range"),
        ),
    ];
    for (key, value, expect) in cases {
        let mut bad = lab.clone();
        bad["tables"][0]["cells"][0][key] = value.clone();
        std::fs::write(&saved, bad.to_string()).unwrap();
        std::fs::write(&page, "old page").unwrap();
        let from = saved.to_str().unwrap();
        for args in [
            &["speed", "--from", from][..],
            &["report", "--markdown", "--from", from],
            &["report", "--from", from, "-o", page.to_str().unwrap()],
        ] {
            let (status, out, err) = linerate_bounded(args, dir.path());
            let what = format!("{args:?} with {key} = {value}");
            assert_eq!(status, Some(1), "{what}: {err}");
            assert!(out.is_empty(), "{what}");
            assert_eq!(err.lines().count(), 1, "{what}: {err}");
            assert!(
                err.starts_with(&format!("linerate: {}: ", args[0])) && err.contains(&expect),
                "{what}: {err}"
            );
        }
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "old page");
    }
}
