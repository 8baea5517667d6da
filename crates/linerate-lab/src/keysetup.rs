//! The key-setup table after Eric Young's 1998 post: for each cipher the
//! time to set up a key, the time to CBC-encrypt 8 bytes (one 64-bit block,
//! or 8 bytes of RC4 keystream), and the cost of a key setup in bytes that
//! could have been encrypted meanwhile (set_key / CBC-8 time x 8), with the
//! 1998 Pentium Pro figures beside. Ciphers from RustCrypto's crates.

use crate::cells::{Context, Rate};
use crate::seeds::{self, EAY_KEY_SETUP};
use crate::table::{Cell, Table, Unit, Value};
use crate::timing::Job;
use cipher::{Block, BlockCipherEncrypt, KeyInit, StreamCipher};
use std::hint::black_box;

/// The ciphers, named as in the 1998 table; IDEA's two key schedules are
/// two rows there.
const CIPHERS: [&str; 9] = [
    "DES",
    "3-DES",
    "IDEA enc",
    "IDEA dec",
    "RC2",
    "RC4",
    "RC5-32-12",
    "Blowfish",
    "CAST5",
];

/// Why IDEA's decryption schedule has no figure of its own.
const IDEA_DEC: &str = "RustCrypto's idea derives the encryption and decryption key \
    schedules together in new(): the IDEA enc row's set_key covers both";

/// Cells this table measures (for the progress bar).
pub fn cell_count() -> u64 {
    (CIPHERS.len() * 2) as u64
}

/// Set-up and CBC-8 jobs of a 64-bit block cipher under a `key_len`-byte key.
fn block_cipher<C>(key_len: usize) -> (Job, Job)
where
    C: KeyInit + BlockCipherEncrypt + Send + 'static,
{
    let key: Vec<u8> = (1..=key_len as u8).collect();
    let set_key_with = key.clone();
    let set_key: Job = Box::new(move || {
        black_box(C::new_from_slice(black_box(&set_key_with)).ok());
    });
    let cbc: Job = match C::new_from_slice(&key) {
        Ok(cipher) => {
            let mut chain = Block::<C>::default();
            let plain = Block::<C>::default();
            Box::new(move || {
                // CBC: the block XOR the previous ciphertext, encrypted.
                for (c, p) in chain.iter_mut().zip(black_box(&plain).iter()) {
                    *c ^= p;
                }
                cipher.encrypt_block(&mut chain);
                black_box(&chain);
            })
        }
        Err(_) => Box::new(|| {}),
    };
    (set_key, cbc)
}

/// RC4: set-up, and 8 bytes of keystream applied.
fn rc4_jobs() -> (Job, Job) {
    let key: Vec<u8> = (1..=16u8).collect();
    let set_key_with = key.clone();
    let set_key: Job = Box::new(move || {
        black_box(rc4::Rc4::new_from_slice(black_box(&set_key_with)).ok());
    });
    let cbc: Job = match rc4::Rc4::new_from_slice(&key) {
        Ok(mut rc4) => {
            let mut buf = [0u8; 8];
            Box::new(move || {
                rc4.apply_keystream(black_box(&mut buf));
                black_box(&buf);
            })
        }
        Err(_) => Box::new(|| {}),
    };
    (set_key, cbc)
}

/// The jobs of a cipher of [`CIPHERS`] (key lengths as the 1998 library's
/// defaults: 8/24 bytes for DES/3-DES, 16 elsewhere).
fn jobs(name: &str) -> Result<(Job, Job), String> {
    type Rc5_32_12 = rc5::RC5<u32, cipher::consts::U12, cipher::consts::U16>;
    Ok(match name {
        "DES" => block_cipher::<des::Des>(8),
        "3-DES" => block_cipher::<des::TdesEde3>(24),
        "IDEA enc" => block_cipher::<idea::Idea>(16),
        "IDEA dec" => return Err(IDEA_DEC.to_string()),
        "RC2" => block_cipher::<rc2::Rc2>(16),
        "RC4" => rc4_jobs(),
        "RC5-32-12" => block_cipher::<Rc5_32_12>(16),
        "Blowfish" => block_cipher::<blowfish::Blowfish>(16),
        "CAST5" => block_cipher::<cast5::Cast5>(16),
        _ => return Err(format!("unknown cipher {name}")),
    })
}

/// Measures every cipher.
pub fn measure(ctx: &Context<'_>) -> Table {
    let mut table = Table::new(
        "key_setup",
        "Key setup against encryption, with the 1998 Pentium Pro 200 figures beside",
        &[
            "cipher",
            "set_key ns",
            "CBC 8 bytes ns",
            "cost bytes",
            "1998 set_key ns (quoted)",
            "1998 CBC 8 bytes ns, C (quoted)",
            "1998 cost bytes (quoted)",
        ],
    );
    for (name, then_set_key_us, then_cbc_us, then_cost) in EAY_KEY_SETUP {
        let set_key = ctx.cell(
            &format!("{name} set_key"),
            1,
            &|| jobs(name).map(|(set_key, _)| set_key),
            Rate::Nanoseconds,
        );
        let cbc = ctx.cell(
            &format!("{name} CBC 8 bytes"),
            1,
            &|| jobs(name).map(|(_, cbc)| cbc),
            Rate::Nanoseconds,
        );
        let cost = match (&set_key, &cbc) {
            (Value::NotAvailable(why), _) | (_, Value::NotAvailable(why)) => {
                Value::NotAvailable(why.clone())
            }
            _ => match (set_key.number(), cbc.number()) {
                (Some(s), Some(c)) if c > 0.0 => Value::Derived(s / c * 8.0),
                _ => Value::NotAvailable("no CBC time to compare with".into()),
            },
        };
        let cell = |key, unit, value| Cell::new(name, key, unit, value);
        table.row(
            name,
            vec![
                cell("set_key_ns", Unit::Nanoseconds, set_key),
                cell("cbc8_ns", Unit::Nanoseconds, cbc),
                cell("cost_bytes", Unit::Bytes, cost),
                cell(
                    "then_set_key_ns",
                    Unit::Nanoseconds,
                    Value::Quoted(then_set_key_us * 1e3),
                ),
                cell(
                    "then_cbc8_ns",
                    Unit::Nanoseconds,
                    Value::Quoted(then_cbc_us * 1e3),
                ),
                cell("then_cost_bytes", Unit::Bytes, Value::Quoted(then_cost)),
            ],
        );
    }
    table.note(
        "'cost' is the number of bytes that could have been encrypted during a key setup: \
         set_key time / CBC-8 time x 8 (the 1998 post's definition, C code there).",
    );
    table.note("Keys: 8 bytes (DES), 24 (3-DES), 16 elsewhere; RC5-32/12 with a 16-byte key.");
    table.seeds.push(&seeds::EAY1998_KEY_SETUP);
    table
}
