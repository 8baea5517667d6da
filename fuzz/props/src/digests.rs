//! MD5's fast paths against RFC 1321: every backend this CPU runs, fed
//! the input in pieces it picks, and the many-message lanes, must give
//! the digest of RFC 1321's step-by-step compression with the padding
//! done here, independently of the library's own.

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
}
