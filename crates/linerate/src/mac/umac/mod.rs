//! UMAC (RFC 4418). (Being written.)
