//! The command line's integration tests, one binary: a module per command
//! (or per side of one), the helpers they share in `support`.

mod support;

mod architecture;
mod audit;
mod changing;
mod cksum;
mod conventions;
mod etag;
mod etag_fifo;
mod etag_s3;
mod etag_search;
mod help_options;
mod mac_check;
mod mac_errors;
mod mac_hmac;
mod mac_umac;
mod md5_driver;
mod md5p_driver;
mod packets;
mod packets_hostile;
mod packets_peer;
mod packets_tcp;
mod packets_tcp_ao;
mod readme;
mod report_browser;
mod speed;
mod speed_ssh;
mod sum_args;
mod sum_check;
mod sum_compute;
mod sum_io;
mod sum_md5p;
mod sum_threads;
mod sum_tree;
