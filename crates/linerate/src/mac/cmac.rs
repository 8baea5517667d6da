//! AES-128-CMAC (RFC 4493) under any key length, as RFC 4615 and RFC
//! 5926's KDF take keys: a 16-byte key is used as it is, any other is
//! first reduced to 16 bytes by AES-CMAC under the zero key. Not our hot
//! path: RustCrypto's `cmac` over `aes` (AES-NI where the CPU has it).

use aes::Aes128;
use cmac::{Cmac, KeyInit, Mac};
use zeroize::Zeroizing;

/// An AES-128-CMAC key, set up once (AES's round keys, CMAC's subkeys).
#[derive(Clone)]
pub struct AesCmacKey {
    mac: Cmac<Aes128>,
}

impl AesCmacKey {
    /// Sets up `key`: used as the AES key if it has 16 bytes, else reduced
    /// to 16 (RFC 4615 section 3).
    pub fn new(key: &[u8]) -> AesCmacKey {
        let key: Zeroizing<[u8; 16]> = match <[u8; 16]>::try_from(key) {
            Ok(k) => Zeroizing::new(k),
            Err(_) => Zeroizing::new(AesCmacKey::with_key(&[0; 16]).tag(key)),
        };
        AesCmacKey::with_key(&key)
    }

    fn with_key(key: &[u8; 16]) -> AesCmacKey {
        AesCmacKey {
            mac: <Cmac<Aes128> as KeyInit>::new_from_slice(key).expect("a 16-byte key"),
        }
    }

    /// The 16-byte tag of `message`.
    pub fn tag(&self, message: &[u8]) -> [u8; 16] {
        let mut mac = self.stream();
        mac.update(message);
        mac.finalize().into_bytes().into()
    }

    /// A message fed in pieces (update it, then finalize).
    pub fn stream(&self) -> Cmac<Aes128> {
        self.mac.clone()
    }
}

impl std::fmt::Debug for AesCmacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AesCmacKey { .. }")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 4493 section 4's examples, and RFC 4615 section 4's for keys of
    /// other lengths.
    #[test]
    fn rfc_4493_and_4615_vectors() {
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c");
        let k = AesCmacKey::new(&key);
        assert_eq!(k.tag(b"").to_vec(), hex("bb1d6929e95937287fa37d129b756746"));
        let m = hex("6bc1bee22e409f96e93d7e117393172a");
        assert_eq!(k.tag(&m).to_vec(), hex("070a16b46b4d4144f79bdd9dd04a287c"));
        let message = hex("000102030405060708090a0b0c0d0e0f10111213");
        for (key, want) in [
            (
                "000102030405060708090a0b0c0d0e0fedcb",
                "84a348a4a45d235babfffc0d2b4da09a",
            ),
            (
                "000102030405060708090a0b0c0d0e0f",
                "980ae87b5f4c9c5214f5b6a8455e4c2d",
            ),
            ("00010203040506070809", "290d9e112edb09ee141fcf64c0b72f3d"),
        ] {
            assert_eq!(
                AesCmacKey::new(&hex(key)).tag(&message).to_vec(),
                hex(want),
                "{key}"
            );
        }
    }
}
