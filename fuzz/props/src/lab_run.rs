//! Saved lab runs (`report --from RUN.json`). Properties: a run read is
//! written again (`json::render`) and reads back equal; its text and
//! Markdown reports render in bounded time and size whatever the figures
//! (columns are aligned, so one long cell widens every row: the bound is
//! quadratic in the input).

use linerate_lab::{json, load, text};

pub fn lab_run(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(lab) = load::parse(input) else {
        return;
    };
    let written = serde_json::to_string(&json::render(&lab)).expect("a run renders as JSON");
    let again = load::parse(&written).expect("a written run reads back");
    assert_eq!(again, lab, "written as {written}");
    let limit = 4 * data.len() * data.len() + (1 << 16);
    let report = text::render(&lab);
    assert!(
        report.len() <= limit,
        "{} bytes of text from {} bytes",
        report.len(),
        data.len()
    );
    let report = linerate_lab::report::markdown::render(&lab);
    assert!(
        report.len() <= limit,
        "{} bytes of Markdown from {} bytes",
        report.len(),
        data.len()
    );
}
