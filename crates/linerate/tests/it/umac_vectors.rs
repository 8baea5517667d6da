//! RFC 4418's appendix test vectors, verbatim, with the 'a' * 2^25 row as
//! corrected by verified erratum 3507, on every NH backend this CPU runs,
//! with 128-bit tags from Nettle 3.8's test suite (whose first 12 bytes are
//! the RFC's 96-bit tags); and Nettle's own vectors: every nonce length
//! from 1 to 16 bytes at message lengths around 1 KiB, 2 KiB and 2^24
//! bytes, and runs of sequential nonces (the pad cache).

use crate::support::{nh_backends as backends, unhex};
use linerate::mac::umac::{NhBackend, TagBits, Umac};

const KEY: &[u8; 16] = b"abcdefghijklmnop";
const NONCE: &[u8] = b"bcdefghi";

/// (pattern, repetitions, UMAC-32, UMAC-64, UMAC-96): RFC 4418 appendix.
const RFC_4418: [(&str, usize, &str, &str, &str); 8] = [
    (
        "a",
        0,
        "113145FB",
        "6E155FAD26900BE1",
        "32FEDB100C79AD58F07FF764",
    ),
    (
        "a",
        3,
        "3B91D102",
        "44B5CB542F220104",
        "185E4FE905CBA7BD85E4C2DC",
    ),
    (
        "a",
        1 << 10,
        "599B350B",
        "26BF2F5D60118BD9",
        "7A54ABE04AF82D60FB298C3C",
    ),
    (
        "a",
        1 << 15,
        "58DCF532",
        "27F8EF643B0D118D",
        "7B136BD911E4B734286EF2BE",
    ),
    (
        "a",
        1 << 20,
        "DB6364D1",
        "A4477E87E9F55853",
        "F8ACFA3AC31CFEEA047F7B11",
    ),
    // Erratum 3507: printed as 5109A660 2E2DBC36860A0A5F 72C6388BACE3ACE6FBF062D9.
    (
        "a",
        1 << 25,
        "85EE5CAE",
        "FACA46F856E9B45F",
        "A621C2457C0012E64F3FDAE9",
    ),
    (
        "abc",
        1,
        "ABF3A3A0",
        "D4D7B9F6BD4FBFCF",
        "883C3D4B97A61976FFCF2323",
    ),
    (
        "abc",
        500,
        "ABEB3C8B",
        "D4CF26DDEFD5C01A",
        "8824A260C53C66A36C9260A6",
    ),
];

/// UMAC-128 of the same rows (Nettle 3.8, `testsuite/umac-test.c`).
const UMAC_128: [&str; 8] = [
    "32fedb100c79ad58f07ff7643cc60465",
    "185e4fe905cba7bd85e4c2dc3d117d8d",
    "7a54abe04af82d60fb298c3cbd195bcb",
    "7b136bd911e4b734286ef2be501f2c3c",
    "f8acfa3ac31cfeea047f7b115b03bef5",
    "a621c2457c0012e64f3fdae9e7e1870c",
    "883c3d4b97a61976ffcf232308cba5a5",
    "8824a260c53c66a36c9260a62cb83aa1",
];

fn tag(bits: TagBits, backend: NhBackend, msg: &[u8]) -> Vec<u8> {
    let mut umac = Umac::with_backend(KEY, bits, backend).unwrap();
    umac.tag(msg, NONCE).unwrap().into()
}

fn check_rows(backend: NhBackend, rows: impl Fn(usize) -> bool) {
    for (i, &(pattern, reps, t32, t64, t96)) in RFC_4418.iter().enumerate() {
        if !rows(reps * pattern.len()) {
            continue;
        }
        let msg = pattern.repeat(reps).into_bytes();
        let name = format!("{backend}, {pattern:?} * {reps}");
        assert_eq!(
            tag(TagBits::B32, backend, &msg),
            unhex(t32),
            "UMAC-32 {name}"
        );
        assert_eq!(
            tag(TagBits::B64, backend, &msg),
            unhex(t64),
            "UMAC-64 {name}"
        );
        assert_eq!(
            tag(TagBits::B96, backend, &msg),
            unhex(t96),
            "UMAC-96 {name}"
        );
        let t128 = tag(TagBits::B128, backend, &msg);
        assert_eq!(t128, unhex(UMAC_128[i]), "UMAC-128 {name}");
        assert_eq!(t128[..12], unhex(t96), "UMAC-128 prefix {name}");
    }
}

