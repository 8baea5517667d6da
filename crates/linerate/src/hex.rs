//! Digests as lowercase hex digits, many at once: the text form of a
//! column's MD5 (Spark's and DuckDB's `md5(col)`). At tens of millions of
//! rows a second, a digit at a time costs as much as the hashing; SSSE3
//! makes 32 digits from a digest with two table lookups (`pshufb`) and two
//! interleaves.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Writes the 32 lowercase hex digits of each digest into `text`.
///
/// # Panics
/// If `text` is not `32 * digests.len()` bytes.
pub fn hex_digests(digests: &[[u8; 16]], text: &mut [u8]) {
    assert_eq!(text.len(), 32 * digests.len(), "32 digits a digest");
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3 (checked above).
        unsafe { hex_ssse3(digests, text) };
        return;
    }
    hex_portable(digests, text);
}

/// One byte at a time, two digits from a 512-byte table.
pub fn hex_portable(digests: &[[u8; 16]], text: &mut [u8]) {
    assert_eq!(text.len(), 32 * digests.len(), "32 digits a digest");
    const PAIRS: [[u8; 2]; 256] = {
        let mut t = [[0u8; 2]; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = [DIGITS[i >> 4], DIGITS[i & 15]];
            i += 1;
        }
        t
    };
    for (chunk, digest) in text.chunks_exact_mut(32).zip(digests) {
        for (pair, &byte) in chunk.chunks_exact_mut(2).zip(digest) {
            pair.copy_from_slice(&PAIRS[usize::from(byte)]);
        }
    }
}

/// # Safety
/// The CPU must have SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
pub unsafe fn hex_ssse3(digests: &[[u8; 16]], text: &mut [u8]) {
    use std::arch::x86_64::*;
    assert_eq!(text.len(), 32 * digests.len(), "32 digits a digest");
    // SAFETY: every load reads one 16-byte digest and every store writes 16
    // bytes within its digest's 32-byte slot of `text` (lengths checked
    // above); unaligned forms throughout.
    unsafe {
        let table = _mm_loadu_si128(DIGITS.as_ptr().cast());
        let low = _mm_set1_epi8(0x0f);
        for (chunk, digest) in text.chunks_exact_mut(32).zip(digests) {
            let v = _mm_loadu_si128(digest.as_ptr().cast());
            let hi = _mm_and_si128(_mm_srli_epi16(v, 4), low);
            let lo = _mm_and_si128(v, low);
            let hi = _mm_shuffle_epi8(table, hi);
            let lo = _mm_shuffle_epi8(table, lo);
            let out = chunk.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(out, _mm_unpacklo_epi8(hi, lo));
            _mm_storeu_si128(out.add(1), _mm_unpackhi_epi8(hi, lo));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(digest: &[u8; 16]) -> String {
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn every_byte_value_in_every_position() {
        let digests: Vec<[u8; 16]> = (0..256u32)
            .map(|i| std::array::from_fn(|k| (i as usize * 7 + k * 31) as u8))
            .collect();
        let want: String = digests.iter().map(naive).collect();
        let mut text = vec![0u8; 32 * digests.len()];
        hex_portable(&digests, &mut text);
        assert_eq!(String::from_utf8(text.clone()).unwrap(), want);
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("ssse3") {
            text.fill(0);
            // SAFETY: the CPU has SSSE3 (checked above).
            unsafe { hex_ssse3(&digests, &mut text) };
            assert_eq!(String::from_utf8(text.clone()).unwrap(), want);
        }
        text.fill(0);
        hex_digests(&digests, &mut text);
        assert_eq!(String::from_utf8(text).unwrap(), want);
    }
}
