//! Sizes on the command line (`--part-size 8MiB`) and in reports
//! (`8 MiB`).
//!
//! A SIZE is a whole number of bytes with an optional unit, case-insensitive,
//! blanks allowed between them: `B`; binary `K`, `KiB`, `M`, `MiB`, `G`,
//! `GiB`, `T`, `TiB` (a single letter is binary, as the AWS CLI reads `8M`);
//! decimal `KB`, `MB`, `GB`, `TB` (`15MB` is 15,000,000 bytes, the size some
//! clients use). Note that the AWS CLI's configuration reads `MB` as MiB;
//! here the SI meaning holds and `MiB` or `M` says MiB.

/// One KiB.
pub const KIB: u64 = 1 << 10;
/// One MiB.
pub const MIB: u64 = 1 << 20;
/// One GiB.
pub const GIB: u64 = 1 << 30;

/// The units a SIZE may carry, lower case, and their factors.
const UNITS: &[(&str, u64)] = &[
    ("", 1),
    ("b", 1),
    ("k", KIB),
    ("kib", KIB),
    ("kb", 1_000),
    ("m", MIB),
    ("mib", MIB),
    ("mb", 1_000_000),
    ("g", GIB),
    ("gib", GIB),
    ("gb", 1_000_000_000),
    ("t", 1 << 40),
    ("tib", 1 << 40),
    ("tb", 1_000_000_000_000),
];

/// A SIZE that is not one; its text is a one-line explanation that names
/// what was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid size '{given}': {problem}")]
pub struct SizeError {
    pub given: String,
    pub problem: &'static str,
}

/// Parses a SIZE (see the module documentation): a positive number of
/// bytes.
pub fn parse_size(text: &[u8]) -> Result<u64, SizeError> {
    let invalid = |problem: &'static str| SizeError {
        given: String::from_utf8_lossy(text).into_owned(),
        problem,
    };
    let text = std::str::from_utf8(text).map_err(|_| invalid("not text"))?;
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(invalid(
            "give a whole number of bytes with an optional unit (8MiB, 5MB, 64KiB, 1GiB)",
        ));
    }
    let (number, unit) = text.split_at(digits);
    let unit = unit.trim_start().to_ascii_lowercase();
    let factor = UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, factor)| factor)
        .ok_or_else(|| {
            invalid("unknown unit (use B, KiB, MiB, GiB, TiB, K, M, G, T, KB, MB, GB or TB)")
        })?;
    let bytes = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .ok_or_else(|| invalid("too large"))?;
    if bytes == 0 {
        return Err(invalid("must be at least one byte"));
    }
    Ok(bytes)
}

/// `bytes` in the largest unit that divides it (`8 MiB`, `15 MB`,
/// `64 KiB`), or in bytes (`5000 bytes`, `1 byte`): exact either way.
pub fn exact(bytes: u64) -> String {
    const UNITS: &[(u64, &str)] = &[
        (1 << 40, "TiB"),
        (GIB, "GiB"),
        (MIB, "MiB"),
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (KIB, "KiB"),
    ];
    match UNITS
        .iter()
        .find(|&&(factor, _)| bytes >= factor && bytes.is_multiple_of(factor))
    {
        Some((factor, unit)) => format!("{} {unit}", bytes / factor),
        None if bytes == 1 => "1 byte".into(),
        None => format!("{bytes} bytes"),
    }
}