#[test]
fn rfc_4418_vectors_up_to_a_mebibyte_on_every_backend() {
    for backend in backends() {
        check_rows(backend, |len| len <= 1 << 20);
    }
}

/// The one row past 2^24 bytes, which reaches the 128-bit POLY, on the
/// fastest backend (32 MiB per tag).
#[test]
fn rfc_4418_erratum_3507_row_2_pow_25() {
    check_rows(NhBackend::best(), |len| len > 1 << 20);
}

/// Nettle 3.8's `testsuite/umac-test.c`: key "abcdefghijklmnop", the message
/// "defdefdefdefdef" repeated and cut to the length, the nonce the first
/// `n` bytes of "bcdefghijklmnopq". (length, nonce length, UMAC-32,
/// UMAC-64, UMAC-128; UMAC-96 is UMAC-128's first 12 bytes.)
const NETTLE: [(usize, usize, &str, &str, &str); 29] = [
    (
        0,
        1,
        "3a58486b",
        "9e38f67da91a08d9",
        "9e38f67da91a08d9c980f4db4089c877",
    ),
    (
        1,
        2,
        "d86b1512",
        "fb0e207971b8e66a",
        "ef406c2ec70d0222f59e860eabb79ed0",
    ),
    (
        2,
        3,
        "1ae6e02d",
        "1ae6e02d73aa9ab2",
        "1ae6e02d73aa9ab2a27fb89e014dc07b",
    ),
    (
        3,
        4,
        "e8c1eb59",
        "c81cf22342e84302",
        "82626d0d575e01038e5e2cc6408216f5",
    ),
    (
        4,
        5,
        "8950f0d3",
        "aba003e7bd673cc3",
        "aba003e7bd673cc368ba8513cecf2e7c",
    ),
    (
        1020,
        6,
        "7412167c",
        "f98828a161bb4ae3",
        "d8b4811f747d588d7a913360960de7cf",
    ),
    (
        1021,
        7,
        "2d54936b",
        "2d54936be5bff72d",
        "2d54936be5bff72d2e1052361163b474",
    ),
    (
        1022,
        8,
        "53ca8dd2",
        "2cee9784556387b3",
        "700513397f8a210a98938d3e7ac3bd88",
    ),
    (
        1023,
        9,
        "26cc58df",
        "24ac4284ca371f42",
        "24ac4284ca371f4280f60bd274633d67",
    ),
    (
        1024,
        10,
        "3cada45a",
        "64c6a0fd14615a76",
        "abc223116cedd2db5af365e641a97539",
    ),
    (
        1025,
        11,
        "93251e18",
        "93251e18e56bbdc4",
        "93251e18e56bbdc457de556f95c59931",
    ),
    (
        1026,
        12,
        "24a4c3ab",
        "5d98bd8dfaf16352",
        "c1298672e52386753383a15ed58c0e42",
    ),
    (
        1027,
        13,
        "e7e98945",
        "5b0557c9fdcf661b",
        "5b0557c9fdcf661b1758efc603516ebe",
    ),
    (
        2046,
        14,
        "e12ddc9f",
        "65e85d47447c2277",
        "16bb5183017826ed47c9995c1e5834f3",
    ),
    (
        2047,
        15,
        "34d723a6",
        "34d723a6cb1676d3",
        "34d723a6cb1676d3547a5064dc5b0a37",
    ),
    (
        2048,
        16,
        "21fd8802",
        "3968d5d0af147884",
        "84565620def1e3a614d274e87626f215",
    ),
    (
        2049,
        1,
        "097e5abd",
        "ad1ee4ab606061c5",
        "ad1ee4ab606061c55e0d2ecfee59940a",
    ),
    (
        2050,
        2,
        "a03a7fe9",
        "835f4a8242100055",
        "971106d5f4a5e41dce40a91704cfe1f3",
    ),
    (
        16777212,
        3,
        "7ef41cf3",
        "7ef41cf351960aaf",
        "7ef41cf351960aaf729bb19fcee7d8c4",
    ),
    (
        16777213,
        4,
        "8bf81932",
        "ab250048807ff640",
        "e15b9f6695c9b441de035e9b10b8ac32",
    ),
    (
        16777214,
        5,
        "ddb2f0ab",
        "ff42039fcfe1248e",
        "ff42039fcfe1248e36c19efed14d7140",
    ),
    (
        16777215,
        6,
        "e67ad507",
        "6be0ebda623d76df",
        "4adc426477fb64b1ce5afd76d505f048",
    ),
    (
        16777216,
        7,
        "42d8562a",
        "42d8562a224a9e9a",
        "42d8562a224a9e9a75c2f85d39462d07",
    ),
    (
        16777217,
        8,
        "486b138d",
        "374f09dbb0b84b88",
        "6ba48d669a51ed3195ebc2aa562ee71b",
    ),
    (
        16778239,
        9,
        "850cb2c5",
        "876ca89ed045777b",
        "876ca89ed045777bf7efa7934e1758c2",
    ),
    (
        16778240,
        10,
        "b9fc4f81",
        "e1974b26fb35f2c6",
        "2e93c8ca83b97a6b1a21082e2a4c540d",
    ),
    (
        16778241,
        11,
        "ffced8f2",
        "ffced8f2494d85bf",
        "ffced8f2494d85bf0cb39408ddfe0295",
    ),
    (
        16778242,
        12,
        "1c99c5fb",
        "65a5bbdda3b85368",
        "f9148022bc6ab64f019e9db83704c17b",
    ),
    (
        16778243,
        13,
        "ec304be9",
        "50dc9565fbfc4884",
        "50dc9565fbfc48844a4be34403804605",
    ),
];

