//! The report as one self-contained HTML page: inline CSS, inline SVG,
//! no scripts and nothing fetched from anywhere.

use super::escape;
use super::plots;
use crate::table::{Lab, Table, Value};
use crate::text::footnotes;
use std::fmt::Write;

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
td { text-align: right; font-variant-numeric: tabular-nums; } td:first-child, td.t { text-align: left; }
th { background: #f0f0f0; }
.side { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.seed { background: #fbf8ef; border-left: 4px solid #c9a227; padding: 0.5em 1em; max-width: 48em; }
.seed pre { font-size: 0.8em; white-space: pre-wrap; }
.notes { font-size: 0.85em; color: #555; }
.machine td { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 0.5em 1.5em; }
figure { margin: 0.5em 0; } figcaption { font-weight: bold; max-width: 620px; }
";

/// The whole report.
pub fn render(lab: &Lab) -> String {
    render_with(lab, Vec::new())
}

/// The whole report with `extra` plots after the lab's own (the GPU
/// section's, from a saved `linerate speed gpu --json` run).
pub fn render_with(lab: &Lab, extra: Vec<plots::Plot>) -> String {
    let mut out = String::new();
    let m = &lab.machine;
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>linerate report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>linerate performance report</h1>\n",
        escape(&m.cpu)
    );
    out.push_str("<table class=\"machine\">\n");
    for (k, v) in super::markdown::machine_rows(lab) {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(&k),
            escape(&v)
        );
    }
    out.push_str("</table>\n");
    out.push_str(
        "<p class=\"notes\">Every figure marked as measured was measured in this run; quoted \
         figures are labelled with the document they are quoted from; model figures are \
         computed from RFC 1810's formulas; hardware figures were synthesised by hw/syn/run.sh, \
         not measured in this run.</p>\n",
    );
    out.push_str("<h2>Plots</h2>\n<div class=\"plots\">\n");
    for plot in plots::all(lab).into_iter().chain(extra) {
        let _ = writeln!(
            out,
            "<figure><figcaption>{}</figcaption>",
            escape(&plot.title)
        );
        match plot.svg {
            Ok(svg) => out.push_str(&svg),
            Err(why) => {
                let _ = write!(out, "<p>not drawn: {}</p>", escape(&why));
            }
        }
        out.push_str("</figure>\n");
    }
    out.push_str("</div>\n");
    for table in &lab.tables {
        out.push_str(&render_table(table));
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// A table, its notes, and its seed quotations beside it.
fn render_table(table: &Table) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "<h2 id=\"{}\">{}</h2>", table.id, escape(&table.title));
    out.push_str("<div class=\"side\">\n<div>\n<table>\n");
    out.push_str("<tr>");
    for heading in &table.columns {
        let _ = write!(out, "<th>{}</th>", escape(heading));
    }
    out.push_str("</tr>\n");
    for row in &table.rows {
        let _ = write!(out, "<tr><td>{}</td>", escape(&row.label));
        for cell in &row.cells {
            // Words read from the left, figures line up on the right (and
            // so does a dash, "does not apply", among figures).
            let class = if matches!(&cell.value, Value::Text(t) if t != "-") {
                " class=\"t\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(&cell.show()));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    let notes = footnotes(table);
    if !notes.is_empty() {
        out.push_str("<ul class=\"notes\">\n");
        for note in notes {
            let _ = writeln!(out, "<li>{}</li>", escape(&note));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</div>\n");
    for seed in &table.seeds {
        let _ = write!(
            out,
            "<blockquote class=\"seed\" data-seed=\"{}\"><b>Then (quoted):</b> {}<br>\
             <small>source: {}</small>\n<pre>{}</pre></blockquote>\n",
            seed.id,
            escape(seed.title),
            escape(seed.source),
            escape(seed.quotation)
        );
    }
    out.push_str("</div>\n");
    out
}
