//! [`Umac`]: a keyed UMAC context, reused across messages.

use super::kdf::{self, Keys};
use super::nh::{NhBackend, NhKernel};
use super::pdf::Pdf;
use super::state::UmacState;
use super::tag::Tag;
use super::uhash::uhash;
use crate::backend::BackendError;
use std::fmt;
use subtle::ConstantTimeEq;

/// UMAC's tag length: 32, 64, 96 or 128 bits (one UHASH stream per 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagBits {
    /// UMAC-32: forgery probability about 2^-30 per attempt.
    B32,
    /// UMAC-64 (and `umac-64@openssh.com`): about 2^-60.
    B64,
    /// UMAC-96: about 2^-90.
    B96,
    /// UMAC-128 (and `umac-128@openssh.com`): about 2^-120.
    B128,
}

impl TagBits {
    /// Every tag length, shortest first.
    pub const ALL: [TagBits; 4] = [TagBits::B32, TagBits::B64, TagBits::B96, TagBits::B128];

    /// The tag length in bytes: 4, 8, 12 or 16.
    pub fn bytes(self) -> usize {
        match self {
            TagBits::B32 => 4,
            TagBits::B64 => 8,
            TagBits::B96 => 12,
            TagBits::B128 => 16,
        }
    }

    /// The tag length in bits.
    pub fn bits(self) -> usize {
        8 * self.bytes()
    }

    /// The tag length with `bits` bits, if UMAC has one.
    pub fn from_bits(bits: usize) -> Option<TagBits> {
        TagBits::ALL.into_iter().find(|t| t.bits() == bits)
    }

    /// UHASH streams: one per 32 bits of tag.
    pub(super) fn streams(self) -> usize {
        self.bytes() / 4
    }
}

/// Why a tag could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UmacError {
    /// The nonce must be 1 to 16 bytes long; it had this many.
    NonceLength(usize),
}

impl fmt::Display for UmacError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UmacError::NonceLength(n) => {
                write!(f, "UMAC nonce must be 1 to 16 bytes long, not {n}")
            }
        }
    }
}

impl std::error::Error for UmacError {}

/// Checks a nonce's length (1 to 16 bytes).
pub(super) fn check_nonce(nonce: &[u8]) -> Result<(), UmacError> {
    if (1..=16).contains(&nonce.len()) {
        Ok(())
    } else {
        Err(UmacError::NonceLength(nonce.len()))
    }
}

/// UMAC (RFC 4418) under one 16-byte key: the subkeys are derived once, in
/// [`Umac::new`] (or [`Umac::rekey`]), and every tag after that costs only
/// the hashing and, at most, one AES call.
///
/// A nonce must never repeat under one key. The context remembers the last
/// pad: on sequential nonces UMAC-64 runs AES once per two tags, UMAC-32
/// once per four, which is why tagging takes `&mut self`.
///
/// Dropping the context wipes the derived subkeys and the cached pad (the
/// PDF's expanded AES-128 key is wiped by the `aes` crate itself when its
/// `zeroize` feature is enabled).
///
/// ```
/// use linerate::mac::umac::{TagBits, Umac};
///
/// let mut umac = Umac::new(b"abcdefghijklmnop", TagBits::B64);
/// let tag = umac.tag(b"abc", b"bcdefghi").unwrap();
/// assert_eq!(tag.to_hex(), "d4d7b9f6bd4fbfcf");
/// assert!(umac.verify(b"abc", b"bcdefghi", &tag));
///
/// // Streaming: the same tag, whatever the pieces.
/// let mut state = umac.start();
/// state.update(b"a");
/// state.update(b"bc");
/// assert_eq!(state.finalize(b"bcdefghi").unwrap(), tag);
/// ```
/// How many messages ahead [`Umac::tag_many`] prefetches: 1500-byte
/// packets from memory went 65 -> 85 Gb/s with 2 (1: 69-78, 4: 80).
pub const PREFETCH_AHEAD: usize = 2;

