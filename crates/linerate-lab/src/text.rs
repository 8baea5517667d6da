//! `linerate speed`'s text output: the machine, then each table in columns
//! (openssl speed's layout), its notes, the reasons for any `n/a`, and the
//! seed tables it mirrors, quoted.

use crate::table::{Lab, Table};
use crate::timing::NOISY_SPREAD;
use std::fmt::Write;

/// The whole lab as text.
pub fn render(lab: &Lab) -> String {
    let mut out = String::new();
    let m = &lab.machine;
    let _ = writeln!(
        out,
        "linerate {} (commit {}), {}",
        m.version, m.commit, m.date
    );
    let _ = writeln!(out, "CPU: {} ({} threads)", m.cpu, m.threads);
    let _ = writeln!(out, "Features: {}", m.features.join(" "));
    for (algos, backend) in &m.backends {
        let _ = writeln!(out, "Backend: {algos}: {backend}");
    }
    if let Some(hz) = m.core_hz {
        let _ = writeln!(out, "Core clock at start: {:.2} GHz (measured)", hz / 1e9);
    }
    if let Some(hz) = m.tsc_hz {
        let _ = writeln!(out, "TSC: {:.2} GHz (measured)", hz / 1e9);
    }
    if lab.quick {
        let _ = writeln!(out, "Note: {}", crate::table::QUICK_NOTE);
    }
    for table in &lab.tables {
        out.push('\n');
        out.push_str(&render_table(table));
    }
    out
}

/// The cells of `table` as text, the header first: what every renderer
/// lays out.
pub fn grid(table: &Table) -> Vec<Vec<String>> {
    let mut grid: Vec<Vec<String>> = vec![table.columns.clone()];
    for row in &table.rows {
        let mut line = vec![row.label.clone()];
        line.extend(row.cells.iter().map(|c| c.show()));
        grid.push(line);
    }
    grid
}

/// The lines under a table: its notes, the noisy mark's meaning where a
/// figure is noisy, and the reason for every `n/a`.
pub fn footnotes(table: &Table) -> Vec<String> {
    let mut lines = table.notes.clone();
    if table.any_noisy() {
        lines.push(format!(
            "? = noisy: the trials of that figure differ by more than {:.0}% (max - min over \
             the median); the machine was busy",
            NOISY_SPREAD * 100.0
        ));
    }
    lines.extend(
        table
            .unavailable_reasons()
            .into_iter()
            .map(|r| format!("n/a {r}")),
    );
    lines
}

/// One table: title, aligned columns, notes, quotations.
pub fn render_table(table: &Table) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "== {}", table.title);
    let grid = grid(table);
    let columns = grid.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            grid.iter()
                .filter_map(|r| r.get(i))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in &grid {
        let mut text = String::new();
        for (i, field) in line.iter().enumerate() {
            if i == 0 {
                let _ = write!(text, "{field:<w$}", w = widths[0]);
            } else {
                let _ = write!(text, "  {field:>w$}", w = widths[i]);
            }
        }
        let _ = writeln!(out, "{}", text.trim_end());
    }
    for note in footnotes(table) {
        let _ = writeln!(out, "  {note}");
    }
    for seed in &table.seeds {
        let _ = writeln!(out, "  Quoted from {} ({}):", seed.source, seed.title);
        for line in seed.quotation.lines() {
            let _ = writeln!(out, "  | {line}");
        }
    }
    out
}
