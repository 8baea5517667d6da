//! A captured packet's IP packet: past the link layer, whole (not cut at
//! the snap length), its headers read.

use crate::capture::Packet;
use crate::ip::{self, Layout};
use crate::link;
use crate::problem::{Kind, Problem};

/// Where a frame's IP packet is and what it holds.
#[derive(Clone, Copy, Debug)]
pub struct Located {
    /// The IP header's offset in the frame.
    pub ip_at: usize,
    pub layout: Layout,
}

/// The IP packet of `packet`: `Ok(None)` for a frame without IP, an error
/// for an unknown link type, a snap-cut record or a broken IP header.
pub fn locate(packet: &Packet<'_>) -> Result<Option<Located>, Problem> {
    let Some(ip_at) = link::ip_offset(packet.link_type, packet.data)? else {
        return Ok(None);
    };
    if (packet.data.len() as u64) < u64::from(packet.orig_len) {
        return Err(Problem::new(
            Kind::SnapCut,
            format!(
                "cut at snap length ({} of {} bytes captured)",
                packet.data.len(),
                packet.orig_len
            ),
        ));
    }
    let layout = ip::parse(&packet.data[ip_at..])?;
    Ok(Some(Located { ip_at, layout }))
}
