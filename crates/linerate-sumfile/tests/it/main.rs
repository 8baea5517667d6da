//! linerate-sumfile's integration tests, one binary: a module per subject.

mod cksum_lines;
mod roundtrip;
