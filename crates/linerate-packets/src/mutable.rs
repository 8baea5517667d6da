//! The ICV input of RFC 4302 3.3.3.1: the IP packet as the receiver will
//! see it, with fields that change in transit zeroed and the AH's ICV field
//! (its padding included) zeroed.
//!
//! IPv4: TOS, flags and fragment offset, TTL and header checksum are zeroed;
//! options per RFC 4302 Appendix A.1: End of List, No Operation, the three
//! security options, Router Alert and Sender Directed Multi-Destination
//! Delivery are kept, every other option (Record Route, Timestamp, the
//! source routes, unknown ones) is zeroed in full, type and length too.
//! With a loose or strict source route still under way, the destination
//! address is the one the packet will arrive with: the route's last
//! address (mutable but predictable, RFC 4302 3.3.3.1.1.1).
//!
//! IPv6: traffic class, flow label and hop limit are zeroed; in hop-by-hop
//! and destination options headers, the data of every option whose type
//! has the "may change en route" bit (0x20) is zeroed; a type 0 or type 2
//! routing header with segments left is replaced by what the final
//! destination sees (the addresses swapped through, segments left 0, the
//! destination address the last hop).

use crate::ip::{self, DEST_OPTS, HOP_BY_HOP, IPV6_HEADER, ROUTING, Version};
use crate::problem::Problem;

/// IPv4 options RFC 4302 Appendix A.1 lists as immutable (full type bytes).
const IMMUTABLE_V4_OPTIONS: [u8; 7] = [0, 1, 130, 133, 134, 148, 149];
const LSRR: u8 = 131;
const SSRR: u8 = 137;

/// Fills `out` with the ICV input of the IP packet `p[..len]` whose AH sits
/// at `ah_at` with an ICV of `icv_len` bytes (the AH is at least that long:
/// the callers check).
pub fn icv_input(
    p: &[u8],
    version: Version,
    len: usize,
    ah_at: usize,
    icv_len: usize,
    out: &mut Vec<u8>,
) -> Result<(), Problem> {
    out.clear();
    out.extend_from_slice(&p[..len]);
    match version {
        Version::V4 => zero_v4(out)?,
        Version::V6 => zero_v6(out)?,
    }
    out[ah_at + 12..ah_at + 12 + icv_len].fill(0);
    Ok(())
}

fn zero_v4(p: &mut [u8]) -> Result<(), Problem> {
    let options = v4_options(p)?;
    p[1] = 0;
    p[6..9].fill(0);
    p[10..12].fill(0);
    for (at, kind, olen) in options {
        if !IMMUTABLE_V4_OPTIONS.contains(&kind) {
            if (kind == LSRR || kind == SSRR) && olen >= 7 {
                predict_source_route_destination(p, at, olen);
            }
            p[at..at + olen].fill(0);
        }
    }
    Ok(())
}

/// Whether the options of the IPv4 header at the start of `p` can be read:
/// `sign` and `verify` call a packet malformed for the same reasons, AH or
/// not.
pub fn check_v4_options(p: &[u8]) -> Result<(), Problem> {
    v4_options(p).map(drop)
}

/// The options of the IPv4 header at the start of `p` (its length checked
/// by the caller) other than End of List and No Operation: where each
/// starts, its type and length.
fn v4_options(p: &[u8]) -> Result<Vec<(usize, u8, usize)>, Problem> {
    let ihl = usize::from(p[0] & 0x0f) * 4;
    let mut options = Vec::new();
    let mut at = 20;
    while at < ihl {
        let kind = p[at];
        match kind {
            0 => break,
            1 => {
                at += 1;
                continue;
            }
            _ => {}
        }
        let olen = p.get(at + 1).map_or(0, |&l| usize::from(l));
        if olen < 2 || at + olen > ihl {
            return Err(Problem::malformed(format!(
                "IPv4 option {kind} has a bad length {olen}"
            )));
        }
        options.push((at, kind, olen));
        at += olen;
    }
    Ok(options)
}

/// With addresses left in a source route (its pointer, 1-based, at or
/// before the last one), the packet arrives addressed to the last.
fn predict_source_route_destination(p: &mut [u8], at: usize, olen: usize) {
    let pointer = usize::from(p[at + 2]);
    if pointer + 3 <= olen {
        let mut last = [0u8; 4];
        last.copy_from_slice(&p[at + olen - 4..at + olen]);
        p[16..20].copy_from_slice(&last);
    }
}

fn zero_v6(p: &mut [u8]) -> Result<(), Problem> {
    p[0] &= 0xf0;
    p[1..4].fill(0);
    p[7] = 0;
    let len = p.len();
    for h in ip::ipv6_headers(p, len)? {
        match h.kind {
            HOP_BY_HOP | DEST_OPTS => zero_v6_options(&mut p[h.at..h.at + h.len])?,
            ROUTING => predict_routing(p, h.at, h.len)?,
            _ => {}
        }
    }
    Ok(())
}

/// Zeroes the data of the options marked "may change en route".
fn zero_v6_options(header: &mut [u8]) -> Result<(), Problem> {
    let mut at = 2;
    while at < header.len() {
        let kind = header[at];
        if kind == 0 {
            at += 1;
            continue;
        }
        let Some(&olen) = header.get(at + 1) else {
            return Err(Problem::malformed("IPv6 option runs past its header"));
        };
        let end = at + 2 + usize::from(olen);
        if end > header.len() {
            return Err(Problem::malformed("IPv6 option runs past its header"));
        }
        if kind & 0x20 != 0 {
            header[at + 2..end].fill(0);
        }
        at = end;
    }
    Ok(())
}

/// Rewrites a type 0 or 2 routing header and the destination address as
/// the final destination receives them.
fn predict_routing(p: &mut [u8], at: usize, hlen: usize) -> Result<(), Problem> {
    let routing_type = p[at + 2];
    let left = usize::from(p[at + 3]);
    if left == 0 {
        return Ok(());
    }
    if routing_type != 0 && routing_type != 2 {
        return Err(Problem::unsupported(format!(
            "routing header type {routing_type} with segments left"
        )));
    }
    let n = (hlen - 8) / 16;
    if left > n {
        return Err(Problem::malformed(format!(
            "routing header: {left} segments left of {n} addresses"
        )));
    }
    for k in 0..left {
        let i = at + 8 + 16 * (n - left + k);
        for b in 0..16 {
            p.swap(24 + b, i + b);
        }
    }
    p[at + 3] = 0;
    debug_assert!(at >= IPV6_HEADER);
    Ok(())
}
