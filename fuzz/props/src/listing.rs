//! S3 listings (`etag --verify`'s input): list-objects-v2 and head-object
//! JSON, Inventory CSV. Whatever is read is bounded by the input, and the
//! objects read, written again as a JSON listing and as an inventory, read
//! back the same (an inventory has no checksum columns).

use linerate_sumfile::listing::{self, Listing, Object};
use serde_json::{Map, Value};

/// Inventory schemas a first byte picks (0: the default one).
const SCHEMAS: [Option<&str>; 4] = [
    None,
    Some("Bucket, Key, Size, LastModifiedDate, ETag, ChecksumAlgorithm"),
    Some("Key, Size"),
    Some("Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, ETag"),
];

pub fn listing(data: &[u8]) {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let schema = SCHEMAS[usize::from(selector) % SCHEMAS.len()];
    let Ok(read) = listing::parse(text, schema) else {
        return;
    };
    bounded(&read, text.len());
    let objects = normalised(read.objects);

    let json = write_json(&objects);
    let again = listing::parse(json.as_bytes(), None).expect("a written JSON listing reads back");
    assert_eq!(again.problems, [], "written as {json}");
    assert_eq!(normalised(again.objects), objects, "written as {json}");

    // An inventory has no checksum columns, and a column only where every
    // object has the field (a row missing a named field is an error).
    let with_size = objects.iter().all(|o| o.size.is_some());
    let with_etag = objects.iter().all(|o| o.etag.is_some());
    let (schema, csv) = write_inventory(&objects, with_size, with_etag);
    let again =
        listing::parse(csv.as_bytes(), Some(&schema)).expect("a written inventory reads back");
    assert_eq!(again.problems, [], "written as {csv}");
    let expected: Vec<Object> = objects
        .into_iter()
        .map(|o| Object {
            size: o.size.filter(|_| with_size),
            etag: o.etag.filter(|_| with_etag),
            checksums: Vec::new(),
            checksum_type: None,
            ..o
        })
        .collect();
    assert_eq!(again.objects, expected, "written as {csv}");
}

/// An object or a problem per two bytes of input at most (`{}`, `a\n`);
/// keys at most three bytes per input byte (a byte that is not UTF-8
/// becomes U+FFFD).
fn bounded(read: &Listing, len: usize) {
    assert!(
        read.objects.len() + read.problems.len() <= len / 2 + 1,
        "{} objects and {} problems from {len} bytes",
        read.objects.len(),
        read.problems.len()
    );
    let keys: usize = read.objects.iter().map(|o| o.key.len()).sum();
    assert!(keys <= 3 * len, "{keys} bytes of keys from {len} bytes");
}

/// Checksums in one order (the listing's order follows JSON field names).
fn normalised(mut objects: Vec<Object>) -> Vec<Object> {
    for o in &mut objects {
        o.checksums
            .sort_by_key(|c| (c.algorithm.api_name(), c.value.clone(), c.parts));
    }
    objects
}

/// The objects as a head-object style JSON array; a second value of one
/// algorithm goes under `Checksum`, as get-object-attributes nests them.
fn write_json(objects: &[Object]) -> String {
    let items: Vec<Value> = objects
        .iter()
        .map(|o| {
            let mut map = Map::new();
            map.insert("Key".into(), o.key.clone().into());
            if let Some(size) = o.size {
                map.insert("Size".into(), size.into());
            }
            if let Some(etag) = o.etag {
                map.insert("ETag".into(), format!("\"{etag}\"").into());
            }
            let mut nested = Map::new();
            for c in &o.checksums {
                let name = format!("Checksum{}", c.algorithm.api_name());
                let into = if map.contains_key(&name) {
                    &mut nested
                } else {
                    &mut map
                };
                into.insert(name, c.to_string().into());
            }
            if !nested.is_empty() {
                map.insert("Checksum".into(), nested.into());
            }
            if let Some(kind) = o.checksum_type {
                map.insert("ChecksumType".into(), kind.api_name().into());
            }
            Value::Object(map)
        })
        .collect();
    Value::Array(items).to_string()
}

/// The objects as inventory rows (`Bucket, Key`, then `Size` and `ETag`
/// if asked) and the schema that names those columns; every key byte is
/// percent-encoded, so that no row reads as a header's `Key`.
fn write_inventory(objects: &[Object], with_size: bool, with_etag: bool) -> (String, String) {
    let mut schema = String::from("Bucket, Key");
    if with_size {
        schema.push_str(", Size");
    }
    if with_etag {
        schema.push_str(", ETag");
    }
    let mut out = String::new();
    for o in objects {
        out.push_str("\"bucket\",\"");
        for byte in o.key.bytes() {
            out.push_str(&format!("%{byte:02X}"));
        }
        out.push('"');
        if let Some(size) = o.size.filter(|_| with_size) {
            out.push_str(&format!(",\"{size}\""));
        }
        if let Some(etag) = o.etag.filter(|_| with_etag) {
            out.push_str(&format!(",\"{etag}\""));
        }
        out.push('\n');
    }
    (schema, out)
}