#[derive(Clone)]
pub struct Umac {
    pub(super) keys: Box<Keys>,
    pub(super) pdf: Pdf,
    pub(super) bits: TagBits,
    pub(super) kernel: NhKernel,
}

impl Umac {
    /// Derives the subkeys of `key` for tags of `bits`, on the active NH
    /// backend ([`NhBackend::active`]).
    pub fn new(key: &[u8; 16], bits: TagBits) -> Umac {
        let kernel = NhKernel::new(NhBackend::active()).expect("the active backend is supported");
        Umac::build(key, bits, kernel)
    }

    /// As [`Umac::new`], on a chosen NH backend; an error if this CPU cannot
    /// run it.
    pub fn with_backend(
        key: &[u8; 16],
        bits: TagBits,
        backend: NhBackend,
    ) -> Result<Umac, BackendError> {
        let Some(kernel) = NhKernel::new(backend) else {
            return Err(BackendError::unsupported(backend));
        };
        Ok(Umac::build(key, bits, kernel))
    }

    fn build(key: &[u8; 16], bits: TagBits, kernel: NhKernel) -> Umac {
        let mut keys = Keys::boxed();
        let pdf = derive(&mut keys, key, bits);
        Umac {
            keys,
            pdf,
            bits,
            kernel,
        }
    }

    /// Replaces the key, deriving the new subkeys in place (no allocation):
    /// the key setup a rekeying connection pays.
    pub fn rekey(&mut self, key: &[u8; 16]) {
        self.pdf = derive(&mut self.keys, key, self.bits);
    }

    /// The tag length.
    pub fn bits(&self) -> TagBits {
        self.bits
    }

    /// The NH backend this context runs.
    pub fn backend(&self) -> NhBackend {
        self.kernel.backend()
    }

    /// The tag of `msg` under `nonce` (1 to 16 bytes).
    #[inline]
    pub fn tag(&mut self, msg: &[u8], nonce: &[u8]) -> Result<Tag, UmacError> {
        check_nonce(nonce)?;
        Ok(match self.bits {
            TagBits::B32 => self.tag_with::<1>(msg, nonce),
            TagBits::B64 => self.tag_with::<2>(msg, nonce),
            TagBits::B96 => self.tag_with::<3>(msg, nonce),
            TagBits::B128 => self.tag_with::<4>(msg, nonce),
        })
    }

    /// The tags of many messages (`msgs[i]` under `nonces[i]`), replacing
    /// the contents of `out`: the batch a packet authenticator has in
    /// memory. While one message is hashed, the one [`PREFETCH_AHEAD`]
    /// places later is prefetched, so a batch larger than the caches streams
    /// from memory without stalling at each message. On an error (a bad nonce) `out` holds the tags before it.
    ///
    /// # Panics
    /// If `msgs` and `nonces` differ in length.
    pub fn tag_many(
        &mut self,
        msgs: &[&[u8]],
        nonces: &[&[u8]],
        out: &mut Vec<Tag>,
    ) -> Result<(), UmacError> {
        assert_eq!(msgs.len(), nonces.len(), "one nonce per message");
        out.clear();
        out.reserve(msgs.len());
        for (i, (msg, nonce)) in msgs.iter().zip(nonces).enumerate() {
            if let Some(next) = msgs.get(i + PREFETCH_AHEAD) {
                crate::cpu::prefetch(next);
            }
            out.push(self.tag(msg, nonce)?);
        }
        Ok(())
    }

    /// The tag with `S` streams, for a nonce already checked.
    #[inline(always)]
    fn tag_with<const S: usize>(&mut self, msg: &[u8], nonce: &[u8]) -> Tag {
        // The pad first: its AES call does not wait for the hash, so the
        // CPU overlaps the two.
        let pad = self.pdf.pad(nonce, 4 * S);
        let hash = uhash::<S>(self.kernel, &self.keys, msg);
        seal(widen(hash), pad, 4 * S)
    }

