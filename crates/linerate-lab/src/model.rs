//! RFC 1810's models, today: the software model (MIPS-based serial and
//! parallel bounds against measured MD5, warm and cold, and the modern
//! latency bound of 4 cycles/byte), the link-rate table (which links each
//! algorithm keeps up with on one core and on all), and the hardware model
//! (RFC 1810's formula beside hw/'s synthesis results).

use crate::algo::Algo;
use crate::cells::{Context, Rate};
use crate::seeds::{self, RFC1810_MACHINES};
use crate::table::{Cell, Table, Unit, Value};
use crate::timing::{self, Job, Measurement};

/// Link rates in bits per second, with their names: RFC 1810's (TCP and
/// UDP over ATM on a SPARC-20, the OC-12 ATM line) and today's Ethernet.
pub const LINK_RATES: [(&str, f64); 8] = [
    ("100M TCP", 100e6),
    ("130M UDP", 130e6),
    ("622M ATM", 622e6),
    ("1G", 1e9),
    ("10G", 10e9),
    ("25G", 25e9),
    ("100G", 100e9),
    ("400G", 400e9),
];

/// `100M TCP:yes 130M UDP:yes ... 400G:no` for `bits_per_second`.
pub fn rates_row(bits_per_second: f64) -> String {
    let marks: Vec<String> = LINK_RATES
        .iter()
        .map(|(name, rate)| {
            let yes = if bits_per_second >= *rate {
                "yes"
            } else {
                "no"
            };
            format!("{name}:{yes}")
        })
        .collect();
    marks.join(" ")
}

/// The fastest link `bits_per_second` keeps up with: `10G (not 25G)`.
pub fn fastest_link(bits_per_second: f64) -> String {
    let kept = LINK_RATES
        .iter()
        .rev()
        .find(|(_, rate)| bits_per_second >= *rate);
    let missed = LINK_RATES.iter().find(|(_, rate)| bits_per_second < *rate);
    match (kept, missed) {
        (Some((k, _)), Some((m, _))) => format!("{k} (not {m})"),
        (Some((k, _)), None) => format!("{k} and every link listed"),
        (None, Some((m, _))) => format!("none (not {m})"),
        (None, None) => "none".to_string(),
    }
}

/// Cycles per byte one MD5 stream cannot beat: 64 steps a block, each
/// waiting on the one before through four one-cycle operations.
pub const LATENCY_BOUND_CYCLES_PER_BYTE: f64 = 4.0;

/// Clock readings before and after a trial that differ by more than this
/// make its cycles/byte doubtful, and the table says so.
const CLOCK_MOVED: f64 = 0.05;

/// The block size of the RFC 1810 model's MD5 trials (as `md5 -t`).
const MODEL_BLOCK: usize = 16 * 1024;

/// The link table's packet sizes: minimum Ethernet and MTU.
pub const LINK_SIZES: [u64; 2] = [64, 1500];

/// The algorithms of the link table: those of RFC 1810's question.
pub fn link_algos(selected: &[Algo]) -> Vec<Algo> {
    use linerate::{HashAlgorithm, MacAlgorithm};
    [
        Algo::MD5,
        Algo::Md5Mb,
        Algo::Hash(HashAlgorithm::Md5p(16)),
        Algo::Mac(MacAlgorithm::HmacMd5),
        Algo::MacMb(MacAlgorithm::HmacMd5),
        Algo::MacMb(MacAlgorithm::KeyedMd5),
        Algo::Mac(MacAlgorithm::HmacSha1),
        Algo::Mac(MacAlgorithm::Umac64),
        Algo::Cksum,
    ]
    .into_iter()
    .filter(|a| selected.contains(a))
    .collect()
}

/// Cells the model tables measure.
pub fn cell_count(link_algos: usize, cores: usize) -> u64 {
    let thread_counts = if cores > 1 { 2 } else { 1 };
    // Warm and cold MD5, the clock before and after.
    4 + (link_algos * LINK_SIZES.len() * thread_counts) as u64
}

