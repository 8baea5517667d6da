//! MD5's fast paths against RFC 1321: every backend this CPU runs, fed
//! the input in pieces it picks, and the many-message lanes, must give
//! the digest of RFC 1321's step-by-step compression with the padding
//! done here, independently of the library's own; HMAC-MD5 (precomputed
//! pads, one message and many) that of RFC 2104's definition over it.

use linerate::HmacMd5Key;
use linerate::md5::{Md5, Md5Backend, reference};

/// RFC 1321's MD5: padding (section 3.1-3.2) written here, compression
/// the library's step-by-step oracle (section 3.4).
pub fn reference_md5(data: &[u8]) -> [u8; 16] {
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    let blocks: Vec<[u8; 64]> = message
        .chunks_exact(64)
        .map(|b| b.try_into().expect("64 bytes"))
        .collect();
    let mut state = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    reference::compress(&mut state, &blocks);
    let mut digest = [0u8; 16];
    for (out, word) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&word.to_le_bytes());
    }
    digest
}

pub fn md5_reference(data: &[u8]) {
    let expected = reference_md5(data);
    assert_eq!(linerate::md5(data), expected, "md5()");
    let seed = data.first().copied().unwrap_or(0);
    for &backend in Md5Backend::ALL {
        let Some(mut h) = Md5::with_backend(backend) else {
            continue;
        };
        // Pieces whose lengths the data picks, 0 to 130 bytes.
        let mut rest = data;
        let mut step = usize::from(seed);
        while !rest.is_empty() {
            step = (step * 37 + 11) % 131;
            let (piece, after) = rest.split_at(step.min(rest.len()));
            h.update(piece);
            rest = after;
        }
        assert_eq!(h.finalize(), expected, "backend {}", backend.name());
    }
    // The lanes: the input cut into messages of different lengths.
    let cut = usize::from(seed) % (data.len() + 1);
    let messages: Vec<&[u8]> = vec![data, &data[..cut], &data[cut..], &[], data];
    let digests = linerate::md5_many(&messages);
    for (m, d) in messages.iter().zip(&digests) {
        assert_eq!(
            *d,
            reference_md5(m),
            "md5_many, a message of {} bytes",
            m.len()
        );
    }
    hmac_agrees(data);
}

/// RFC 2104's HMAC over [`reference_md5`]: a key longer than a block is
/// hashed first, then `H(K ^ opad, H(K ^ ipad, message))`.
pub fn reference_hmac_md5(key: &[u8], message: &[u8]) -> [u8; 16] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..16].copy_from_slice(&reference_md5(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = reference_md5(&[pad(0x36), message.to_vec()].concat());
    reference_md5(&[pad(0x5c), inner.to_vec()].concat())
}

/// HMAC-MD5 against [`reference_hmac_md5`]: the first byte picks how much
/// of the rest is the key (0 to 99 bytes, so keys longer than a block
/// too), the remainder is the message.
fn hmac_agrees(data: &[u8]) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let (key, message) = rest.split_at((usize::from(seed) % 100).min(rest.len()));
    let expected = reference_hmac_md5(key, message);
    let hmac = HmacMd5Key::new(key);
    assert_eq!(
        hmac.tag(message),
        expected,
        "HMAC-MD5, a key of {} bytes",
        key.len()
    );
    let cut = usize::from(seed) % (message.len() + 1);
    let messages: Vec<&[u8]> = vec![message, &message[..cut], &[]];
    for (m, tag) in messages.iter().zip(hmac.tag_many(&messages)) {
        assert_eq!(
            tag,
            reference_hmac_md5(key, m),
            "tag_many, {} bytes",
            m.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The references themselves: RFC 1321's and RFC 2104's vectors.
    #[test]
    fn references_give_the_rfc_vectors() {
        assert_eq!(hex(&reference_md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            hex(&reference_md5(b"abc")),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(&reference_hmac_md5(&[0x0b; 16], b"Hi There")),
            "9294727a3638bb1c13f48ef8158bfc9d"
        );
        assert_eq!(
            hex(&reference_hmac_md5(
                b"Jefe",
                b"what do ya want for nothing?"
            )),
            "750c783e6ab0b503eaa86e310a5db738"
        );
        assert_eq!(
            hex(&reference_hmac_md5(&[0xaa; 16], &[0xdd; 50])),
            "56be34521d144c88dbb8c733f0e8b3f6"
        );
    }
}
