//! HMAC (RFC 2104). (Being written.)