fn nettle_message(len: usize) -> Vec<u8> {
    let mut msg = Vec::with_capacity(len + 15);
    while msg.len() < len {
        msg.extend_from_slice(b"defdefdefdefdef");
    }
    msg.truncate(len);
    msg
}

/// Checks UMAC-128 and, with `all`, UMAC-32, -64 and -96 too.
fn check_nettle_row(backend: NhBackend, row: &(usize, usize, &str, &str, &str), all: bool) {
    let &(len, nonce_len, t32, t64, t128) = row;
    let msg = nettle_message(len);
    let nonce = &b"bcdefghijklmnopq"[..nonce_len];
    let name = format!("{backend}, length {len}, nonce length {nonce_len}");
    let tag = |bits| -> Vec<u8> {
        let mut umac = Umac::with_backend(KEY, bits, backend).unwrap();
        umac.tag(&msg, nonce).unwrap().into()
    };
    if all {
        assert_eq!(tag(TagBits::B32), unhex(t32), "UMAC-32 {name}");
        assert_eq!(tag(TagBits::B64), unhex(t64), "UMAC-64 {name}");
        assert_eq!(tag(TagBits::B96), unhex(&t128[..24]), "UMAC-96 {name}");
    }
    assert_eq!(tag(TagBits::B128), unhex(t128), "UMAC-128 {name}");
}

#[test]
fn nettle_vectors_every_nonce_length_on_every_backend() {
    for backend in backends() {
        for row in NETTLE.iter().filter(|r| r.0 < 1 << 20) {
            check_nettle_row(backend, row, true);
        }
    }
}

/// Around 2^24 bytes: the last messages POLY hashes under the 64-bit prime
/// alone and the first that reach the 128-bit one, with an odd and an even
/// number of L1 outputs past the switch, on the fastest backend: UMAC-128
/// (all four streams) on every row, UMAC-64 too on 2^24 - 1 to 2^24 + 1
/// (16 MiB per tag: the debug build keeps this test to a few seconds).
#[test]
fn nettle_vectors_around_2_pow_24() {
    for row in NETTLE.iter().filter(|r| r.0 >= 1 << 20) {
        let all = (16777215..=16777217).contains(&row.0);
        check_nettle_row(NhBackend::best(), row, all);
    }
}

