//! The report as Markdown: the same sections as the HTML page, tables as
//! pipe tables, quotations as fenced blocks under their source, plots as
//! inline SVG (raw HTML, which Markdown allows).

use super::escape;
use super::plots;
use crate::table::{Lab, Table};
use crate::text::{footnotes, grid};
use std::fmt::Write;

/// The machine section, as (name, value) pairs; the HTML page shows the
/// same.
pub fn machine_rows(lab: &Lab) -> Vec<(String, String)> {
    let m = &lab.machine;
    let mut rows = vec![
        ("CPU".to_string(), m.cpu.clone()),
        ("Threads".to_string(), m.threads.to_string()),
        ("Features".to_string(), m.features.join(" ")),
    ];
    if lab.quick {
        rows.insert(0, ("Run".to_string(), crate::table::QUICK_NOTE.to_string()));
    }
    for (algos, backend) in &m.backends {
        rows.push((format!("Backend: {algos}"), backend.clone()));
    }
    if let Some(hz) = m.core_hz {
        rows.push((
            "Core clock at start".into(),
            format!("{:.2} GHz (measured)", hz / 1e9),
        ));
    }
    if let Some(hz) = m.tsc_hz {
        rows.push(("TSC".into(), format!("{:.2} GHz (measured)", hz / 1e9)));
    }
    rows.push((
        "linerate".into(),
        format!("{} (commit {})", m.version, m.commit),
    ));
    rows.push(("Date".into(), m.date.clone()));
    rows
}

/// The whole report.
pub fn render(lab: &Lab) -> String {
    render_with(lab, Vec::new())
}

/// The whole report with `extra` plots after the lab's own (the GPU
/// section's, from a saved `linerate speed gpu --json` run).
pub fn render_with(lab: &Lab, extra: Vec<plots::Plot>) -> String {
    let mut out = String::from("# linerate performance report\n\n| | |\n|---|---|\n");
    for (k, v) in machine_rows(lab) {
        let _ = writeln!(out, "| {} | {} |", cell(&k), cell(&v));
    }
    out.push_str(
        "\nEvery figure marked as measured was measured in this run; quoted figures are \
         labelled with the document they are quoted from; model figures are computed from \
         RFC 1810's formulas; hardware figures were synthesised by hw/syn/run.sh, not \
         measured in this run.\n\n## Plots\n\n",
    );
    for plot in plots::all(lab).into_iter().chain(extra) {
        let _ = writeln!(out, "**{}**\n", plot.title);
        match plot.svg {
            // No blank lines inside the raw HTML block.
            Ok(svg) => {
                let svg: Vec<&str> = svg.lines().filter(|l| !l.trim().is_empty()).collect();
                let _ = writeln!(out, "<div>\n{}\n</div>\n", svg.join("\n"));
            }
            Err(why) => {
                let _ = writeln!(out, "not drawn: {why}\n");
            }
        }
    }
    for table in &lab.tables {
        out.push_str(&render_table(table));
    }
    out
}

/// A table cell: pipes escaped, HTML-significant characters escaped.
fn cell(text: &str) -> String {
    escape(text).replace('|', "\\|")
}

fn render_table(table: &Table) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {}\n", table.title);
    for (i, line) in grid(table).iter().enumerate() {
        let fields: Vec<String> = line.iter().map(|f| cell(f)).collect();
        let _ = writeln!(out, "| {} |", fields.join(" | "));
        if i == 0 {
            let _ = writeln!(out, "|{}", "---|".repeat(line.len()));
        }
    }
    out.push('\n');
    for note in footnotes(table) {
        let _ = writeln!(out, "- {note}");
    }
    out.push('\n');
    for seed in &table.seeds {
        let _ = writeln!(
            out,
            "Then (quoted) from `{}`: {}\n\n```text\n{}\n```\n",
            seed.source, seed.title, seed.quotation
        );
    }
    out
}
