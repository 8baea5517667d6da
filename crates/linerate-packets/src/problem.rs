//! Why a packet was not signed or verified: a kind, counted in the summary
//! line, and a message, reported with the packet's index.

use std::collections::BTreeMap;

/// What went wrong with a packet, as the summary counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The frame carries no IP packet (ARP, another ethertype).
    NotIp,
    /// An IP packet that carries no TCP (TCP-MD5's `sign`).
    NotTcp,
    /// An IPv4 fragment or an IPv6 packet with a Fragment header.
    Fragment,
    /// Headers cut short, lengths pointing past the data.
    Truncated,
    /// Inconsistent headers.
    Malformed,
    /// Captured shorter than it was on the wire.
    SnapCut,
    /// A link type this tool does not read.
    LinkType,
    /// `sign` met a packet that already carries an AH.
    AlreadyAh,
    /// Valid, but outside what this tool handles (jumbograms, routing types).
    Unsupported,
    /// The capture file itself ends or breaks inside a record.
    Capture,
    /// A TCP-AO segment of a connection whose SYNs the capture lacks: no
    /// ISNs, so no traffic keys.
    NoIsn,
    /// A TCP segment whose connection has no line in the key table.
    NoKey,
}

impl Problem {
    /// The problem of a segment of `connection` ("A:p > B:q") whose MAC
    /// has no key: no line in the key table, or (TCP-AO) no SYNs for the
    /// ISNs; `fate` says what became of it ("copied unsigned", "not
    /// verified"). One message per direction of a connection: callers say
    /// it once.
    pub fn unkeyed(kind: Kind, connection: &str, fate: &str) -> Problem {
        let why = match kind {
            Kind::NoIsn => "its SYNs are not in the capture (TCP-AO's traffic keys need both ISNs)",
            _ => "no key in the key table",
        };
        Problem::new(
            kind,
            format!("connection {connection}: {why}: its segments are {fate}"),
        )
    }

    /// Whether it is said once per connection direction rather than per
    /// packet.
    pub fn once_per_connection(&self) -> bool {
        matches!(self.kind, Kind::NoKey | Kind::NoIsn)
    }
}

impl Kind {
    /// The summary's word for it.
    pub fn label(self) -> &'static str {
        match self {
            Kind::NotIp => "not IP",
            Kind::NotTcp => "not TCP",
            Kind::Fragment => "fragment",
            Kind::Truncated => "truncated",
            Kind::Malformed => "malformed",
            Kind::SnapCut => "cut at snap length",
            Kind::LinkType => "link type",
            Kind::AlreadyAh => "already AH",
            Kind::Unsupported => "unsupported",
            Kind::Capture => "capture error",
            Kind::NoIsn => "no SYN",
            Kind::NoKey => "no key",
        }
    }
}

/// A packet's problem: its kind and a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: Kind,
    pub message: String,
}

impl Problem {
    pub fn new(kind: Kind, message: impl Into<String>) -> Problem {
        Problem {
            kind,
            message: message.into(),
        }
    }

    pub fn truncated(message: impl Into<String>) -> Problem {
        Problem::new(Kind::Truncated, message)
    }

    pub fn malformed(message: impl Into<String>) -> Problem {
        Problem::new(Kind::Malformed, message)
    }

    pub fn link(message: impl Into<String>) -> Problem {
        Problem::new(Kind::LinkType, message)
    }

    pub fn unsupported(message: impl Into<String>) -> Problem {
        Problem::new(Kind::Unsupported, message)
    }
}

/// Problems counted by kind, for the summary line.
#[derive(Default, Debug)]
pub struct Tally {
    counts: BTreeMap<Kind, usize>,
}

impl Tally {
    pub fn add(&mut self, kind: Kind) {
        *self.counts.entry(kind).or_default() += 1;
    }

    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    /// How many of one kind.
    pub fn count(&self, kind: Kind) -> usize {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    /// `1 not IP, 2 fragment`, in a fixed order.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(kind, n)| format!("{n} {}", kind.label()))
            .collect();
        parts.join(", ")
    }
}