/// Nettle's runs of sequential nonces (its context increments the nonce
/// after each tag): `(start nonce, message, UMAC-32 tags, UMAC-64 tags,
/// UMAC-128 tags)`, one tag per nonce. The zero nonce is 16 bytes.
const SEQUENTIAL: [(&str, &str, &str, &str, &str); 3] = [
    (
        "00000000000000000000000000000000",
        "zero",
        "a0e94011 8c6fea51 6d897143 db1b28c5 a75e23b7 44ea26be",
        "a0e940111c9c2cd5 6d8971434be8ee41 c9c9aef87e2be502 \
         a0a112b593656107 a75e23b7d419e03a 950526f26a8cc07a",
        "a0e940111c9c2cd5fa59090e3ac2061f cbbf18b799fd0f4afb9216e52a89f247 \
         c9c9aef87e2be50237716af8e24f8959 d6e96ef461f54d1c85aa66cbd76ca336 \
         a75e23b7d419e03a02d55ebf1ba62824 2e63031d182a59b84f148d9a91de70a3",
    ),
    (
        "61",
        "nonce-a",
        "81b4ac24 b7e8aad0 f70246fe 0595f0bf a8e9fe85",
        "b7e8aad0da6e7f99 138814c6a03bdadf fb77dd1cd4c7074f 0595f0bf8585c7e2 \
         817c0b7757cb60f7",
        "d7604bffb5e368da5fe564da0068d2cc 138814c6a03bdadff7f1666e1bd881aa \
         86a016d9e67957c8ab5ebb78a673e4e9 0595f0bf8585c7e28dfab00598d4e612 \
         3266ec16a9d85b4f0dc74ec8272238a9",
    ),
    (
        "beafcafe",
        "nonce-beaf-cafe",
        "f19d9dc1 4604a56a 4ba9420e da86ff71 77facd79",
        "9e878413aa079032 9cfd7af0bb107748 4ba9420e55b6ba13 77facd797b686e24 \
         9000c0de4f5f7236",
        "9e878413aa0790329604f3b6ae980e58 f2b2dd5dab08bb3bc5e9a83e1b4ab2e7 \
         4ba9420e55b6ba137d03443f6ee01734 2721ca2e1bcda53a54ae65e0da139c0d \
         9000c0de4f5f7236b81ae1a52e78a821",
    ),
];

/// The nonce `start + i` as a big-endian integer of the same length.
fn nth_nonce(start: &[u8], i: u64) -> Vec<u8> {
    let mut n = start.to_vec();
    let mut carry = i;
    for b in n.iter_mut().rev() {
        let v = *b as u64 + (carry & 0xff);
        *b = v as u8;
        carry = (carry >> 8) + (v >> 8);
    }
    n
}

#[test]
fn nettle_sequential_nonces_share_pads_correctly() {
    for backend in backends() {
        for (start, msg, t32, t64, t128) in SEQUENTIAL {
            let start = unhex(start);
            for (bits, tags) in [
                (TagBits::B32, t32),
                (TagBits::B64, t64),
                (TagBits::B128, t128),
            ] {
                // One context across the run (the pad cache in use), and a
                // fresh one per tag: both must agree with Nettle.
                let mut umac = Umac::with_backend(KEY, bits, backend).unwrap();
                for (i, want) in tags.split_whitespace().enumerate() {
                    let nonce = nth_nonce(&start, i as u64);
                    let got = umac.tag(msg.as_bytes(), &nonce).unwrap();
                    assert_eq!(
                        got.as_bytes(),
                        unhex(want),
                        "{bits:?} {backend} nonce {nonce:02x?}"
                    );
                    let mut fresh = Umac::with_backend(KEY, bits, backend).unwrap();
                    assert_eq!(fresh.tag(msg.as_bytes(), &nonce).unwrap(), got);
                }
                if bits == TagBits::B128 {
                    // UMAC-96 is UMAC-128's first 12 bytes, nonce by nonce.
                    let mut umac = Umac::with_backend(KEY, TagBits::B96, backend).unwrap();
                    for (i, want) in tags.split_whitespace().enumerate() {
                        let nonce = nth_nonce(&start, i as u64);
                        let got = umac.tag(msg.as_bytes(), &nonce).unwrap();
                        assert_eq!(got.as_bytes(), &unhex(want)[..12]);
                    }
                }
            }
        }
    }
}