/// `bytes` as a person reads it: [`exact`] when that needs fewer than five
/// digits (`8 MiB`, `15 MB`, `1536 KiB`), otherwise two decimals of the largest binary
/// unit below it (`1.50 MiB`, `1.94 TiB`).
pub fn human(bytes: u64) -> String {
    const APPROXIMATE: &[(u64, &str)] =
        &[(1 << 40, "TiB"), (GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")];
    let exact = exact(bytes);
    let digits = exact.bytes().take_while(u8::is_ascii_digit).count();
    if digits < 5 || bytes < KIB {
        return exact;
    }
    match APPROXIMATE.iter().find(|&&(factor, _)| bytes >= factor) {
        // Only for display: the exact figure is printed beside it.
        Some(&(factor, unit)) => format!("{:.2} {unit}", bytes as f64 / factor as f64),
        None => exact,
    }
}

/// `bytes` exactly, with a readable form when it is not plain bytes:
/// `8388608 bytes (8 MiB)`.
pub fn exact_and_human(bytes: u64) -> String {
    let readable = human(bytes);
    if bytes < KIB {
        readable
    } else {
        format!("{bytes} bytes ({readable})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        let cases: &[(&str, u64)] = &[
            ("1", 1),
            ("8388608", 8 * MIB),
            ("8MiB", 8 * MIB),
            ("8M", 8 * MIB),
            ("8m", 8 * MIB),
            ("8 MiB", 8 * MIB),
            ("8mib", 8 * MIB),
            ("5MB", 5_000_000),
            ("15mb", 15_000_000),
            ("64KiB", 64 * KIB),
            ("64k", 64 * KIB),
            ("64KB", 64_000),
            ("1GiB", GIB),
            ("1G", GIB),
            ("1GB", 1_000_000_000),
            ("2TiB", 2 << 40),
            ("1TB", 1_000_000_000_000),
            ("100B", 100),
            (" 7 ", 7),
        ];
        for &(text, want) in cases {
            assert_eq!(parse_size(text.as_bytes()), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_zero_garbage_and_overflow() {
        for bad in [
            "", "0", "0MiB", "MiB", "-1", "1.5MiB", "8 XB", "8MiBs", "x8", "1e6",
        ] {
            let error = parse_size(bad.as_bytes()).expect_err(bad).to_string();
            assert!(error.contains(&format!("'{bad}'")), "{error}");
        }
        assert!(parse_size(b"18446744073709551615").is_ok());
        assert!(parse_size(b"18446744073709551616").is_err());
        assert!(
            parse_size(b"17179869184GiB")
                .expect_err("overflow")
                .to_string()
                .contains("too large")
        );
        assert!(parse_size(b"8\xffMiB").is_err());
    }

    #[test]
    fn human_forms() {
        assert_eq!(human(8 * MIB), "8 MiB");
        assert_eq!(human(15_000_000), "15 MB");
        assert_eq!(human(GIB), "1 GiB");
        assert_eq!(human(1_000_000_000), "1 GB");
        assert_eq!(human(64 * KIB), "64 KiB");
        assert_eq!(human(1536 * KIB), "1536 KiB");
        assert_eq!(human(10_000 * KIB), "9.77 MiB");
        assert_eq!(human(2_031_120 * MIB), "1.94 TiB");
        assert_eq!(human(1000 * MIB), "1000 MiB");
        assert_eq!(human(50_000 * MIB), "48.83 GiB");
        assert_eq!(human(MIB + 1), "1.00 MiB");
        assert_eq!(human(1000), "1000 bytes");
        assert_eq!(exact(1536 * KIB), "1536 KiB");
        assert_eq!(human(0), "0 bytes");
        assert_eq!(human(1), "1 byte");
        assert_eq!(exact(5000), "5000 bytes");
        assert_eq!(exact(MIB + 1), "1048577 bytes");
        assert_eq!(exact(15_000_000), "15 MB");
        assert_eq!(exact_and_human(8 * MIB), "8388608 bytes (8 MiB)");
        assert_eq!(exact_and_human(100), "100 bytes");
    }

    #[test]
    fn exact_forms_parse_back() {
        for bytes in [
            1,
            1000,
            KIB,
            1536 * KIB,
            MIB + 1,
            5 * MIB,
            15_000_000,
            3 * GIB,
            1_000_000_000,
            5 << 40,
        ] {
            let text = exact(bytes).replace(" bytes", "").replace(" byte", "");
            assert_eq!(parse_size(text.as_bytes()), Ok(bytes), "{text}");
        }
    }
}
