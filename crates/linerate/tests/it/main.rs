//! linerate's integration tests, one binary: a module per subject, the
//! helpers they share in `support`.

mod support;

mod crc;
mod gpu;
mod hmac_many;
mod hmac_oracles;
mod hmac_rfc2202;
mod hmac_verify;
mod keyed_md5;
mod lanes_engine;
mod manager;
mod md5_backends;
mod md5_digest_traits;
mod md5_length;
mod md5_many;
mod md5_vectors;
mod md5p_digest;
mod md5p_length;
mod md5p_oracle;
mod md5p_python;
mod md5p_vectors;
mod sha1_lanes;
mod umac_api;
mod umac_backends;
mod umac_nettle;
mod umac_vectors;
