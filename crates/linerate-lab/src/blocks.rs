//! The data a timed job reads: one block again and again (warm: it stays in
//! the L1 or L2 cache, as `openssl speed` measures), or consecutive blocks
//! from a buffer far larger than the last-level cache (cold: every block
//! comes from memory, as RFC 1810 measured with on-chip caching
//! prohibited; `linerate speed --cold`).

use std::sync::{Arc, Mutex, PoisonError};

/// A job's blocks of `len` bytes.
pub struct Blocks {
    /// Warm: the job's own blocks. Cold: one large buffer that every job
    /// of the run shares (read only), made once.
    buf: Arc<[u8]>,
    len: usize,
    at: usize,
    cold: bool,
}

impl Blocks {
    /// `per_call` blocks of `len` bytes read again on every call; or, with
    /// `cold = Some(bytes)`, read in turn from a buffer of that many bytes.
    pub fn new(len: usize, per_call: usize, cold: Option<usize>) -> Blocks {
        let want = len * per_call;
        let buf = match cold {
            Some(bytes) => shared(bytes.max(want)),
            None => pattern(want),
        };
        Blocks {
            buf,
            len,
            at: 0,
            cold: cold.is_some(),
        }
    }

    /// The next `n` blocks, one after another.
    pub fn next(&mut self, n: usize) -> &[u8] {
        let want = (n * self.len).min(self.buf.len());
        if !self.cold {
            return &self.buf[..want];
        }
        if self.at + want > self.buf.len() {
            self.at = 0;
        }
        let start = self.at;
        self.at += want;
        &self.buf[start..start + want]
    }
}

fn pattern(len: usize) -> Arc<[u8]> {
    (0..len).map(|i| i as u8).collect()
}

/// The cold buffer of at least `len` bytes: made on first use and kept
/// for the run (filling hundreds of MiB for every cell would cost more
/// than the cells).
fn shared(len: usize) -> Arc<[u8]> {
    static COLD: Mutex<Option<Arc<[u8]>>> = Mutex::new(None);
    let mut cold = COLD.lock().unwrap_or_else(PoisonError::into_inner);
    match &*cold {
        Some(buf) if buf.len() >= len => Arc::clone(buf),
        _ => Arc::clone(cold.insert(pattern(len))),
    }
}

/// How much memory `--cold` streams through: four times the last-level
/// cache when Linux says how large it is, else 512 MiB.
pub fn cold_bytes() -> usize {
    last_level_cache().map_or(512 << 20, |llc| (4 * llc).max(64 << 20))
}

/// The largest cache Linux lists for CPU 0, in bytes.
fn last_level_cache() -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("size")).ok())
        .filter_map(|s| parse_size(s.trim()))
        .max()
}

/// `2048K`, `32M`, `512` (bytes) as sysfs writes cache sizes.
fn parse_size(s: &str) -> Option<usize> {
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: usize = digits.parse().ok()?;
    match unit {
        "" => Some(n),
        "K" => Some(n << 10),
        "M" => Some(n << 20),
        "G" => Some(n << 30),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_reads_the_same_blocks() {
        let mut b = Blocks::new(64, 2, None);
        let first = b.next(2).as_ptr();
        assert_eq!(b.next(2).len(), 128);
        assert_eq!(b.next(2).as_ptr(), first);
    }

    #[test]
    fn cold_walks_the_buffer_and_wraps() {
        let mut b = Blocks::new(100, 1, Some(250));
        let starts: Vec<usize> = (0..4).map(|_| b.next(1).as_ptr() as usize).collect();
        assert_eq!(starts[1] - starts[0], 100);
        assert_eq!(starts[2], starts[0]);
        assert_eq!(starts[3] - starts[0], 100);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2048K"), Some(2 << 20));
        assert_eq!(parse_size("105M"), Some(105 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("1X"), None);
        assert!(cold_bytes() >= 64 << 20);
    }
}
