//! Link layers: where the IP packet starts in a captured frame. Ethernet
//! (with at most one 802.1Q tag), raw IP (LINKTYPE_RAW 101, and 228/229 for
//! IPv4/IPv6 only), Linux cooked captures SLL (113) and SLL2 (276). The
//! framing is never changed: `sign` inserts the AH inside the IP packet.

use crate::problem::Problem;

/// The link types `linerate packets` reads.
pub const SUPPORTED: &str = "1 (Ethernet), 101/228/229 (raw IP), 113 (SLL), 276 (SLL2)";

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETHERTYPE_VLAN: u16 = 0x8100;

/// Where the IP packet of `frame` starts, `Ok(None)` if the frame carries
/// no IP (ARP, another ethertype), an error if the link type is unknown
/// or the link header is cut short.
pub fn ip_offset(link_type: Option<u16>, frame: &[u8]) -> Result<Option<usize>, Problem> {
    let Some(link_type) = link_type else {
        return Err(Problem::link("no interface declared for this packet"));
    };
    let ethertype_at = |at: usize, header: usize, what: &str| -> Result<Option<usize>, Problem> {
        let Some(bytes) = frame.get(at..at + 2) else {
            return Err(Problem::truncated(format!("truncated {what} header")));
        };
        if frame.len() < header {
            return Err(Problem::truncated(format!("truncated {what} header")));
        }
        match u16::from_be_bytes([bytes[0], bytes[1]]) {
            ETHERTYPE_IPV4 | ETHERTYPE_IPV6 => Ok(Some(header)),
            _ => Ok(None),
        }
    };
    match link_type {
        1 => {
            let outer = frame.get(12..14).map(|b| u16::from_be_bytes([b[0], b[1]]));
            match outer {
                None => Err(Problem::truncated("truncated Ethernet header")),
                Some(ETHERTYPE_VLAN) => ethertype_at(16, 18, "802.1Q"),
                Some(_) => ethertype_at(12, 14, "Ethernet"),
            }
        }
        101 | 228 | 229 => match frame.first().map(|b| b >> 4) {
            None => Err(Problem::truncated("empty raw IP packet")),
            Some(4) if link_type != 229 => Ok(Some(0)),
            Some(6) if link_type != 228 => Ok(Some(0)),
            Some(v) => Err(Problem::malformed(format!(
                "IP version {v} on raw link type {link_type}"
            ))),
        },
        113 => ethertype_at(14, 16, "Linux SLL"),
        276 => ethertype_at(0, 20, "Linux SLL2"),
        other => Err(Problem::link(format!(
            "unknown link type {other} (supported: {SUPPORTED})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        let mut eth = vec![0u8; 14];
        eth[12..14].copy_from_slice(&[0x08, 0x00]);
        assert_eq!(ip_offset(Some(1), &eth), Ok(Some(14)));
        eth[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(ip_offset(Some(1), &eth), Ok(None));
        let mut vlan = vec![0u8; 18];
        vlan[12..14].copy_from_slice(&[0x81, 0x00]);
        vlan[16..18].copy_from_slice(&[0x86, 0xdd]);
        assert_eq!(ip_offset(Some(1), &vlan), Ok(Some(18)));
        assert!(ip_offset(Some(1), &vlan[..17]).is_err());
        assert_eq!(ip_offset(Some(101), &[0x45]), Ok(Some(0)));
        assert!(ip_offset(Some(228), &[0x60]).is_err());
        let mut sll2 = vec![0u8; 20];
        sll2[0..2].copy_from_slice(&[0x86, 0xdd]);
        assert_eq!(ip_offset(Some(276), &sll2), Ok(Some(20)));
        assert!(ip_offset(Some(147), &sll2).is_err());
        assert!(ip_offset(None, &sll2).is_err());
    }
}