/// The core clock: several chains of dependent adds, as a measurement of
/// seconds per add (one cycle). `None` where there is no estimator.
fn clock(ctx: &Context<'_>) -> Option<(f64, Measurement)> {
    ctx.progress.start("core clock");
    let adds = (ctx.settings.seconds * 1e9).clamp(1e6, 5e7) as u64;
    let mut periods: Vec<f64> = (0..ctx.settings.trials.max(1))
        .map(|_| linerate::clock::measure_core_hz(adds).map(|hz| 1.0 / hz))
        .collect::<Option<Vec<f64>>>()?;
    ctx.progress.done();
    periods.sort_by(f64::total_cmp);
    let seconds = timing::median_of_sorted(&periods);
    let spread = match (periods.first(), periods.last()) {
        (Some(lo), Some(hi)) if seconds > 0.0 => (hi - lo) / seconds,
        _ => 0.0,
    };
    let m = Measurement {
        seconds,
        spread,
        trials: periods.len(),
        calls: adds,
    };
    (seconds > 0.0).then(|| (1.0 / seconds, m))
}

/// RFC 1810's software model for this machine, and its table with this
/// machine as a ninth row.
pub fn rfc1810(ctx: &Context<'_>, cold_buffer: usize) -> (Table, Table) {
    let mut table = Table::new(
        "rfc1810_model",
        "RFC 1810's model for this machine",
        &[
            "machine",
            "clock GHz",
            "MIPS (1-cycle dependent ops)",
            "serial bound Mbps (= MIPS)",
            "parallel bound Mbps (1.6 x MIPS)",
            "MD5 warm Mbps",
            "MD5 cold Mbps",
            "4 cycles/byte bound Mbps",
            "MD5 cycles/byte",
        ],
    );
    let md5_mbps = |make: &dyn Fn() -> Result<Job, String>, what: &str| match ctx.cell(
        what,
        1,
        make,
        Rate::PerSecond(MODEL_BLOCK as f64),
    ) {
        Value::Measured(bytes_per_second, m) => Value::Measured(bytes_per_second * 8.0 / 1e6, m),
        other => other,
    };
    // The clock just before and just after the warm trial, which the
    // cycles/byte figure divides: the clock moves with load.
    let before = clock(ctx);
    let warm = md5_mbps(&|| Algo::MD5.job(MODEL_BLOCK, None), "md5 warm");
    let after = clock(ctx);
    let cold = md5_mbps(
        &|| Algo::MD5.job(MODEL_BLOCK, Some(cold_buffer)),
        "md5 cold",
    );
    let mut moved = None;
    let clock = match (before, after) {
        (Some((b, mb)), Some((a, ma))) => {
            let hz = (a + b) / 2.0;
            moved = Some((a - b) / b);
            let m = Measurement {
                seconds: 1.0 / hz,
                spread: mb.spread.max(ma.spread).max((a - b).abs() / hz),
                trials: mb.trials + ma.trials,
                calls: mb.calls,
            };
            Some((hz, m))
        }
        (one, other) => one.or(other),
    };
    let none = || Value::NotAvailable("no core-clock estimator for this CPU".into());
    let (ghz, mips, serial, parallel, bound, cpb) = match &clock {
        Some((hz, m)) => {
            let mips = hz / 1e6;
            let cpb = warm.number().map_or_else(
                || Value::NotAvailable("no MD5 figure".into()),
                |mbps| Value::Derived(hz / (mbps * 1e6 / 8.0)),
            );
            (
                Value::Measured(hz / 1e9, m.clone()),
                Value::Derived(mips),
                Value::Derived(mips),
                Value::Derived(1.6 * mips),
                Value::Derived(hz * 8.0 / LATENCY_BOUND_CYCLES_PER_BYTE / 1e6),
                cpb,
            )
        }
        None => (none(), none(), none(), none(), none(), none()),
    };
    let cell = |key, unit, value| Cell::new("md5", key, unit, value);
    table.row(
        "this machine, one core",
        vec![
            cell("clock_ghz", Unit::Ghz, ghz),
            cell("mips", Unit::Mips, mips.clone()),
            cell("serial_bound_mbps", Unit::Mbps, serial.clone()),
            cell("parallel_bound_mbps", Unit::Mbps, parallel.clone()),
            cell("mbps", Unit::Mbps, warm.clone()).bytes(MODEL_BLOCK as u64),
            cell("cold_mbps", Unit::Mbps, cold.clone()).bytes(MODEL_BLOCK as u64),
            cell("latency_bound_mbps", Unit::Mbps, bound),
            cell("cycles_per_byte", Unit::CyclesPerByte, cpb),
        ],
    );
    if let Some(moved) = moved.filter(|m| m.abs() > CLOCK_MOVED) {
        table.note(format!(
            "The clock moved {:+.1}% between the readings before and after the MD5 trial: \
             cycles/byte is doubtful.",
            moved * 100.0
        ));
    }
    table.note(
        "MIPS: the core clock measured with a chain of dependent one-cycle adds (no PMU \
         needed), so one 'instruction' per cycle, as the RFC's serial model counts them; \
         RFC 1810 used SpecInt92 as its MIPS estimate.",
    );
    table.note(format!(
        "MD5 warm: one {MODEL_BLOCK}-byte block hashed again and again; cold: {MODEL_BLOCK}-byte \
         blocks read in turn from a {} MiB buffer, as RFC 1810 prohibited on-chip caching.",
        cold_buffer >> 20
    ));
    table.note(
        "The modern bound: one MD5 step is 4 dependent one-cycle operations (boolean function, \
         add, rotate, add), 64 steps per 64 bytes: 4.0 cycles/byte.",
    );
    table.seeds.push(&seeds::RFC1810_MODEL);
    table.seeds.push(&seeds::RFC1810_MEASURED);

    let mut then = Table::new(
        "rfc1810_then_and_now",
        "Then and now: RFC 1810's table with this machine as its last row",
        &[
            "machine",
            "SpecInt92 / MIPS",
            "predicted serial Mbps",
            "predicted parallel Mbps",
            "MD5 measured Mbps",
        ],
    );
    for (machine, spec, measured) in RFC1810_MACHINES {
        let q = |key, v| Cell::new(machine, key, Unit::Mbps, Value::Quoted(v));
        then.row(
            machine,
            vec![
                q("mips", spec),
                q("serial_bound_mbps", spec),
                q("parallel_bound_mbps", (spec * 1.6).round()),
                q("mbps", measured),
            ],
        );
    }
    then.row(
        "this machine (this run)",
        vec![
            cell("mips", Unit::Mips, mips),
            cell("serial_bound_mbps", Unit::Mbps, serial),
            cell("parallel_bound_mbps", Unit::Mbps, parallel),
            cell("mbps", Unit::Mbps, cold.clone()).bytes(MODEL_BLOCK as u64),
        ],
    );
    then.note(
        "1995 rows quoted from RFC 1810 (MD5 measured with on-chip caching prohibited); this \
         machine's MD5 is the cold figure, measured the same way.",
    );
    then.seeds.push(&seeds::RFC1810_MODEL);
    (table, then)
}

