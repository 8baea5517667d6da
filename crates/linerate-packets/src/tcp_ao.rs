//! The TCP Authentication Option (RFC 5925), TCP-MD5's successor, with
//! RFC 5926's two algorithms: HMAC-SHA-1-96 and AES-128-CMAC-96, each with
//! its key derivation function.
//!
//! A connection's master key is never used on a segment: each direction
//! gets traffic keys derived from it and the connection (addresses, ports,
//! both initial sequence numbers; a SYN's own keys have the peer's ISN as
//! zero). The MAC covers the Sequence Number Extension (the high 32 bits of
//! the sender's 64-bit sequence number), the pseudo-header, the TCP header
//! (with its options, or only the TCP-AO option when the key excludes the
//! others) with the checksum and the MAC zeroed, and the payload.
//!
//! The option: kind 29, length 16, KeyID, RNextKeyID, 12 bytes of MAC.
//! Connections, their ISNs and SNEs are followed by [`crate::tcp_ao_flows`].

use linerate::HmacSha1Key;
use linerate::mac::cmac::AesCmacKey;

use crate::ip::{self, Version};
use crate::packet::Located;
use crate::problem::{Kind, Problem};
use crate::tcp::{self, OPT_AO, Segment};

/// The MAC's length for both of RFC 5926's algorithms.
pub const MAC_LEN: usize = 12;
/// The option's length: kind, length, KeyID, RNextKeyID, MAC.
pub const OPTION_LEN: usize = 4 + MAC_LEN;

/// RFC 5926's MAC algorithms (each with its KDF).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AoAlgorithm {
    /// HMAC-SHA-1-96, keys from KDF_HMAC_SHA1 (160 bits).
    HmacSha1_96,
    /// AES-128-CMAC-96, keys from KDF_AES_128_CMAC (128 bits).
    Aes128Cmac96,
}

impl AoAlgorithm {
    pub const ALL: [AoAlgorithm; 2] = [AoAlgorithm::HmacSha1_96, AoAlgorithm::Aes128Cmac96];

    /// The name `linerate packets --alg` takes.
    pub fn name(self) -> &'static str {
        match self {
            AoAlgorithm::HmacSha1_96 => "tcp-ao-hmac-sha1-96",
            AoAlgorithm::Aes128Cmac96 => "tcp-ao-aes128-cmac-96",
        }
    }

    /// The algorithm named `name` (any case).
    pub fn from_name(name: &str) -> Option<AoAlgorithm> {
        AoAlgorithm::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }

    /// RFC 5926 section 3.1's KDF: the PRF in counter mode, one round
    /// (`i = 1`, label "TCP-AO", the context, the output length in bits).
    pub fn traffic_key(self, master: &[u8], context: &[u8]) -> TrafficKey {
        let bits: u16 = match self {
            AoAlgorithm::HmacSha1_96 => 160,
            AoAlgorithm::Aes128Cmac96 => 128,
        };
        let mut input = Vec::with_capacity(7 + context.len() + 2);
        input.push(1);
        input.extend_from_slice(b"TCP-AO");
        input.extend_from_slice(context);
        input.extend_from_slice(&bits.to_be_bytes());
        // The KDF's PRF is the algorithm's MAC under the master key (for
        // AES-CMAC, a master key of other than 16 bytes reduced to one).
        let key = zeroize::Zeroizing::new(match self {
            AoAlgorithm::HmacSha1_96 => HmacSha1Key::new(master).tag(&input).to_vec(),
            AoAlgorithm::Aes128Cmac96 => AesCmacKey::new(master).tag(&input).to_vec(),
        });
        let keyed = match self {
            AoAlgorithm::HmacSha1_96 => Keyed::HmacSha1(Box::new(HmacSha1Key::new(&key))),
            AoAlgorithm::Aes128Cmac96 => Keyed::Cmac(Box::new(AesCmacKey::new(&key))),
        };
        TrafficKey { key, keyed }
    }
}

/// One direction's traffic key, set up for MACs.
pub struct TrafficKey {
    key: zeroize::Zeroizing<Vec<u8>>,
    keyed: Keyed,
}

enum Keyed {
    HmacSha1(Box<HmacSha1Key>),
    Cmac(Box<AesCmacKey>),
}

impl TrafficKey {
    /// The key's bytes (for comparison with RFC 9235's vectors).
    pub fn bytes(&self) -> &[u8] {
        &self.key
    }

    /// The 12-byte MAC of `message`.
    pub fn mac(&self, message: &[u8]) -> [u8; MAC_LEN] {
        let mut tag = [0; MAC_LEN];
        match &self.keyed {
            Keyed::HmacSha1(key) => tag.copy_from_slice(&key.tag(message)[..MAC_LEN]),
            Keyed::Cmac(key) => tag.copy_from_slice(&key.tag(message)[..MAC_LEN]),
        }
        tag
    }
}