    /// Whether `tag` is the tag of `msg` under `nonce`, compared in
    /// constant time. False for a nonce of the wrong length or a tag of
    /// the wrong length.
    pub fn verify(&mut self, msg: &[u8], nonce: &[u8], tag: &[u8]) -> bool {
        match self.tag(msg, nonce) {
            Ok(ours) => ours.as_bytes().ct_eq(tag).into(),
            Err(_) => false,
        }
    }

    /// The tag OpenSSH's `umac-64@openssh.com` (with [`TagBits::B64`]) or
    /// `umac-128@openssh.com` (with [`TagBits::B128`]) puts on a packet.
    ///
    /// OpenSSH (`mac.c`, `mac_compute`) takes the nonce to be the packet
    /// sequence number as an 8-byte big-endian integer and MACs `packet`
    /// alone, with no sequence number in front (unlike its HMACs): the
    /// unencrypted `packet_length || padding_length || payload || padding`,
    /// or with encrypt-then-MAC (`-etm@openssh.com`) the length field and
    /// the ciphertext. Its sequence number is a `u_int32_t` that wraps, so
    /// the high four nonce bytes are always zero there. The tag bytes come
    /// out big-endian per 32-bit stream, exactly as in RFC 4418.
    ///
    /// OpenSSH's `umac.c` implements only the 64-bit POLY stage, so it
    /// agrees with RFC 4418 (and this function) on packets of up to 2^24
    /// bytes; SSH packets are at most 256 KiB.
    #[inline]
    pub fn tag_openssh(&mut self, seqno: u64, packet: &[u8]) -> Tag {
        let nonce = seqno.to_be_bytes();
        match self.bits {
            TagBits::B32 => self.tag_with::<1>(packet, &nonce),
            TagBits::B64 => self.tag_with::<2>(packet, &nonce),
            TagBits::B96 => self.tag_with::<3>(packet, &nonce),
            TagBits::B128 => self.tag_with::<4>(packet, &nonce),
        }
    }

    /// Whether `tag` is OpenSSH's tag for `packet` with sequence number
    /// `seqno` ([`Umac::tag_openssh`]), compared in constant time.
    pub fn verify_openssh(&mut self, seqno: u64, packet: &[u8], tag: &[u8]) -> bool {
        self.verify(packet, &seqno.to_be_bytes(), tag)
    }

    /// Test hook: the AES calls the pad has made since key setup, which
    /// shows the cache across sequential nonces at work.
    #[doc(hidden)]
    pub fn __pdf_aes_calls(&self) -> u64 {
        self.pdf.calls()
    }

    /// A streaming computation under this context; the tag does not depend
    /// on how the message is split over [`UmacState::update`] calls.
    pub fn start(&mut self) -> UmacState<'_> {
        UmacState::new(self)
    }
}

impl fmt::Debug for Umac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Umac")
            .field("bits", &self.bits)
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

/// Derives UHASH's subkeys into `keys` and returns the PDF.
fn derive(keys: &mut Keys, key: &[u8; 16], bits: TagBits) -> Pdf {
    let aes = kdf::cipher(key);
    keys.derive(&aes, bits.streams());
    let mut pdf_key = [0u8; 16];
    kdf::kdf(&aes, 0, 1, |_, b| pdf_key = *b);
    let pdf = Pdf::new(kdf::cipher(&pdf_key));
    zeroize::Zeroize::zeroize(&mut pdf_key);
    pdf
}

/// Pads `S` stream results to four (the missing streams read as zero).
#[inline(always)]
pub(super) fn widen<const S: usize>(h: [u32; S]) -> [u32; 4] {
    let mut out = [0; 4];
    out[..S].copy_from_slice(&h);
    out
}

/// The tag from the UHASH streams' 32-bit results and the pad (both read
/// only as far as `len` bytes).
#[inline(always)]
pub(super) fn seal(hash: [u32; 4], pad: [u8; 16], len: usize) -> Tag {
    let mut bytes = [0u8; 16];
    for (out, h) in bytes.chunks_exact_mut(4).zip(hash) {
        out.copy_from_slice(&h.to_be_bytes());
    }
    for (b, p) in bytes.iter_mut().zip(pad) {
        *b ^= p;
    }
    Tag::new(bytes, len)
}
