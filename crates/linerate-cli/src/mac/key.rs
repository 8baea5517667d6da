//! Key and nonce material from the command line: hex decoding, key files,
//! and the length rules of each MAC, with one-line errors that name the
//! problem but never show a key.
//!
//! Every buffer that holds key bytes is a [`Zeroizing`] one, sized up front
//! so it never reallocates (a reallocation would leave a copy behind), and
//! wiped when dropped, right after the MAC is keyed ([`super::engine`]).

use std::ffi::OsStr;
use std::io::Read;

use zeroize::Zeroizing;

use crate::sum::console::error_text;
use linerate::MacAlgorithm;
use linerate::registry::{UMAC_KEY_LEN, UMAC_MAX_NONCE_LEN};
use linerate_sumfile::quote::{self, Charset};

/// The largest key file read, in bytes: HMAC hashes a key longer than a
/// block (64 bytes) anyway, and a bound stops `--key-file /dev/zero`. One
/// bound for every key read from a file (the packets' key tables too).
pub const MAX_KEY_FILE: usize = linerate_packets::keys::MAX_KEY_FILE;

/// Where the key comes from.
pub enum KeySource {
    /// `--key-file F`: the file's bytes.
    File(std::ffi::OsString),
    /// `--key-hex HEX`: the argument, kept in a wiped buffer.
    Hex(Zeroizing<Vec<u8>>),
    /// `--key-env NAME`: the environment variable's value, in hex.
    Env(std::ffi::OsString),
}

impl KeySource {
    /// The one source given among `--key-file`, `--key-hex` and
    /// `--key-env` (mac's and packets' options); the error names what is
    /// wrong: none given (for `algorithm`), or more than one.
    pub fn choose(
        file: Option<std::ffi::OsString>,
        hex: Option<Zeroizing<Vec<u8>>>,
        env: Option<std::ffi::OsString>,
        algorithm: MacAlgorithm,
    ) -> Result<KeySource, String> {
        match (file, hex, env) {
            (Some(path), None, None) => Ok(KeySource::File(path)),
            (None, Some(hex), None) => Ok(KeySource::Hex(hex)),
            (None, None, Some(name)) => Ok(KeySource::Env(name)),
            (None, None, None) => Err(format!(
                "{} needs a key: give --key-file FILE, --key-env NAME or --key-hex HEX",
                algorithm.name()
            )),
            _ => Err("give the key once: one of --key-file, --key-env, --key-hex".to_string()),
        }
    }
}

/// A setup error: the message of a one-line diagnostic.
pub type SetupError = Vec<u8>;

/// The key for `algorithm`, read and checked: any length but zero for the
/// HMACs, exactly 16 bytes for the UMACs.
pub fn load_key(
    algorithm: MacAlgorithm,
    source: &KeySource,
) -> Result<Zeroizing<Vec<u8>>, SetupError> {
    let (key, what) = match source {
        KeySource::File(path) => (read_key_file(path)?, "the key file"),
        KeySource::Hex(hex) => (
            decode_hex("--key-hex", hex).map_err(String::into_bytes)?,
            "--key-hex",
        ),
        KeySource::Env(name) => {
            use std::os::unix::ffi::{OsStrExt, OsStringExt};
            let shown = String::from_utf8_lossy(name.as_bytes()).into_owned();
            let value = Zeroizing::new(
                std::env::var_os(name)
                    .ok_or_else(|| format!("--key-env: {shown} is not set").into_bytes())?
                    .into_vec(),
            );
            let key =
                decode_hex(&format!("--key-env {shown}"), &value).map_err(String::into_bytes)?;
            (key, "--key-env")
        }
    };
    if algorithm.takes_nonce() {
        if key.len() != UMAC_KEY_LEN {
            return Err(format!(
                "{} needs a key of exactly {UMAC_KEY_LEN} bytes; {what} holds {}",
                algorithm.name(),
                bytes(key.len())
            )
            .into_bytes());
        }
    } else if key.is_empty() {
        return Err(format!("{what} is empty: {} needs a key", algorithm.name()).into_bytes());
    }
    Ok(key)
}