/// Which links each algorithm keeps up with at 64 and 1500 bytes, on one
/// core and on `cores`.
pub fn links(ctx: &Context<'_>, algos: &[Algo], cores: usize) -> Table {
    let all = format!("{cores} threads Gb/s");
    let all_links = format!("{cores} threads keep up with");
    let mut columns = vec![
        "algorithm @ bytes",
        "1 thread Gb/s",
        "1 thread keeps up with",
    ];
    if cores > 1 {
        columns.push(&all);
        columns.push(&all_links);
    }
    let mut table = Table::new(
        "link_rates",
        "Link rates: which links each algorithm keeps up with",
        &columns,
    );
    let mut threads = vec![1];
    if cores > 1 {
        threads.push(cores);
    }
    for &algo in algos {
        let name = algo.name();
        for bytes in LINK_SIZES {
            let size = bytes as usize;
            let mut cells = Vec::new();
            for &t in &threads {
                let value = ctx.cell(
                    &format!("{name} {bytes} bytes {t} threads"),
                    t,
                    &|| algo.job(size, None),
                    Rate::PerSecond((algo.blocks_per_call(size) * size) as f64),
                );
                let (gbps, kept) = match value {
                    Value::Measured(bytes_per_second, m) => {
                        let bits = bytes_per_second * 8.0;
                        (
                            Value::Measured(bits / 1e9, m),
                            Value::Text(fastest_link(bits)),
                        )
                    }
                    other => (other.clone(), other),
                };
                let cell =
                    |key, unit, value| Cell::new(&name, key, unit, value).bytes(bytes).threads(t);
                cells.push(cell("gbps", Unit::Gbps, gbps));
                cells.push(cell("keeps_up_with", Unit::Number, kept));
            }
            table.row(format!("{name} @ {bytes}"), cells);
        }
    }
    let links: Vec<&str> = LINK_RATES.iter().map(|(n, _)| *n).collect();
    table.note(format!(
        "Links: {} (RFC 1810's TCP, UDP over ATM and ATM line rates, then Ethernet). \
         A link is kept up with when the algorithm's data rate is at least its bit rate \
         (framing and headers not counted).",
        links.join(", ")
    ));
    table
}

