//! The lab as one self-contained page: HTML (inline CSS, inline SVG plots,
//! no external assets) or Markdown; every table, each seed table quoted
//! beside today's figures, plots, and the machine (CPU, features,
//! backends, commit, date).

pub mod gpu_plots;
pub mod html;
pub mod markdown;
pub mod plots;

/// Escapes `&`, `<`, `>` and `"` for HTML text and attributes (Markdown
/// tables carry the same text).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
