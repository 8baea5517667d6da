//! IP Authentication Headers (RFC 4302, transport mode) and the TCP MD5
//! signature option (RFC 2385) on the packets of pcap and pcapng captures:
//! RFC 1810's question (can MD5 authenticate packets at the speed of the
//! network?) asked of real traffic.
//!
//! - [`capture`] and [`stream`]: captures read, whole or chunk by chunk in
//!   bounded memory; [`write`](mod@write): records written back in the input's format;
//! - [`link`]: link layers; [`ip`]: IPv4/IPv6 headers; [`packet`]: a
//!   frame's IP packet located;
//! - [`ah`]: the header itself; [`mutable`]: the ICV input, with the
//!   fields that change in transit zeroed; [`icv`]: the ICV algorithms, a
//!   subset of linerate's MACs, computed in batches;
//! - [`sign`] and [`verify`]: whole captures signed and verified, each
//!   problem reported through a callback with its packet index;
//!   [`batch`]: a capture's packets as ICV inputs, for timing;
//! - [`tcp`]: TCP segments, options, pseudo-header and checksum;
//!   [`tcp_md5`]: RFC 2385's signature option, what BGP runs today;
//!   [`tcp_ao`]: RFC 5925's authentication option, its KDFs and MACs;
//!   [`tcp_ao_flows`]: connections followed for their ISNs and SNEs;
//! - [`keys`]: keys per connection (address prefixes and ports), as
//!   routers configure TCP-MD5 and TCP-AO per peer;
//! - [`problem`]: why a packet was not signed or verified.

#![forbid(unsafe_code)]

pub mod ah;
pub mod batch;
pub mod capture;
pub mod icv;
pub mod ip;
pub mod keys;
pub mod link;
pub mod mutable;
pub mod packet;
pub mod problem;
pub mod sign;
pub mod stream;
pub mod tcp;
pub mod tcp_ao;
pub mod tcp_ao_flows;
pub mod tcp_md5;
pub mod verify;
pub mod write;
