//! RFC 9235's TCP-AO test vectors, all 32 (tests/data/rfc9235-vectors.txt):
//! for each, the traffic key derived from the master key "testvector" and
//! the connection, and the MAC over the segment (options included or
//! excluded), equal the vector's. (The IPv4 vectors' TCP checksums are not
//! valid as printed; the MAC reads the checksum as zero, so they are not
//! checked.)

use linerate_packets::ip;
use linerate_packets::tcp;
use linerate_packets::tcp_ao::{self, AoAlgorithm};

const VECTORS: &str = include_str!("../data/rfc9235-vectors.txt");
const MASTER_KEY: &[u8] = b"testvector";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

struct Vector {
    name: String,
    alg: AoAlgorithm,
    include_options: bool,
    src_isn: u32,
    dst_isn: u32,
    traffic_key: Vec<u8>,
    mac: Vec<u8>,
    packet: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    for block in VECTORS.split("\n\n") {
        let fields: std::collections::HashMap<&str, &str> = block
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| l.split_once(' '))
            .collect();
        let Some(name) = fields.get("vector") else {
            continue;
        };
        out.push(Vector {
            name: name.to_string(),
            alg: AoAlgorithm::from_name(&format!("tcp-ao-{}", fields["alg"])).unwrap(),
            include_options: fields["options"] == "include",
            src_isn: u32::from_str_radix(fields["src_isn"], 16).unwrap(),
            dst_isn: u32::from_str_radix(fields["dst_isn"], 16).unwrap(),
            traffic_key: hex(fields["traffic_key"]),
            mac: hex(fields["mac"]),
            packet: hex(fields["packet"]),
        });
    }
    out
}

#[test]
fn every_vector_gives_its_traffic_key_and_mac() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 32);
    for v in &vectors {
        let layout = ip::parse(&v.packet).unwrap();
        let seg = tcp::locate(&v.packet, &layout).unwrap().unwrap();
        let option = tcp_ao::find(&v.packet, &seg)
            .unwrap()
            .expect("a TCP-AO option");
        assert!([61, 84].contains(&option.key_id), "{}", v.name);
        let carried = &v.packet[option.at + 4..option.at + 16];
        assert_eq!(carried, &v.mac[..], "{}: the MAC in the packet", v.name);
        let context = tcp_ao::context(&v.packet, layout.version, &seg, v.src_isn, v.dst_isn);
        let key = v.alg.traffic_key(MASTER_KEY, &context);
        assert_eq!(key.bytes(), &v.traffic_key[..], "{}: traffic key", v.name);
        let mac_with_sne = |sne: u32| {
            let mut input = Vec::new();
            tcp_ao::mac_input(
                &v.packet,
                layout.version,
                &seg,
                &option,
                sne,
                v.include_options,
                &mut input,
            );
            key.mac(&input).to_vec()
        };
        assert_eq!(mac_with_sne(0), v.mac, "{}: MAC", v.name);
        // Another SNE gives another MAC.
        assert_ne!(mac_with_sne(1), v.mac, "{}: SNE covered", v.name);
    }
    for version in [4, 6] {
        for alg in AoAlgorithm::ALL {
            assert!(
                vectors
                    .iter()
                    .any(|v| v.alg == alg && v.packet[0] >> 4 == version),
                "{alg:?} over IPv{version}"
            );
        }
    }
}
