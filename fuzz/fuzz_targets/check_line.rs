//! Fuzzes `--check`'s line parser: it must never panic, and whatever it
//! accepts must survive a round trip: printed back the way `linerate sum`
//! prints checksum lines, it parses to the same entry.

#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_sumfile::check::{self, CheckLine, Form, Layout};
use linerate_sumfile::{escape, format};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the run's layout so far; the rest is the line.
    let Some((&selector, line)) = data.split_first() else {
        return;
    };
    let mut layout = match selector % 3 {
        0 => Layout::Undecided,
        1 => Layout::Gnu,
        _ => Layout::BsdReversed,
    };
    check::line_content(line);
    let Some(parsed) = check::parse_check_line_in(line, &mut layout) else {
        return;
    };
    // No file has an empty name and no line form can express one.
    if parsed.name.is_empty() {
        return;
    }
    let printed = print(&parsed);
    let printed = check::line_content(&printed).expect("a printed line is never skipped");
    let mut fresh = match parsed.form {
        Form::Tagged => Layout::Undecided,
        Form::Gnu => Layout::Gnu,
        Form::Reversed => Layout::BsdReversed,
    };
    let reparsed = check::parse_check_line_in(printed, &mut fresh);
    assert_eq!(
        reparsed.as_ref(),
        Some(&parsed),
        "printed as {:?}",
        String::from_utf8_lossy(printed)
    );
});

/// `parsed` as a checksum line, newline included.
fn print(parsed: &CheckLine) -> Vec<u8> {
    let mut out = Vec::new();
    match parsed.form {
        Form::Tagged | Form::Gnu => {
            let style = format::LineStyle {
                tagged: parsed.form == Form::Tagged,
                binary: parsed.binary,
                zero: false,
            };
            format::push_sum_line_for(
                &mut out,
                parsed.tag.unwrap_or_default(),
                &parsed.digest,
                &parsed.name,
                style,
            );
        }
        // `linerate sum` never prints this BSD `md5 -r` form; write it by hand.
        Form::Reversed => {
            let escaped = escape::needs_escape(&parsed.name);
            if escaped {
                out.push(b'\\');
            }
            format::push_hex(&mut out, &parsed.digest);
            out.push(b' ');
            if escaped {
                escape::push_escaped(&mut out, &parsed.name);
            } else {
                out.extend_from_slice(&parsed.name);
            }
            out.push(b'\n');
        }
    }
    out
}
