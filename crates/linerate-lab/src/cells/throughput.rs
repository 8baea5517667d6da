//! The throughput table (`openssl speed`'s: algorithms by block size, in
//! 1000s of bytes per second) and, beside it, Eric Young's 1998 digest table
//! against today's figures.

use super::{Context, Rate, bytes_cell};
use crate::algo::Algo;
use crate::seeds::{self, EAY_DIGESTS, EAY_SIZES};
use crate::table::{Cell, Table, Unit, Value};

/// openssl speed's block sizes (and so the 1998 table's, plus 16 KiB).
pub const DEFAULT_SIZES: [u64; 6] = [8, 64, 256, 1024, 8192, 16384];

/// Cells the throughput table measures (for the progress bar).
pub fn cell_count(algos: &[Algo], sizes: &[u64]) -> u64 {
    (algos.len() * sizes.len()) as u64
}

/// Measures every algorithm at every size on `ctx.threads` threads.
pub fn measure(ctx: &Context<'_>, algos: &[Algo], sizes: &[u64]) -> Table {
    let mut columns = vec!["type".to_string()];
    columns.extend(sizes.iter().map(|s| format!("{s} bytes")));
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut table = Table::new("throughput", "Throughput by block size", &columns);
    for &algo in algos {
        let name = algo.name();
        let cells = sizes
            .iter()
            .map(|&bytes| {
                let size = bytes as usize;
                let blocks = algo.blocks_per_call(size);
                let value = ctx.cell(
                    &format!("{name} {bytes} bytes"),
                    ctx.threads,
                    &|| algo.job(size, ctx.cold),
                    Rate::PerSecond((blocks * size) as f64),
                );
                bytes_cell(&name, bytes, ctx.threads, value)
            })
            .collect();
        table.row(name, cells);
    }
    table.note(
        "The 'numbers' are in 1000s of bytes per second processed (as openssl speed and the \
         1998 table); 'bytes' is the size of the block digested, each block a whole message \
         (init, update, final) with the key set up once.",
    );
    table.note(format!(
        "Threads: {} (each thread its own blocks; the figure is their sum).",
        ctx.threads
    ));
    table.note(match ctx.cold {
        Some(bytes) => format!(
            "Cold (--cold): each call reads the next blocks of a {} MiB buffer, far larger \
             than the caches, as RFC 1810 measured with on-chip caching prohibited.",
            bytes >> 20
        ),
        None => "Warm: each call reads the same blocks, which stay in the caches (as openssl \
                 speed measures); --cold streams them from memory."
            .to_string(),
    });
    table.note(
        "md5-mb, hmac-md5-mb: blocks of that size hashed many at a time in SIMD lanes \
         (md5_many, HmacMd5Key::tag_many_into); \
         md5pK: RFC 1810's MD5-P/K (not MD5); umac-N: a fresh 8-byte nonce per block; \
         read: the blocks only read (their 64-bit words summed), the ceiling of every row \
         at that size: the caches' rate warm, memory's with --cold.",
    );
    table.seeds.push(&seeds::EAY1998_DIGESTS);
    table
}

/// The 1998 digest table beside today's figures from `throughput`, for
/// the algorithms and sizes it measured (none: no table).
pub fn then_and_now(throughput: &Table) -> Option<Table> {
    let mut table = Table::new(
        "digests_then_and_now",
        "Then and now: digests by block size, Pentium Pro 200 (1998) and this machine",
        &[
            "type @ bytes",
            "1998 (quoted)",
            "now (this run)",
            "now / 1998",
        ],
    );
    for (old_name, algorithm, figures) in EAY_DIGESTS {
        for (&bytes, kilo) in EAY_SIZES.iter().zip(figures) {
            let then = kilo * 1e3;
            // Only what this run measured: ALGO and --bytes may leave rows out.
            let Some(now) = throughput
                .find(algorithm, Some(bytes), None)
                .map(|c| c.value.clone())
            else {
                continue;
            };
            let ratio = match (&now, now.number()) {
                (Value::NotAvailable(why), _) => Value::NotAvailable(why.clone()),
                (_, Some(v)) => Value::Derived(v / then),
                (_, None) => Value::NotAvailable("no figure".into()),
            };
            table.row(
                format!("{old_name} @ {bytes}"),
                vec![
                    Cell::new(
                        algorithm,
                        "then_bytes_per_second",
                        Unit::BytesPerSecond,
                        Value::Quoted(then),
                    )
                    .bytes(bytes),
                    Cell::new(algorithm, "bytes_per_second", Unit::BytesPerSecond, now)
                        .bytes(bytes),
                    Cell::new(algorithm, "now_over_then", Unit::Ratio, ratio).bytes(bytes),
                ],
            );
        }
    }
    table.note(
        "1998: Eric Young's x86 assembler on a Pentium Pro 200 (one CPU), quoted; hmac(md5) \
         there is compared with hmac-md5 here (key set up once).",
    );
    if let Some(threads) = throughput
        .cells()
        .find_map(|c| c.threads)
        .filter(|&t| t > 1)
    {
        table.note(format!("Now: {threads} threads (-j), their sum."));
    }
    table.seeds.push(&seeds::EAY1998_DIGESTS);
    (!table.rows.is_empty()).then_some(table)
}
