//! RFC 1321 appendix A.5, verbatim, on every backend and both APIs.

use linerate::md5::{Md5, reference};

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

#[test]
fn rfc1321_suite_on_the_reference() {
    for (msg, want) in SUITE {
        assert_eq!(hex::encode(reference::md5(msg.as_bytes())), want, "{msg:?}");
    }
}

#[test]
fn rfc1321_suite_on_every_backend() {
    for backend in crate::support::md5_backends() {
        for (msg, want) in SUITE {
            assert_eq!(
                hex::encode(crate::support::md5_on(backend, msg.as_bytes())),
                want,
                "{backend} {msg:?}"
            );
        }
    }
}

#[test]
fn rfc1321_suite_one_shot_and_byte_at_a_time() {
    for (msg, want) in SUITE {
        assert_eq!(hex::encode(linerate::md5(msg.as_bytes())), want);
        let mut h = Md5::new();
        for byte in msg.as_bytes() {
            h.update([*byte]);
        }
        assert_eq!(hex::encode(h.finalize()), want, "{msg:?} byte by byte");
    }
}