/// Nanoseconds per 32-bit operation in RFC 1810's CMOS (2.6 ns add, 2 ns
/// latching).
const RFC_OP_NS: f64 = 5.2;

/// RFC 1810's hardware model, with its arithmetic spelled out.
pub fn hardware_model() -> Table {
    let mut table = Table::new(
        "hardware_model",
        "RFC 1810's hardware model (computed from its formulas, not measured)",
        &["model", "ns per step", "Mbps"],
    );
    // 3 time units per step, 4 steps per 32-bit word.
    let formula_step = 3.0 * RFC_OP_NS;
    // "6 clocks" of 5.2 ns: the 31.2 ns the RFC calls "per 32-bit word".
    let text_step = 6.0 * RFC_OP_NS;
    let mbps = |step_ns: f64, ways: f64| ways * 32.0 / (4.0 * step_ns) * 1e3;
    let rows = [
        (
            "formula: 3 ops of 5.2 ns per step (8/3N Gb/s)",
            formula_step,
            1.0,
        ),
        (
            "text: 6 clocks of 5.2 ns per step (the RFC's 256 Mbps)",
            text_step,
            1.0,
        ),
        (
            "4-way chaining (MD5-P/4) at the text's rate",
            text_step,
            4.0,
        ),
        (
            "16-way chaining (MD5-P/16) at the text's rate",
            text_step,
            16.0,
        ),
    ];
    for (label, step, ways) in rows {
        table.row(
            label,
            vec![
                Cell::new("md5", "ns_per_step", Unit::Nanoseconds, Value::Model(step)),
                Cell::new("md5", "mbps", Unit::Mbps, Value::Model(mbps(step, ways))),
            ],
        );
    }
    table.note(
        "RFC 1810's arithmetic is inconsistent: \"32/12/N bps, i.e., 2/3N\" is 8/3N; its formula \
         8/3N with N = 5.2 ns gives 513 Mbps, not 256; and \"31.2 ns per 32-bit word\" is per \
         step (6 x 5.2 ns): a word takes 4 steps, 124.8 ns, which is 256 Mbps.",
    );
    table.note("With 4-way chaining the text's rate reaches about 1 Gb/s, as the RFC says.");
    table.seeds.push(&seeds::RFC1810_HARDWARE);
    table
}

/// hw/'s synthesis results, embedded at build time: `hw/syn/run.sh` writes
/// this copy of hw/results/results.json beside its original, so that the
/// lab's crate holds everything it is built from.
const HW_RESULTS: &str = include_str!("../data/hw-results.json");

/// The columns of the hardware table, with their headings, in order: what
/// a core is, how fast, how large. results.json's other fields (seeds,
/// paths, hashes...) stay in hw/results/results.md; the table names them.
const HW_COLUMNS: [(&str, &str); 11] = [
    ("core", "core"),
    ("variant", "variant"),
    ("device", "device"),
    ("fmax_mhz", "fMax (MHz)"),
    ("throughput_mbps", "Mb/s"),
    ("single_stream_mbps", "one stream (Mb/s)"),
    ("port_limited_mbps", "through the port (Mb/s)"),
    ("cycles_per_block", "cycles/block"),
    ("luts", "LUTs"),
    ("ffs", "FFs"),
    ("block_rams", "block RAMs"),
];

/// The project's hardware cores as hw/syn/run.sh synthesised them: the
/// fields of [`HW_COLUMNS`] that results.json's rows have.
pub fn hardware_results() -> Table {
    hardware_table(HW_RESULTS)
}

