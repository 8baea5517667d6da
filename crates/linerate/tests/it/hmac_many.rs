//! Multi-buffer HMAC-MD5 (one key for the batch, or one key per packet) on
//! every lanes backend against the single-packet path.

use crate::support::Rng;
use linerate::lanes::Lanes;
use linerate::mac::hmac::{HmacMd5Key, hmac_md5_many, hmac_md5_many_with};

use crate::support::lanes_backends;

/// One key: `tag_many_with` on `lanes` and the automatic `tag_many` against
/// `tag` per message.
fn check_one_key(lanes: &Lanes, key: &HmacMd5Key, messages: &[Vec<u8>], what: &str) {
    let slices: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
    let mut out = vec![[0u8; 16]; slices.len()];
    key.tag_many_with(lanes, &slices, &mut out);
    let auto = key.tag_many(&slices);
    for (i, m) in messages.iter().enumerate() {
        let want = key.tag(m);
        let b = lanes.backend();
        assert_eq!(
            out[i],
            want,
            "{b}: {what}: message {i} of {} bytes",
            m.len()
        );
        assert_eq!(
            auto[i],
            want,
            "tag_many: {what}: message {i} of {} bytes",
            m.len()
        );
    }
}

/// A key per packet: `hmac_md5_many_with` on `lanes` and `hmac_md5_many`
/// against each key's `tag`.
fn check_per_packet(lanes: &Lanes, keys: &[HmacMd5Key], messages: &[Vec<u8>], what: &str) {
    let packets: Vec<(&HmacMd5Key, &[u8])> = keys
        .iter()
        .zip(messages)
        .map(|(k, m)| (k, &m[..]))
        .collect();
    let mut out = vec![[0u8; 16]; packets.len()];
    hmac_md5_many_with(lanes, &packets, &mut out);
    let mut auto = vec![[0u8; 16]; packets.len()];
    hmac_md5_many(&packets, &mut auto);
    for (i, (k, m)) in packets.iter().enumerate() {
        let want = k.tag(m);
        let b = lanes.backend();
        assert_eq!(out[i], want, "{b}: {what}: packet {i} of {} bytes", m.len());
        assert_eq!(
            auto[i],
            want,
            "hmac_md5_many: {what}: packet {i} of {} bytes",
            m.len()
        );
    }
}

fn random_messages(rng: &mut Rng, count: usize, max_len: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let len = rng.below(max_len + 1);
            rng.bytes(len)
        })
        .collect()
}

fn random_keys(rng: &mut Rng, count: usize) -> Vec<HmacMd5Key> {
    (0..count)
        .map(|_| {
            let len = rng.below(200);
            HmacMd5Key::new(&rng.bytes(len))
        })
        .collect()
}

#[test]
fn one_key_random_lengths_up_to_3000_bytes() {
    let mut rng = Rng::new(5000);
    for lanes in lanes_backends() {
        let key_len = rng.below(200);
        let key = HmacMd5Key::new(&rng.bytes(key_len));
        let messages = random_messages(&mut rng, 150, 3000);
        check_one_key(&lanes, &key, &messages, "random lengths");
    }
}

#[test]
fn per_packet_keys_random_lengths_up_to_3000_bytes() {
    let mut rng = Rng::new(5001);
    for lanes in lanes_backends() {
        let messages = random_messages(&mut rng, 150, 3000);
        let keys = random_keys(&mut rng, messages.len());
        check_per_packet(&lanes, &keys, &messages, "random lengths and keys");
    }
}

#[test]
fn every_length_around_the_padding_edges() {
    let mut rng = Rng::new(5002);
    for lanes in lanes_backends() {
        let messages: Vec<Vec<u8>> = (0..=200).map(|len| rng.bytes(len)).collect();
        let key = HmacMd5Key::new(b"edge");
        check_one_key(&lanes, &key, &messages, "lengths 0..=200");
        let reversed: Vec<Vec<u8>> = messages.iter().rev().cloned().collect();
        check_one_key(&lanes, &key, &reversed, "lengths 200..=0");
        let keys = random_keys(&mut rng, messages.len());
        check_per_packet(&lanes, &keys, &messages, "lengths 0..=200, a key each");
    }
}

#[test]
fn equal_packets_fill_every_lane_and_leave_partial_groups() {
    let mut rng = Rng::new(5003);
    for lanes in lanes_backends() {
        // 1500-byte packets: whole engine widths plus a partial one.
        let count = 2 * lanes.width() + 3;
        let messages = random_messages(&mut rng, count, 0)
            .into_iter()
            .map(|_| rng.bytes(1500))
            .collect::<Vec<_>>();
        let key = HmacMd5Key::new(&rng.bytes(16));
        check_one_key(&lanes, &key, &messages, "1500-byte packets");
        let keys = random_keys(&mut rng, count);
        check_per_packet(&lanes, &keys, &messages, "1500-byte packets, a key each");
        // Batches of every size up to a width and one more.
        for n in 0..=lanes.width() + 1 {
            check_one_key(&lanes, &key, &messages[..n], "small batch");
            check_per_packet(
                &lanes,
                &keys[..n],
                &messages[..n],
                "small batch, a key each",
            );
        }
    }
}

#[test]
fn many_short_packets_across_sorting_batches() {
    // More than one sorting batch (4096 packets), lengths mixed so that
    // groups of one block count straddle batches.
    let mut rng = Rng::new(5004);
    let lanes = Lanes::active();
    let messages = random_messages(&mut rng, 9000, 130);
    let keys = random_keys(&mut rng, 64);
    let per_packet: Vec<HmacMd5Key> = (0..messages.len()).map(|i| keys[i % 64].clone()).collect();
    check_one_key(&lanes, &keys[0], &messages, "9000 short packets");
    check_per_packet(
        &lanes,
        &per_packet,
        &messages,
        "9000 short packets, 64 keys",
    );
}

#[test]
fn keys_on_different_md5_backends_mix_in_one_batch() {
    let mut rng = Rng::new(5005);
    let backends: Vec<_> = linerate::md5::Md5Backend::supported().collect();
    let keys: Vec<HmacMd5Key> = (0..40)
        .map(|i| HmacMd5Key::with_backend(&rng.bytes(i * 3), backends[i % backends.len()]).unwrap())
        .collect();
    let messages = random_messages(&mut rng, 40, 700);
    for lanes in lanes_backends() {
        check_per_packet(&lanes, &keys, &messages, "mixed backends");
    }
}

#[test]
#[should_panic(expected = "one output per packet")]
fn output_length_must_match() {
    let key = HmacMd5Key::new(b"k");
    let mut out = vec![[0u8; 16]; 1];
    key.tag_many_into(&[b"a", b"b"], &mut out);
}