/// The MACs of many segments, `inputs[i]` under `keys[i]`, into the first
/// [`MAC_LEN`] bytes of each slot of `out`: HMAC-SHA-1's in the SHA-1 lanes
/// (a key per lane), AES-CMAC's eight chains at a time for each key.
///
/// # Panics
/// If the three slices differ in length.
pub fn macs(keys: &[&TrafficKey], inputs: &[&[u8]], out: &mut [[u8; 16]]) {
    assert!(keys.len() == inputs.len() && inputs.len() == out.len());
    let (sha1, cmac): (Vec<usize>, Vec<usize>) =
        (0..keys.len()).partition(|&i| matches!(keys[i].keyed, Keyed::HmacSha1(_)));
    if !sha1.is_empty() {
        let messages: Vec<&[u8]> = sha1.iter().map(|&i| inputs[i]).collect();
        let mut tags = vec![[0u8; 16]; sha1.len()];
        linerate::sha1_lanes::hmac_sha1_keyed_many_with(
            linerate::sha1_lanes::Sha1LanesBackend::active(),
            |j| match &keys[sha1[j]].keyed {
                Keyed::HmacSha1(key) => key,
                Keyed::Cmac(_) => unreachable!("partitioned"),
            },
            &messages,
            &mut tags,
            MAC_LEN,
        );
        for (&i, tag) in sha1.iter().zip(&tags) {
            out[i] = *tag;
        }
    }
    // AES-CMAC batches share one key: segments grouped by theirs.
    let mut cmac = cmac;
    cmac.sort_by_key(|&i| std::ptr::from_ref(keys[i]) as usize);
    for same in cmac.chunk_by(|&a, &b| std::ptr::eq(keys[a], keys[b])) {
        let Keyed::Cmac(key) = &keys[same[0]].keyed else {
            unreachable!("partitioned")
        };
        let messages: Vec<&[u8]> = same.iter().map(|&i| inputs[i]).collect();
        let mut tags = vec![[0u8; 16]; same.len()];
        key.tag_many_into(&messages, &mut tags, MAC_LEN);
        for (&i, tag) in same.iter().zip(&tags) {
            out[i] = *tag;
        }
    }
}

impl std::fmt::Debug for TrafficKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TrafficKey { .. }")
    }
}

/// RFC 5925 section 5.2's context: source and destination addresses,
/// ports, the sender's ISN and the receiver's (zero for a SYN's keys).
pub fn context(ip: &[u8], version: Version, seg: &Segment, src_isn: u32, dst_isn: u32) -> Vec<u8> {
    let mut c = Vec::with_capacity(44);
    match version {
        Version::V4 => c.extend_from_slice(&ip[12..20]),
        Version::V6 => c.extend_from_slice(&ip[8..40]),
    }
    c.extend_from_slice(&ip[seg.at..seg.at + 4]);
    c.extend_from_slice(&src_isn.to_be_bytes());
    c.extend_from_slice(&dst_isn.to_be_bytes());
    c
}

/// A segment's TCP-AO option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AoOption {
    /// Offset of the option (its kind byte) in the IP packet.
    pub at: usize,
    pub key_id: u8,
    pub rnext_key_id: u8,
}

/// The TCP-AO option of a segment: `None` without one; an error for a
/// malformed one, two of them, or one with a MAC length other than 12.
pub fn find(ip: &[u8], seg: &Segment) -> Result<Option<AoOption>, Problem> {
    let header = &ip[seg.at..seg.at + seg.header_len];
    let options = tcp::options(header)?;
    tcp::one_authentication_option(&options)?;
    match tcp::only(&options, OPT_AO, "TCP-AO")? {
        None => Ok(None),
        Some(o) if o.len != OPTION_LEN => Err(Problem::malformed(format!(
            "TCP-AO option of {} bytes: RFC 5926's MACs make {OPTION_LEN}",
            o.len
        ))),
        Some(o) => Ok(Some(AoOption {
            at: seg.at + o.at,
            key_id: header[o.at + 2],
            rnext_key_id: header[o.at + 3],
        })),
    }
}

/// RFC 5925 section 5.1's MAC input into `out` (cleared first): the SNE,
/// the pseudo-header, the TCP header with checksum and MAC zeroed (all
/// options, or with `include_options` false only the TCP-AO option), the
/// payload. `option` is the segment's, as [`find`] found it.
pub fn mac_input(
    ip: &[u8],
    version: Version,
    seg: &Segment,
    option: &AoOption,
    sne: u32,
    include_options: bool,
    out: &mut Vec<u8>,
) {
    out.clear();
    out.extend_from_slice(&sne.to_be_bytes());
    tcp::push_pseudo_and_fixed_header(ip, version, seg, out);
    let header = &ip[seg.at..seg.at + seg.header_len];
    let ao_at = option.at - seg.at;
    if include_options {
        // The whole header as sent (NOPs, the end of list, padding), the
        // MAC zeroed.
        let start = out.len();
        out.extend_from_slice(&header[tcp::HEADER..]);
        let mac = start + ao_at - tcp::HEADER + 4;
        out[mac..mac + MAC_LEN].fill(0);
    } else {
        out.extend_from_slice(&header[ao_at..ao_at + 4]);
        out.extend_from_slice(&[0; MAC_LEN]);
    }
    out.extend_from_slice(&ip[seg.at + seg.header_len..seg.at + seg.len]);
}

