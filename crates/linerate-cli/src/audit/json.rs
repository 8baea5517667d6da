//! The `--json` report: one object, keys in this order, arrays sorted by
//! path (malformed lines by line number):
//!
//! ```text
//! {
//!   "matched": 998,
//!   "changed": ["a/b"],
//!   "missing": ["c"],
//!   "new": ["d", "e/f"],
//!   "moved": [{"from": "h", "to": "i/h"}, {"from": "j", "to": "k", "candidates": 2}],
//!   "errors": [{"path": "g", "error": "Permission denied"},
//!              {"path": "../x", "error": "outside DIR"}],
//!   "malformed_lines": [{"line": 12, "error": "improperly formatted checksum line"},
//!                       {"line": 14, "error": "duplicate of line 3", "path": "a/b"}],
//!   "non_utf8_paths": [{"path": "caf\ufffd", "escaped": "caf\\xe9"}],
//!   "counts": {"matched": 998, "changed": 1, "missing": 1, "new": 2,
//!              "errors": 1, "malformed_lines": 2},
//!   "ok": false
//! }
//! ```
//!
//! (printed with one array element per line). JSON strings are Unicode, file
//! names are bytes: a name that is not UTF-8 is written lossily (each
//! invalid byte as U+FFFD) wherever it appears, and once more in
//! `non_utf8_paths` beside its escaped form, which is exact: the valid
//! UTF-8 kept, each invalid byte written `\xHH` and a backslash doubled.
//! Two such names that differ only in invalid bytes print alike in the
//! lists; their escaped forms tell them apart.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use linerate_files::audit::{Counts, Record, Status};
use linerate_sumfile::manifest::{Defect, DefectKind};

/// The JSON report, newline included.
pub fn render(records: &[Record], defects: &[Defect], counts: &Counts, ok: bool) -> String {
    let mut odd = BTreeSet::new();
    let mut path = |p: &[u8]| {
        if std::str::from_utf8(p).is_err() {
            odd.insert(p.to_vec());
        }
        string(&String::from_utf8_lossy(p))
    };
    let with = |wanted: fn(&Status) -> bool| records.iter().filter(move |r| wanted(&r.status));
    let changed: Vec<String> = with(|s| *s == Status::Changed)
        .map(|r| path(&r.path))
        .collect();
    let missing: Vec<String> = with(|s| *s == Status::Missing)
        .map(|r| path(&r.path))
        .collect();
    let new: Vec<String> = with(|s| *s == Status::New).map(|r| path(&r.path)).collect();
    let mut moved = Vec::new();
    for record in records {
        if let Status::Moved { to, candidates } = &record.status {
            let (from, to) = (path(&record.path), path(to));
            // An ambiguous move says among how many it was chosen.
            let candidates = match candidates {
                0 | 1 => String::new(),
                n => format!(", \"candidates\": {n}"),
            };
            moved.push(format!("{{\"from\": {from}, \"to\": {to}{candidates}}}"));
        }
    }
    let mut errors = Vec::new();
    for record in records {
        let reason = match &record.status {
            Status::Error(reason) => reason.as_str(),
            Status::Outside => "outside DIR",
            _ => continue,
        };
        let p = path(&record.path);
        errors.push(format!("{{\"path\": {p}, \"error\": {}}}", string(reason)));
    }
    let mut malformed = Vec::new();
    for defect in defects {
        let mut item = format!(
            "{{\"line\": {}, \"error\": {}",
            defect.line,
            string(&defect.kind.reason())
        );
        if let DefectKind::Duplicate { name, .. } = &defect.kind {
            let _ = write!(item, ", \"path\": {}", path(name));
        }
        item.push('}');
        malformed.push(item);
    }
    let non_utf8: Vec<String> = odd
        .iter()
        .map(|p| {
            format!(
                "{{\"path\": {}, \"escaped\": {}}}",
                string(&String::from_utf8_lossy(p)),
                string(&escaped(p))
            )
        })
        .collect();

    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"matched\": {},", counts.matched);
    for (key, items) in [
        ("changed", &changed),
        ("missing", &missing),
        ("new", &new),
        ("moved", &moved),
        ("errors", &errors),
        ("malformed_lines", &malformed),
        ("non_utf8_paths", &non_utf8),
    ] {
        push_array(&mut out, key, items);
    }
    let _ = writeln!(
        out,
        "  \"counts\": {{\"matched\": {}, \"changed\": {}, \"missing\": {}, \"new\": {}, \
         \"moved\": {}, \"errors\": {}, \"malformed_lines\": {}}},",
        counts.matched,
        counts.changed,
        counts.missing,
        counts.new,
        counts.moved,
        counts.errors,
        counts.malformed_lines
    );
    let _ = writeln!(out, "  \"ok\": {ok}\n}}");
    out
}

/// `  "key": [...],` with one element per line.
fn push_array(out: &mut String, key: &str, items: &[String]) {
    let _ = write!(out, "  \"{key}\": [");
    for (i, item) in items.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        out.push_str(item);
    }
    out.push_str(if items.is_empty() { "],\n" } else { "\n  ],\n" });
}

/// `s` as a JSON string literal: quotes, backslashes and control
/// characters escaped, everything else as it is.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The exact form of a name that is not UTF-8: valid UTF-8 kept, `\`
/// doubled, each other byte `\xHH`.
pub fn escaped(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len() * 2);
    for chunk in name.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string("x\ny\t\u{1}\u{7f}é"), "\"x\\ny\\t\\u0001\\u007fé\"");
    }

    #[test]
    fn exact_forms_of_odd_names() {
        assert_eq!(escaped(b"caf\xe9"), "caf\\xe9");
        assert_eq!(escaped(b"a\\b\xff\xfe\xc3\xa9"), "a\\\\b\\xff\\xfe\u{e9}");
    }

    #[test]
    fn a_whole_report() {
        let record = |path: &[u8], status| Record {
            path: path.to_vec(),
            status,
            detail: None,
        };
        let records = vec![
            record(b"a", Status::Matched),
            record(b"b\xff", Status::Changed),
            record(b"c", Status::Error("Is a directory".to_string())),
            record(b"d", Status::New),
        ];
        let defects = vec![Defect {
            line: 3,
            kind: DefectKind::Duplicate {
                first: 1,
                name: b"a".to_vec(),
            },
        }];
        let counts = Counts::of(&records, &defects);
        let text = render(&records, &defects, &counts, false);
        assert_eq!(
            text,
            "{\n  \"matched\": 1,\n  \"changed\": [\n    \"b\u{fffd}\"\n  ],\n  \"missing\": [],\n  \
             \"new\": [\n    \"d\"\n  ],\n  \"moved\": [],\n  \
             \"errors\": [\n    {\"path\": \"c\", \"error\": \"Is a directory\"}\n  ],\n  \
             \"malformed_lines\": [\n    {\"line\": 3, \"error\": \"duplicate of line 1\", \"path\": \"a\"}\n  ],\n  \
             \"non_utf8_paths\": [\n    {\"path\": \"b\u{fffd}\", \"escaped\": \"b\\\\xff\"}\n  ],\n  \
             \"counts\": {\"matched\": 1, \"changed\": 1, \"missing\": 0, \"new\": 1, \"moved\": 0, \"errors\": 1, \"malformed_lines\": 1},\n  \
             \"ok\": false\n}\n"
        );
    }
}
