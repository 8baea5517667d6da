//! Property: every line `linerate sum` prints, for any name and digest, in
//! any mode, parses back under `--check` to the same name and digest.

use linerate::HashAlgorithm as Algorithm;
use linerate_sumfile::check::{self, CheckLine, Form, Layout};
use linerate_sumfile::format::{LineStyle, push_sum_line, push_sum_line_for};
use proptest::prelude::*;

/// File names: any bytes but NUL (which no name can hold), weighted towards
/// the ones that need escaping or look like line syntax.
fn name() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => any::<u8>().prop_filter("no NUL in names", |&b| b != 0),
        1 => prop::sample::select(b"\\\n\r *()= \t#MD5".to_vec()),
    ];
    prop::collection::vec(byte, 1..40)
}

fn style() -> impl Strategy<Value = LineStyle> {
    (any::<bool>(), any::<bool>()).prop_map(|(tagged, binary)| LineStyle {
        // --tag implies --binary, as in md5sum.
        binary: binary || tagged,
        tagged,
        zero: false,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn printed_lines_parse_back(name in name(), digest in any::<[u8; 16]>(), style in style()) {
        let mut line = Vec::new();
        push_sum_line(&mut line, &digest, &name, style);
        let content = check::line_content(&line);
        prop_assert!(content.is_some(), "line skipped: {:?}", line);
        let mut layout = Layout::default();
        let parsed = check::parse_check_line_in(content.unwrap_or_default(), &mut layout);
        let form = if style.tagged { Form::Tagged } else { Form::Gnu };
        let tag = style.tagged.then_some(Algorithm::Md5);
        let expected = CheckLine { digest, name, binary: style.binary && !style.tagged, form, tag };
        prop_assert_eq!(parsed, Some(expected));
    }

    #[test]
    fn printed_md5p_lines_parse_back(
        name in name(),
        digest in any::<[u8; 16]>(),
        style in style(),
        quarter_k in 1..=64usize,
    ) {
        let algorithm = Algorithm::Md5p(quarter_k * 4);
        let mut line = Vec::new();
        push_sum_line_for(&mut line, algorithm, &digest, &name, style);
        let mut layout = Layout::default();
        let parsed = check::line_content(&line)
            .and_then(|content| check::parse_check_line_in(content, &mut layout));
        let form = if style.tagged { Form::Tagged } else { Form::Gnu };
        // Untagged lines do not say which function made them.
        let tag = style.tagged.then_some(algorithm);
        let expected = CheckLine { digest, name, binary: style.binary && !style.tagged, form, tag };
        prop_assert_eq!(parsed, Some(expected));
    }

    #[test]
    fn parser_never_panics(line in prop::collection::vec(any::<u8>(), 0..120), layout in 0..3u8) {
        let mut layout = [Layout::Undecided, Layout::Gnu, Layout::BsdReversed][usize::from(layout)];
        let parsed = check::parse_check_line_in(&line, &mut layout);
        // Whatever parses names something: no NUL survives into a name.
        if let Some(parsed) = parsed {
            prop_assert!(!parsed.name.contains(&0));
        }
    }
}

/// Regressions and corner cases, written out.
#[test]
fn corner_cases_round_trip() {
    let cases: &[&[u8]] = &[
        b"*",
        b" ",
        b"\\",
        b"\n",
        b"\r",
        b")",
        b"a) = x",
        b"MD5 (x) = y",
        b"#",
        b"  two",
    ];
    for &name in cases {
        for tagged in [false, true] {
            let style = LineStyle {
                tagged,
                binary: tagged,
                zero: false,
            };
            let mut line = Vec::new();
            push_sum_line(&mut line, &[0xab; 16], name, style);
            let parsed = check::line_content(&line).and_then(check::parse_check_line);
            assert_eq!(
                parsed.map(|p| p.name),
                Some(name.to_vec()),
                "{:?}",
                String::from_utf8_lossy(&line)
            );
        }
    }
}