/// A frame with its TCP-AO option in place (MAC zero), as [`build`] left
/// it in its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The IP packet's offset in the buffer, and its new length.
    pub ip_at: usize,
    pub ip_len: usize,
    pub version: Version,
    pub segment: Segment,
    /// The option, its offset counted in the IP packet.
    pub option: AoOption,
}

impl Placed {
    /// The IP packet in `buf`.
    pub fn ip<'b>(&self, buf: &'b [u8]) -> &'b [u8] {
        &buf[self.ip_at..self.ip_at + self.ip_len]
    }
}

/// How many bytes signing the located frame adds: 0 where its segment has
/// a TCP-AO option, [`OPTION_LEN`] where it has room for one; or why it
/// cannot be signed.
pub fn growth(frame: &[u8], at: &Located) -> Result<usize, Problem> {
    let ip = &frame[at.ip_at..at.ip_at + at.layout.len];
    let Some(seg) = tcp::locate(ip, &at.layout)? else {
        return Err(Problem::new(Kind::NotTcp, "not TCP: copied unchanged"));
    };
    if find(ip, &seg)?.is_some() {
        return Ok(0);
    }
    let header = &ip[seg.at..seg.at + seg.header_len];
    if tcp::options(header)?.iter().any(|o| o.kind == tcp::OPT_MD5) {
        return Err(Problem::unsupported(
            "carries a TCP-MD5 option: a TCP-AO option beside it is forbidden (RFC 5925 section 2.2)",
        ));
    }
    if seg.header_len + OPTION_LEN > tcp::MAX_HEADER {
        return Err(Problem::unsupported(format!(
            "no room for the TCP-AO option: {} bytes of TCP options already",
            seg.header_len - tcp::HEADER
        )));
    }
    Ok(OPTION_LEN)
}

/// Appends `frame` to `dest` with a TCP-AO option carrying `key_id` and
/// `rnext_key_id` and a zero MAC: inserted first among the options, or
/// the segment's own overwritten; the data offset and the IP length and
/// header checksum fixed. The TCP checksum is left for [`seal`].
pub fn build(
    frame: &[u8],
    at: &Located,
    key_id: u8,
    rnext_key_id: u8,
    dest: &mut Vec<u8>,
) -> Result<Placed, Problem> {
    let grow = growth(frame, at)?;
    let base = dest.len();
    let ip = &frame[at.ip_at..at.ip_at + at.layout.len];
    let seg = tcp::locate(ip, &at.layout)?.expect("growth saw TCP");
    let header_start = at.ip_at + seg.at;
    if grow == 0 {
        dest.extend_from_slice(frame);
    } else {
        let insert = header_start + tcp::HEADER;
        dest.reserve(frame.len() + grow);
        dest.extend_from_slice(&frame[..insert]);
        dest.extend_from_slice(&[OPT_AO, OPTION_LEN as u8, 0, 0]);
        dest.extend_from_slice(&[0; MAC_LEN]);
        dest.extend_from_slice(&frame[insert..]);
        let signed = &mut dest[base..];
        signed[header_start + 12] += ((OPTION_LEN / 4) as u8) << 4;
        ip::grow(&mut signed[at.ip_at..], at.layout.version, OPTION_LEN)?;
    }
    let ip_len = at.layout.len + grow;
    let ip = &mut dest[base + at.ip_at..base + at.ip_at + ip_len];
    let segment = Segment {
        at: seg.at,
        len: ip_len - seg.at,
        header_len: seg.header_len + grow,
    };
    let option = find(ip, &segment)?.expect("the option is in place");
    ip[option.at + 2] = key_id;
    ip[option.at + 3] = rnext_key_id;
    ip[option.at + 4..option.at + OPTION_LEN].fill(0);
    Ok(Placed {
        ip_at: base + at.ip_at,
        ip_len,
        version: at.layout.version,
        segment,
        option: AoOption {
            key_id,
            rnext_key_id,
            ..option
        },
    })
}

/// Writes `mac` into a frame [`build`] placed in `buf` and sets its TCP
/// checksum.
pub fn seal(buf: &mut [u8], placed: &Placed, mac: &[u8; MAC_LEN]) {
    let ip = &mut buf[placed.ip_at..placed.ip_at + placed.ip_len];
    let at = placed.option.at + 4;
    ip[at..at + MAC_LEN].copy_from_slice(mac);
    let seg = placed.segment.at;
    let sum = tcp::checksum(ip, placed.version, &ip[seg..]);
    ip[seg + tcp::CHECKSUM_AT..seg + tcp::CHECKSUM_AT + 2].copy_from_slice(&sum.to_be_bytes());
}