/// The nonce for `algorithm` from `--nonce-hex` (`None` if not given):
/// 1 to 16 bytes for the UMACs, none at all for the HMACs.
pub fn load_nonce(
    algorithm: MacAlgorithm,
    hex: Option<&OsStr>,
    option: &str,
) -> Result<Option<Vec<u8>>, SetupError> {
    use std::os::unix::ffi::OsStrExt;
    let name = algorithm.name();
    match hex {
        None if algorithm.takes_nonce() => Err(format!(
            "{name} needs a nonce: give --nonce-hex with 1 to {UMAC_MAX_NONCE_LEN} bytes in hex"
        )
        .into_bytes()),
        None => Ok(None),
        Some(_) if !algorithm.takes_nonce() => Err(format!(
            "{name} takes no nonce: {option} is for umac-32, umac-64, umac-96 and umac-128"
        )
        .into_bytes()),
        Some(hex) => {
            let nonce = decode_hex(option, hex.as_bytes()).map_err(String::into_bytes)?;
            if !(1..=UMAC_MAX_NONCE_LEN).contains(&nonce.len()) {
                return Err(format!(
                    "{name} needs a nonce of 1 to {UMAC_MAX_NONCE_LEN} bytes; {option} gives {}",
                    bytes(nonce.len())
                )
                .into_bytes());
            }
            Ok(Some(nonce.to_vec()))
        }
    }
}

/// Whether `messages` nonces counted up from `start` (a big-endian number
/// of its own length, 1 to 16 bytes) fit in that length.
pub fn nonces_left(start: &[u8], messages: usize) -> bool {
    let value = start.iter().fold(0u128, |v, &b| (v << 8) | u128::from(b));
    let largest = match start.len() {
        16 => u128::MAX,
        len => (1u128 << (8 * len)) - 1,
    };
    messages == 0 || (messages as u128 - 1) <= largest - value
}

/// `hex` decoded (either case, no separators) into a wiped buffer. The
/// error names `option` and the problem, never the digits themselves.
pub fn decode_hex(option: &str, hex: &[u8]) -> Result<Zeroizing<Vec<u8>>, String> {
    if let Some(at) = hex.iter().position(|b| !b.is_ascii_hexdigit()) {
        return Err(format!("{option}: character {} is not a hex digit", at + 1));
    }
    if !hex.len().is_multiple_of(2) {
        return Err(format!(
            "{option}: odd number of hex digits ({}); give two per byte",
            hex.len()
        ));
    }
    let mut out = Zeroizing::new(vec![0u8; hex.len() / 2]);
    let decoded = linerate_sumfile::check::decode_hex_into(hex, &mut out);
    debug_assert!(decoded, "checked above");
    Ok(out)
}

/// The bytes of the key file `path`, at most [`MAX_KEY_FILE`].
fn read_key_file(path: &OsStr) -> Result<Zeroizing<Vec<u8>>, SetupError> {
    use std::os::unix::ffi::OsStrExt;
    let failure = |detail: &[u8]| {
        let mut message = b"cannot read key file ".to_vec();
        message.extend_from_slice(&quote::quote(path.as_bytes(), Charset::from_env()));
        message.extend_from_slice(b": ");
        message.extend_from_slice(detail);
        message
    };
    // `-`: standard input (a pipe from a secret store; an inherited
    // descriptor is `/dev/fd/N`).
    let reader: Box<dyn Read> = if path.as_bytes() == b"-" {
        Box::new(linerate_files::stdin())
    } else {
        // Not blocking on a FIFO without a writer (it reads as empty).
        let file = linerate_packets::keys::open_key_file(std::path::Path::new(path));
        Box::new(file.map_err(|e| failure(&error_text(&e)))?)
    };
    linerate_packets::keys::read_bounded(reader, MAX_KEY_FILE)
        .map_err(|e| failure(&error_text(&e)))?
        .ok_or_else(|| failure(linerate_packets::keys::too_long(MAX_KEY_FILE).as_bytes()))
}

