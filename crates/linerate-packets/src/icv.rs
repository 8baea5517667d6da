//! The ICV algorithms `linerate packets` offers, a subset of the library's
//! registry ([`MacAlgorithm`]), each keyed once per run ([`MacKey`]): the
//! HMACs keep their precomputed inner and outer states, keyed MD5 its state
//! after the padded key, UMAC its derived subkeys (RFC 1810's and OpenSSH's
//! point: keying is not per packet).
//!
//! Batches go through the multi-buffer paths: HMAC-MD5 and keyed MD5 in
//! SIMD lanes, UMAC's prefetching batch; HMAC-SHA1 runs packet by packet
//! (SHA-NI, one stream).

use linerate::MacAlgorithm;
use linerate::mac::MacKey;

/// The ICV algorithms, in the order of the help text. UMAC (nonce = the
/// 64-bit sequence number) is not an IANA AH transform: for comparison.
pub const OFFERED: [MacAlgorithm; 5] = [
    MacAlgorithm::HmacMd5_96,
    MacAlgorithm::HmacSha1_96,
    MacAlgorithm::KeyedMd5,
    MacAlgorithm::Umac64,
    MacAlgorithm::Umac96,
];

/// Everything `linerate packets` signs and verifies with: the AH ICVs,
/// then the TCP options' MACs (RFC 2385's TCP-MD5, RFC 5925's TCP-AO).
pub const EVERY: [MacAlgorithm; 8] = [
    MacAlgorithm::HmacMd5_96,
    MacAlgorithm::HmacSha1_96,
    MacAlgorithm::KeyedMd5,
    MacAlgorithm::Umac64,
    MacAlgorithm::Umac96,
    MacAlgorithm::TcpMd5,
    MacAlgorithm::TcpAoHmacSha1_96,
    MacAlgorithm::TcpAoAes128Cmac96,
];

/// Whether `alg` protects TCP segments (an option) rather than IP packets
/// (an AH).
pub fn is_tcp(alg: MacAlgorithm) -> bool {
    tcp_ao(alg).is_some() || alg == MacAlgorithm::TcpMd5
}

/// The TCP-AO algorithm `alg` names, if it is one.
pub fn tcp_ao(alg: MacAlgorithm) -> Option<crate::tcp_ao::AoAlgorithm> {
    use crate::tcp_ao::AoAlgorithm;
    match alg {
        MacAlgorithm::TcpAoHmacSha1_96 => Some(AoAlgorithm::HmacSha1_96),
        MacAlgorithm::TcpAoAes128Cmac96 => Some(AoAlgorithm::Aes128Cmac96),
        _ => None,
    }
}

/// The ICVs of `inputs` (with their AH sequence numbers, UMAC's nonces)
/// into `out`, the first ICV-length bytes of each entry.
///
/// # Panics
/// If the three slices differ in length.
pub fn tags(key: &mut MacKey, inputs: &[&[u8]], seqs: &[u32], out: &mut [[u8; 16]]) {
    assert!(inputs.len() == out.len() && seqs.len() == out.len());
    // Without extended sequence numbers the high 32 bits of the nonce are
    // zero.
    let nonces: Vec<[u8; 8]> = if key.algorithm().takes_nonce() {
        seqs.iter().map(|s| u64::from(*s).to_be_bytes()).collect()
    } else {
        Vec::new()
    };
    let nonces: Vec<&[u8]> = nonces.iter().map(|n| &n[..]).collect();
    // An 8-byte nonce is always a valid UMAC nonce.
    key.tag_many_into(inputs, &nonces, out)
        .expect("8-byte nonces are valid");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for a in OFFERED {
            assert_eq!(
                MacAlgorithm::from_name(a.name().to_uppercase().as_bytes(), &OFFERED),
                Ok(a)
            );
        }
        assert!(MacAlgorithm::from_name(b"hmac-md5", &OFFERED).is_err());
        assert_eq!(EVERY[..OFFERED.len()], OFFERED);
        assert_eq!(EVERY.iter().filter(|a| is_tcp(**a)).count(), 3);
        for a in EVERY.iter().filter_map(|a| tcp_ao(*a)) {
            assert_eq!(
                MacAlgorithm::from_name(a.name().as_bytes(), &EVERY).map(tcp_ao),
                Ok(Some(a))
            );
        }
    }

    #[test]
    fn keyed_md5_is_rfc_1828() {
        // Independent of the prefix trick: one MD5 over the whole input.
        for key in [&b"k"[..], &[7u8; 64], &[9u8; 65]] {
            let mut keyed = MacKey::new(MacAlgorithm::KeyedMd5, key).unwrap();
            let mut out = [[0u8; 16]];
            tags(&mut keyed, &[b"data"], &[1], &mut out);
            let mut whole = key.to_vec();
            whole.resize(key.len().div_ceil(64) * 64, 0);
            whole.extend_from_slice(b"data");
            whole.extend_from_slice(key);
            assert_eq!(out[0], linerate::md5(&whole));
        }
    }
}
