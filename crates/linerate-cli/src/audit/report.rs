//! The text report: a line per file that is not matched (`changed: PATH`,
//! `missing: PATH`, `new: PATH`, `error: PATH: REASON`; `matched: PATH` too
//! with `-v`), in path order, then the summary line. Only the summary with
//! `-q`.
//!
//! A path holding a backslash, newline or carriage return is escaped as
//! `linerate sum` (and md5sum) escape names in checksum lines: `\\`, `\n`,
//! `\r`, and a backslash at the start of the line says so
//! (`\new: a\nb`), so every report line is one line and reads back exactly.

use super::args::Detail;
use crate::sum::console::Console;
use linerate_files::audit::{Counts, Record, Status};
use linerate_sumfile::escape;
use linerate_sumfile::quote::{self, Charset};

/// The word a report line starts with.
pub fn label(status: &Status) -> &'static str {
    match status {
        Status::Matched => "matched",
        Status::Changed => "changed",
        Status::Missing => "missing",
        Status::New => "new",
        Status::Moved { .. } => "moved",
        Status::Error(_) => "error",
        Status::Outside => "outside DIR",
    }
}

/// Prints the report of `records` (sorted) at the given detail.
pub fn print(console: &mut Console, records: &[Record], counts: &Counts, detail: Detail) {
    let mut line = Vec::new();
    for record in records {
        let shown = match record.status {
            Status::Matched => detail == Detail::Verbose,
            _ => detail != Detail::Quiet,
        };
        if shown {
            line.clear();
            push_line(&mut line, record);
            console.print(&line);
        }
    }
    console.print(summary(counts).as_bytes());
}

/// Whether `name` holds a control character that md5sum's escaping leaves
/// raw (a NUL, an escape sequence...; not a tab): such a name, from a
/// manifest or a listing made elsewhere, is quoted as diagnostics quote
/// names (`'a'$'\\033''[2J'`), so that nothing reaches a terminal raw.
pub fn needs_quoting(name: &[u8]) -> bool {
    name.iter()
        .any(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
}

/// Appends the report line of `record`, newline included.
pub fn push_line(out: &mut Vec<u8>, record: &Record) {
    let moved_to: &[u8] = match &record.status {
        Status::Moved { to, .. } => to,
        _ => b"",
    };
    let quoted = needs_quoting(&record.path) || needs_quoting(moved_to);
    let escaped = !quoted && (escape::needs_escape(&record.path) || escape::needs_escape(moved_to));
    let push_name = |out: &mut Vec<u8>, name: &[u8]| {
        if quoted {
            out.extend_from_slice(&quote::quote(name, Charset::from_env()));
        } else if escaped {
            escape::push_escaped(out, name);
        } else {
            out.extend_from_slice(name);
        }
    };
    if escaped {
        out.push(b'\\');
    }
    out.extend_from_slice(label(&record.status).as_bytes());
    out.extend_from_slice(b": ");
    push_name(out, &record.path);
    match &record.status {
        Status::Error(reason) => {
            out.extend_from_slice(b": ");
            out.extend_from_slice(reason.as_bytes());
        }
        Status::Moved { to, candidates } => {
            out.extend_from_slice(b" -> ");
            push_name(out, to);
            if *candidates > 1 {
                out.extend_from_slice(format!(" (ambiguous: {candidates} candidates)").as_bytes());
            }
        }
        _ => {}
    }
    if let Some(detail) = &record.detail {
        out.extend_from_slice(b" (");
        out.extend_from_slice(detail.as_bytes());
        out.push(b')');
    }
    out.push(b'\n');
}

/// `linerate audit: 998 matched, 1 changed, 1 missing, 3 new, 0 errors`
/// (and `, 2 moved` before the errors when files moved).
pub fn summary(counts: &Counts) -> String {
    let errors = if counts.errors == 1 {
        "error"
    } else {
        "errors"
    };
    let moved = if counts.moved > 0 {
        format!("{} moved, ", counts.moved)
    } else {
        String::new()
    };
    format!(
        "{} audit: {} matched, {} changed, {} missing, {} new, {moved}{} {errors}\n",
        crate::PROGRAM,
        counts.matched,
        counts.changed,
        counts.missing,
        counts.new,
        counts.errors
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(path: &[u8], status: Status) -> Vec<u8> {
        let mut out = Vec::new();
        push_line(
            &mut out,
            &Record {
                path: path.to_vec(),
                status,
                detail: None,
            },
        );
        out
    }

    #[test]
    fn lines() {
        assert_eq!(line(b"a b", Status::Changed), b"changed: a b\n");
        assert_eq!(line(b"a\nb", Status::New), b"\\new: a\\nb\n");
        assert_eq!(line(b"a\\b", Status::Missing), b"\\missing: a\\\\b\n");
        assert_eq!(line(b"\xff", Status::Matched), b"matched: \xff\n");
        assert_eq!(line(b"a\tb", Status::Missing), b"missing: a\tb\n");
        assert_eq!(
            line(b"e\x1b[2J\n", Status::Missing),
            b"missing: 'e'$'\\033''[2J'$'\\n'\n"
        );
        assert_eq!(
            line(b"d", Status::Error("Permission denied".to_string())),
            b"error: d: Permission denied\n"
        );
    }

    #[test]
    fn summaries() {
        let counts = Counts {
            matched: 998,
            changed: 1,
            missing: 1,
            new: 3,
            moved: 0,
            errors: 0,
            malformed_lines: 2,
        };
        assert_eq!(
            summary(&counts),
            "linerate audit: 998 matched, 1 changed, 1 missing, 3 new, 0 errors\n"
        );
        let one = Counts {
            errors: 1,
            ..Counts::default()
        };
        assert_eq!(
            summary(&one),
            "linerate audit: 0 matched, 0 changed, 0 missing, 0 new, 1 error\n"
        );
        let moved = Counts {
            moved: 2,
            ..Counts::default()
        };
        assert_eq!(
            summary(&moved),
            "linerate audit: 0 matched, 0 changed, 0 missing, 0 new, 2 moved, 0 errors\n"
        );
    }
}
