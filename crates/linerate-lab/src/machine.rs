//! What the figures were measured on: the CPU's name and features, the
//! backend linerate picked for each algorithm, the core clock, the commit
//! and the date.

use linerate::lanes::LanesBackend;
use linerate::mac::umac::NhBackend;
use linerate::md5::Md5Backend;
use linerate::sha1_lanes::Sha1LanesBackend;
use std::time::{SystemTime, UNIX_EPOCH};

/// The commit of this build (from build.rs; "unknown" outside git).
pub const COMMIT: &str = env!("LINERATE_COMMIT");

/// The families of algorithms that share a backend, in the order every
/// output lists them.
pub const FAMILIES: [&str; 6] = [
    "md5, hmac-md5",
    "md5-mb, md5pK, hmac-md5 batches",
    "umac (NH)",
    "hmac-sha1, sha1",
    "hmac-sha1 batches (AH, TCP-AO)",
    "ripemd160, rc4, ciphers",
];

/// The machine and build a run describes.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The CPU's model name, or "unknown CPU".
    pub cpu: String,
    /// The instruction-set extensions that matter to linerate's backends.
    pub features: Vec<String>,
    /// (algorithms, backend) pairs: what each family runs on here, in the
    /// order of [`FAMILIES`].
    pub backends: Vec<(String, String)>,
    /// Threads this process may use.
    pub threads: usize,
    /// The core clock measured at the start of the run, in Hz.
    pub core_hz: Option<f64>,
    /// The time-stamp counter's fixed rate, in Hz.
    pub tsc_hz: Option<f64>,
    pub commit: String,
    pub version: String,
    /// The UTC date and time of the run, `YYYY-MM-DD HH:MM UTC`.
    pub date: String,
}

impl Machine {
    /// Describes this machine; measures the core clock.
    pub fn detect() -> Machine {
        Machine {
            cpu: cpu_name().unwrap_or_else(|| "unknown CPU".to_string()),
            features: features().into_iter().map(str::to_string).collect(),
            backends: FAMILIES
                .iter()
                .map(|f| f.to_string())
                .zip([
                    Md5Backend::active().name().to_string(),
                    format!(
                        "{} ({} lanes)",
                        LanesBackend::active().name(),
                        LanesBackend::active().width()
                    ),
                    NhBackend::active().name().to_string(),
                    "RustCrypto sha1".to_string(),
                    match Sha1LanesBackend::active() {
                        Sha1LanesBackend::Avx512 => "avx512 (16 lanes)".to_string(),
                        Sha1LanesBackend::Single => "RustCrypto sha1, one at a time".to_string(),
                    },
                    "RustCrypto".to_string(),
                ])
                .collect(),
            threads: crate::default_threads(),
            core_hz: linerate::clock::core_hz(),
            tsc_hz: linerate::clock::tsc_hz(),
            commit: COMMIT.to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            date: utc_now(),
        }
    }
}

/// `model name` from /proc/cpuinfo (Linux).
fn cpu_name() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, name)| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

#[cfg(target_arch = "x86_64")]
fn features() -> Vec<&'static str> {
    let mut found = Vec::new();
    macro_rules! check {
        ($($name:tt),*) => {
            $(if std::is_x86_feature_detected!($name) { found.push($name); })*
        };
    }
    check!(
        "sse2",
        "ssse3",
        "sse4.1",
        "avx",
        "avx2",
        "bmi1",
        "bmi2",
        "aes",
        "vaes",
        "pclmulqdq",
        "vpclmulqdq",
        "sha",
        "gfni",
        "avx512f",
        "avx512vl",
        "avx512bw",
        "avx512dq",
        "avx512vbmi",
        "avx512vbmi2",
        "avx512ifma"
    );
    found
}

#[cfg(not(target_arch = "x86_64"))]
fn features() -> Vec<&'static str> {
    Vec::new()
}

/// Now, in UTC, to the minute.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rest = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_778), (2026, 11, 21));
    }
}