fn hardware_table(json: &str) -> Table {
    let title =
        "The project's MD5 cores on FPGAs: synthesised by hw/syn/run.sh, not measured in this run";
    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
        match serde_json::from_str::<serde_json::Value>(json) {
            Ok(serde_json::Value::Array(rows)) => rows
                .into_iter()
                .filter_map(|r| match r {
                    serde_json::Value::Object(map) => Some(map),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
    let shown: Vec<(&str, &str)> = HW_COLUMNS
        .iter()
        .copied()
        .filter(|(key, _)| rows.iter().any(|r| r.contains_key(*key)))
        .collect();
    let mut left_out: Vec<&str> = rows
        .iter()
        .flat_map(|r| r.keys())
        .map(String::as_str)
        .filter(|k| !shown.iter().any(|(key, _)| key == k))
        .collect();
    left_out.sort_unstable();
    left_out.dedup();
    let mut columns = vec!["#"];
    columns.extend(shown.iter().map(|(_, heading)| *heading));
    let mut table = Table::new("hardware_results", title, &columns);
    for (i, row) in rows.iter().enumerate() {
        let core = row
            .get("core")
            .and_then(|v| v.as_str())
            .unwrap_or("hardware");
        let cells = shown
            .iter()
            .map(|(key, _)| {
                let value = match row.get(*key) {
                    Some(serde_json::Value::Number(n)) => n
                        .as_f64()
                        .map_or_else(|| Value::Text(n.to_string()), Value::Synthesised),
                    Some(serde_json::Value::String(s)) => Value::Text(s.clone()),
                    Some(serde_json::Value::Null) | None => Value::Text("-".into()),
                    Some(other) => Value::Text(other.to_string()),
                };
                Cell::new(core, key.to_string(), Unit::Number, value)
            })
            .collect();
        table.row((i + 1).to_string(), cells);
    }
    if rows.is_empty() {
        table.note("hw/results/results.json has no rows (or could not be read) in this build.");
    }
    table.note(
        "From hw/results/results.json, embedded at build time: synthesised by hw/syn/run.sh, \
         not measured in this run.",
    );
    if !left_out.is_empty() {
        table.note(format!(
            "Also in results.json (and hw/results/results.md): {}.",
            left_out.join(", ")
        ));
    }
    table.seeds.push(&seeds::FPGA2015);
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        let row = rates_row(10e9);
        assert!(row.starts_with("100M TCP:yes 130M UDP:yes 622M ATM:yes 1G:yes 10G:yes 25G:no"));
        assert!(row.ends_with("400G:no"));
        assert_eq!(fastest_link(12e9), "10G (not 25G)");
        assert_eq!(fastest_link(50e6), "none (not 100M TCP)");
        assert_eq!(fastest_link(1e12), "400G and every link listed");
    }

    #[test]
    fn hardware_model_reproduces_the_rfc() {
        let t = hardware_model();
        let mbps: Vec<f64> = t
            .rows
            .iter()
            .map(|r| r.cells[1].value.number().unwrap())
            .collect();
        // 8/3N * 1000 with N = 5.2; 256 Mbps; about 1 Gb/s with 4 ways.
        assert!((mbps[0] - 8.0 / (3.0 * 5.2) * 1000.0).abs() < 1e-9);
        assert!((mbps[1] - 256.4).abs() < 0.1);
        assert!((mbps[2] - 1025.6).abs() < 0.1);
    }

    #[test]
    fn hardware_rows_are_read_generically() {
        let t = hardware_table(
            r#"[{"core":"x","fmax_mhz":40.5,"path":"a very long critical path that goes on"},{"core":"y","luts":7}]"#,
        );
        assert_eq!(t.columns, ["#", "core", "fMax (MHz)", "LUTs"]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].cells[2].value, Value::Synthesised(7.0));
        assert_eq!(t.rows[0].cells[2].value, Value::Text("-".into()));
        assert_eq!(t.rows[0].cells[1].key, "fmax_mhz");
        assert!(t.notes.iter().any(|n| n.contains("results.md): path.")));
        assert!(hardware_table("not json").rows.is_empty());
        let t = hardware_table(r#"[{"zeta":1,"beta":2,"core":"x"}]"#);
        assert_eq!(t.columns, ["#", "core"]);
        assert!(t.notes.iter().any(|n| n.contains("beta, zeta")));
        // The repository's results fit: at most a dozen columns.
        assert!(hardware_results().columns.len() <= 12);
    }

    /// The crate's copy of hw/results/results.json is the repository's:
    /// hw/syn/run.sh writes both, and a stale copy would show old cores.
    #[test]
    fn the_embedded_hardware_results_are_the_repositorys() {
        let original =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../hw/results/results.json");
        let original = std::fs::read_to_string(&original).expect("hw/results/results.json");
        assert!(
            original == HW_RESULTS,
            "crates/linerate-lab/data/hw-results.json differs from hw/results/results.json: \
             copy it (hw/syn/run.sh does)"
        );
    }
}