fn bytes(n: usize) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(e: SetupError) -> String {
        String::from_utf8_lossy(&e).into_owned()
    }

    fn hex_key(hex: &str) -> KeySource {
        KeySource::Hex(Zeroizing::new(hex.as_bytes().to_vec()))
    }

    #[test]
    fn hex_decoding() {
        assert_eq!(
            decode_hex("x", b"00aBFf").unwrap().as_slice(),
            [0, 0xab, 0xff]
        );
        assert_eq!(decode_hex("x", b"").unwrap().len(), 0);
        assert_eq!(
            decode_hex("--key-hex", b"abc").unwrap_err(),
            "--key-hex: odd number of hex digits (3); give two per byte"
        );
        assert_eq!(
            decode_hex("--key-hex", b"00 1").unwrap_err(),
            "--key-hex: character 3 is not a hex digit"
        );
    }

    #[test]
    fn key_lengths() {
        let hmac = MacAlgorithm::HmacSha1;
        assert_eq!(load_key(hmac, &hex_key("01")).unwrap().as_slice(), [1]);
        assert_eq!(
            text(load_key(hmac, &hex_key("")).unwrap_err()),
            "--key-hex is empty: hmac-sha1 needs a key"
        );
        let umac = MacAlgorithm::Umac64;
        assert_eq!(
            load_key(umac, &hex_key(&"ab".repeat(16))).unwrap().len(),
            16
        );
        assert_eq!(
            text(load_key(umac, &hex_key(&"ab".repeat(15))).unwrap_err()),
            "umac-64 needs a key of exactly 16 bytes; --key-hex holds 15 bytes"
        );
        assert_eq!(
            text(load_key(umac, &hex_key("ab")).unwrap_err()),
            "umac-64 needs a key of exactly 16 bytes; --key-hex holds 1 byte"
        );
    }

    fn nonce(algorithm: MacAlgorithm, hex: &str) -> Result<Option<Vec<u8>>, String> {
        load_nonce(algorithm, Some(OsStr::new(hex)), "--nonce-hex").map_err(text)
    }

    #[test]
    fn nonces() {
        let umac = MacAlgorithm::Umac32;
        assert_eq!(nonce(umac, "01"), Ok(Some(vec![1])));
        assert_eq!(nonce(umac, &"00".repeat(16)), Ok(Some(vec![0; 16])));
        assert!(
            text(load_nonce(umac, None, "--nonce-hex").unwrap_err())
                .starts_with("umac-32 needs a nonce")
        );
        assert_eq!(
            nonce(umac, ""),
            Err("umac-32 needs a nonce of 1 to 16 bytes; --nonce-hex gives 0 bytes".into())
        );
        assert_eq!(
            nonce(umac, &"00".repeat(17)),
            Err("umac-32 needs a nonce of 1 to 16 bytes; --nonce-hex gives 17 bytes".into())
        );
        assert_eq!(
            load_nonce(MacAlgorithm::HmacMd5, None, "--nonce-hex"),
            Ok(None)
        );
        assert!(
            nonce(MacAlgorithm::HmacMd5, "01")
                .unwrap_err()
                .starts_with("hmac-md5 takes no nonce")
        );
    }

    #[test]
    fn key_files() {
        let dir = std::env::temp_dir().join(format!("linerate-mac-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("key");
        std::fs::write(&path, b"secret\n").unwrap();
        let source = KeySource::File(path.clone().into_os_string());
        let key = load_key(MacAlgorithm::HmacMd5, &source).unwrap();
        assert_eq!(key.as_slice(), b"secret\n");
        std::fs::write(&path, vec![7u8; MAX_KEY_FILE + 1]).unwrap();
        let message = text(load_key(MacAlgorithm::HmacMd5, &source).unwrap_err());
        assert!(message.contains("longer than 65536 bytes"), "{message}");
        std::fs::write(&path, vec![7u8; MAX_KEY_FILE]).unwrap();
        assert!(load_key(MacAlgorithm::HmacMd5, &source).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = KeySource::File("/nonexistent/linerate-key".into());
        assert_eq!(
            text(load_key(MacAlgorithm::HmacMd5, &missing).unwrap_err()),
            "cannot read key file /nonexistent/linerate-key: No such file or directory"
        );
    }
}
