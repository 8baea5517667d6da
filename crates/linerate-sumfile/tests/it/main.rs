//! linerate-sumfile's integration tests, one binary: a module per subject.

mod roundtrip;
