use linerate::md5::{Backend, Md5};
use std::time::Instant;
fn main() {
    let buf = vec![0x5au8; 16384];
    for _ in 0..3 {
    for b in Backend::supported().filter(|b| *b != Backend::Reference) {
        let mut h = Md5::with_backend(b).unwrap();
        let n = 40000;
        let t = Instant::now();
        for _ in 0..n { h.update(&buf); }
        let d = h.finalize();
        let s = t.elapsed().as_secs_f64();
        println!("{b:10} {:8.1} MB/s  {:x}", (n * buf.len()) as f64 / s / 1e6, d[0]);
    }}
}
