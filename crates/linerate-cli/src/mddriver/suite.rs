//! `-x`: mddriver's MDTestSuite, printing RFC 1321's seven strings and their
//! digests in the RFC's format, and checking each digest against appendix
//! A.5 so that a wrong backend cannot pass unnoticed.

use super::{hex, string_line};
use crate::PROGRAM;
use crate::output::print_or_quiet;

/// RFC 1321, appendix A.5: the test suite's strings and their digests.
const SUITE: [(&str, &str); 7] = [
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
    ("a", "0cc175b9c0f1b6a831c399e269772661"),
    ("abc", "900150983cd24fb0d6963f7d28e17f72"),
    ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        "abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];

/// Prints the suite; `false` (after a message on stderr) if any digest
/// differs from the RFC's.
pub fn run() -> bool {
    print_or_quiet(b"MD5 test suite:\n");
    let mut ok = true;
    for (message, expected) in SUITE {
        let digest = linerate::md5(message.as_bytes());
        print_or_quiet(&string_line("MD5", message.as_bytes(), &digest));
        let got = hex(&digest);
        if got != expected {
            eprintln!(
                "{PROGRAM}: MD5 test suite: MD5 (\"{message}\") is {got}, RFC 1321 says {expected} \
                 (backend {})",
                linerate::md5::Md5Backend::active()
            );
            ok = false;
        }
    }
    ok
}
