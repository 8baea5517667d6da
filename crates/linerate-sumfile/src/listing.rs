//! Listings of S3 objects, as `linerate etag --verify` reads them: what S3
//! says each object's key, size, ETag and checksums are.
//!
//! Accepted forms (told apart by their first byte and shape):
//!
//! - the JSON `aws s3api list-objects-v2` prints (`{"Contents": [...]}`;
//!   several such documents one after another, as pages, are read in turn);
//! - a JSON array of objects, each with a `Key` and any fields of
//!   `aws s3api head-object --checksum-mode ENABLED` or
//!   `get-object-attributes` (`ETag`, `ContentLength` or `Size`,
//!   `ChecksumCRC64NVME`..., `ChecksumType`, or those inside `Checksum`);
//!   one such object alone too;
//! - an S3 Inventory CSV report: no header (the column order is the
//!   inventory's `fileSchema`, given by the caller, or a first line naming
//!   the columns), quoted fields, URL-encoded keys.
//!
//! An object that cannot be used (no key, a value that does not parse, a
//! field named twice, an inventory row without every column the schema
//! names) is a [`Problem`] naming it; the others are read on. A key in a
//! problem's place is quoted as diagnostics quote file names.

use std::fmt;

use crate::etag::Etag;
use crate::quote::{Charset, quote};
use crate::s3::{ChecksumType, S3Algorithm, S3Value};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// One object of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub key: String,
    pub size: Option<u64>,
    pub etag: Option<Etag>,
    /// The checksum values listed (not the ETag), in the listing's order.
    pub checksums: Vec<S3Value>,
    /// The type the listing gives the object's checksum, if it does.
    pub checksum_type: Option<ChecksumType>,
}

/// An object of the listing that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where: `object 3` (JSON, 1-based), `line 3` (CSV), with the key
    /// when it is known.
    pub place: String,
    pub message: String,
}

/// A listing read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub objects: Vec<Object>,
    pub problems: Vec<Problem>,
}

/// The default S3 Inventory columns (the fields every inventory has, in
/// the order S3 writes them when no optional field is chosen).
pub const INVENTORY_SCHEMA: &str = "Bucket, Key, Size, LastModifiedDate, ETag";

/// Reads `text` in whichever form it is; `schema`: an inventory CSV's
/// column names (comma-separated, as in its manifest's `fileSchema`), if
/// not [`INVENTORY_SCHEMA`]. The error is for a listing that is none of the
/// forms.
pub fn parse(text: &[u8], schema: Option<&str>) -> Result<Listing, String> {
    let start = text.iter().position(|b| !b.is_ascii_whitespace());
    match start.map(|i| text[i]) {
        None => Ok(Listing::default()),
        Some(b'{' | b'[') => parse_json(text),
        Some(_) => parse_inventory(text, schema),
    }
}

fn parse_json(text: &[u8]) -> Result<Listing, String> {
    let mut listing = Listing::default();
    let mut index = 0usize;
    for document in serde_json::Deserializer::from_slice(text).into_iter::<Json>() {
        let document = document.map_err(|e| format!("not JSON as S3 lists objects: {e}"))?;
        let items: Vec<Json> = match document {
            Json::Array(items) => items,
            Json::Object(mut fields) => {
                let named = |name: &str| fields.iter().filter(|(n, _)| n == name).count();
                if named("Contents") > 1 {
                    return Err("a page names 'Contents' twice: ambiguous".into());
                }
                let page = named("Key") == 0 && named("KeyCount") + named("Name") > 0;
                match fields.iter().position(|(n, _)| n == "Contents") {
                    Some(at) => match fields.swap_remove(at).1 {
                        Json::Array(items) => items,
                        _ => return Err("'Contents' is not a list of objects".into()),
                    },
                    // A page with no objects.
                    None if page => Vec::new(),
                    // One object alone.
                    None => vec![Json::Object(fields)],
                }
            }
            Json::Value(_) => {
                return Err("not JSON as S3 lists objects (an object or a list)".into());
            }
        };
        for item in items {
            index += 1;
            let object = item
                .into_value()
                .map_err(|name| (None, format!("'{name}' given twice: ambiguous")))
                .and_then(|item| json_object(&item));
            match object {
                Ok(object) => listing.objects.push(object),
                Err((key, message)) => listing.problems.push(Problem {
                    place: place("object", index, key.as_deref()),
                    message,
                }),
            }
        }
    }
    Ok(listing)
}

fn place(what: &str, index: usize, key: Option<&str>) -> String {
    match key {
        Some(key) => {
            let quoted = quote(key.as_bytes(), Charset::from_env());
            format!("{what} {index} ({})", String::from_utf8_lossy(&quoted))
        }
        None => format!("{what} {index}"),
    }
}

/// A JSON value as read, each object with every field in order (serde_json's
/// map keeps only the last of two fields of one name, and an object that
/// gives its `Key` twice is ambiguous).
enum Json {
    /// Anything but an array or an object.
    Value(Value),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value, or the name of a field some object gives twice.
    fn into_value(self) -> Result<Value, String> {
        Ok(match self {
            Json::Value(value) => value,
            Json::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(Json::into_value)
                    .collect::<Result<_, _>>()?,
            ),
            Json::Object(fields) => {
                let mut map = Map::new();
                for (name, value) in fields {
                    if map.contains_key(&name) {
                        return Err(name);
                    }
                    let value = value.into_value()?;
                    map.insert(name, value);
                }
                Value::Object(map)
            }
        })
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Value(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Value(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Value(Value::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Value(
            Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Value(Value::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Value(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Value(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Value(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        Json::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut fields = Vec::new();
        while let Some(field) = map.next_entry::<String, Json>()? {
            fields.push(field);
        }
        Ok(Json::Object(fields))
    }
}

/// An object from its JSON fields; the error carries the key if known.
fn json_object(item: &Value) -> Result<Object, (Option<String>, String)> {
    let Value::Object(map) = item else {
        return Err((None, "not a JSON object".into()));
    };
    let key = match map.get("Key") {
        Some(Value::String(key)) => key.clone(),
        _ => return Err((None, "no 'Key'".into())),
    };
    let fail = |message: String| (Some(key.clone()), message);
    let size = match map.get("Size").or_else(|| map.get("ContentLength")) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| fail(format!("bad size {v}")))?),
    };
    let etag = match map.get("ETag") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(
            Etag::parse(text.as_bytes()).ok_or_else(|| fail(format!("invalid ETag '{text}'")))?,
        ),
        Some(v) => return Err(fail(format!("invalid ETag {v}"))),
    };
    let mut object = Object {
        key: key.clone(),
        size,
        etag,
        checksums: Vec::new(),
        checksum_type: None,
    };
    // get-object-attributes nests them under "Checksum".
    let nested = map.get("Checksum").and_then(Value::as_object);
    let fields = map.iter().chain(nested.into_iter().flatten());
    for (name, value) in fields {
        if name == "ChecksumType" {
            let text = value.as_str().unwrap_or_default();
            object.checksum_type = Some(
                ChecksumType::from_name(text)
                    .ok_or_else(|| fail(format!("unknown ChecksumType '{text}'")))?,
            );
            continue;
        }
        // "ChecksumAlgorithm" (a list in list-objects-v2) names, not values.
        let Some(algorithm) = name.strip_prefix("Checksum") else {
            continue;
        };
        if matches!(algorithm, "Algorithm" | "" | "Mode") {
            continue;
        }
        let algorithm = S3Algorithm::from_name(algorithm)
            .filter(|&a| a != S3Algorithm::Md5)
            .ok_or_else(|| fail(format!("unknown checksum field '{name}'")))?;
        let text = value
            .as_str()
            .ok_or_else(|| fail(format!("{name} is not a string")))?;
        object
            .checksums
            .push(S3Value::parse(algorithm, text.as_bytes()).map_err(fail)?);
    }
    Ok(object)
}

fn parse_inventory(text: &[u8], schema: Option<&str>) -> Result<Listing, String> {
    let text = String::from_utf8_lossy(text);
    let mut lines = text.lines().enumerate().peekable();
    let mut columns: Vec<String> = split_schema(schema.unwrap_or(INVENTORY_SCHEMA));
    // A first line naming the columns replaces the schema.
    if let Some((_, first)) = lines.peek() {
        let fields = csv_fields(first);
        if fields.iter().any(|f| f == "Key") {
            columns = fields;
            lines.next();
        }
    }
    let column = |name: &str| columns.iter().position(|c| c == name);
    let key_at = column("Key").ok_or("the inventory schema has no Key column")?;
    let (size_at, etag_at) = (column("Size"), column("ETag"));
    let mut listing = Listing::default();
    for (number, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields = csv_fields(line);
        let problem = |key: Option<&str>, message: String| Problem {
            place: place("line", number + 1, key),
            message,
        };
        let key = fields.get(key_at).map(|k| url_decode(k));
        // A row must give every column the schema names (empty or not):
        // one short of its ETag would be matched on its size alone.
        if fields.len() != columns.len() {
            let message = format!(
                "{} fields where the schema names {} ({})",
                fields.len(),
                columns.len(),
                columns.join(", ")
            );
            listing.problems.push(problem(key.as_deref(), message));
            continue;
        }
        let Some(key) = key else { continue };
        let field = |at: Option<usize>| at.and_then(|i| fields.get(i)).filter(|f| !f.is_empty());
        let size = match field(size_at).map(|s| s.parse::<u64>()) {
            None => None,
            Some(Ok(size)) => Some(size),
            Some(Err(_)) => {
                let message = format!("bad size '{}'", field(size_at).cloned().unwrap_or_default());
                listing.problems.push(problem(Some(&key), message));
                continue;
            }
        };
        let etag = match field(etag_at) {
            None => None,
            Some(text) => match Etag::parse(text.as_bytes()) {
                Some(etag) => Some(etag),
                None => {
                    listing
                        .problems
                        .push(problem(Some(&key), format!("invalid ETag '{text}'")));
                    continue;
                }
            },
        };
        listing.objects.push(Object {
            key,
            size,
            etag,
            checksums: Vec::new(),
            checksum_type: None,
        });
    }
    Ok(listing)
}

fn split_schema(schema: &str) -> Vec<String> {
    schema.split(',').map(|c| c.trim().to_string()).collect()
}

/// The fields of one CSV line: comma-separated, each optionally in double
/// quotes (`""` inside quotes is a quote).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// An inventory's URL-encoded key: `%XX` escapes, `+` for a space.
fn url_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETAG: &str = "\\\"d41d8cd98f00b204e9800998ecf8427e-2\\\"";

    #[test]
    fn list_objects_v2_pages() {
        let page = format!(
            r#"{{"Contents": [{{"Key": "a/b.txt", "Size": 12, "ETag": "{ETAG}",
                "ChecksumAlgorithm": ["CRC64NVME"], "ChecksumType": "FULL_OBJECT"}}],
               "KeyCount": 1}}
               {{"Contents": [{{"Key": "c", "Size": 0}}]}}
               {{"KeyCount": 0, "Name": "bucket"}}"#
        );
        let listing = parse(page.as_bytes(), None).expect("listing");
        assert!(listing.problems.is_empty(), "{:?}", listing.problems);
        assert_eq!(listing.objects.len(), 2);
        let a = &listing.objects[0];
        assert_eq!((a.key.as_str(), a.size), ("a/b.txt", Some(12)));
        assert_eq!(a.etag.and_then(|e| e.parts), Some(2));
        assert_eq!(a.checksum_type, Some(ChecksumType::FullObject));
        assert!(a.checksums.is_empty());
    }

    #[test]
    fn head_object_fields_with_keys() {
        let text = format!(
            r#"[{{"Key": "x", "ContentLength": 3, "ETag": "{ETAG}",
                 "ChecksumCRC32": "AAAAAQ==-2", "ChecksumType": "COMPOSITE"}},
                {{"Key": "y", "Checksum": {{"ChecksumSHA256": "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}}}},
                {{"Key": "bad", "ChecksumCRC32": "AAAA"}},
                {{"Key": "odd", "ChecksumXXH3": "AAAA"}},
                {{"Size": 4}}]"#
        );
        let listing = parse(text.as_bytes(), None).expect("listing");
        assert_eq!(listing.objects.len(), 2);
        assert_eq!(listing.objects[0].checksums[0].parts, Some(2));
        assert_eq!(
            listing.objects[1].checksums[0].algorithm,
            S3Algorithm::Sha256
        );
        let places: Vec<&str> = listing.problems.iter().map(|p| p.place.as_str()).collect();
        assert_eq!(places, ["object 3 (bad)", "object 4 (odd)", "object 5"]);
        assert!(listing.problems[0].message.contains("CRC32"));
        // One object alone.
        let one = parse(br#"{"Key": "k", "Size": 1}"#, None).expect("one");
        assert_eq!(one.objects[0].size, Some(1));
        assert!(parse(b"[1, 2", None).is_err());
    }

    #[test]
    fn inventory_csv() {
        let text = "\"bucket\",\"dir/a+b%2Bc.txt\",\"5\",\"2026-01-01T00:00:00.000Z\",\"d41d8cd98f00b204e9800998ecf8427e\"\n\
                    \"bucket\",\"n\",\"x\",\"\",\"\"\n\
                    \"bucket\",\"e\",\"\",\"\",\"nothex\"\n";
        let listing = parse(text.as_bytes(), None).expect("inventory");
        assert_eq!(listing.objects.len(), 1);
        assert_eq!(listing.objects[0].key, "dir/a b+c.txt");
        assert_eq!(listing.objects[0].size, Some(5));
        let places: Vec<&str> = listing.problems.iter().map(|p| p.place.as_str()).collect();
        assert_eq!(places, ["line 2 (n)", "line 3 (e)"]);
        // Another schema, or a header line.
        let other = parse(b"k1,\"7\"\n", Some("Key, Size")).expect("schema");
        assert_eq!(other.objects[0].size, Some(7));
        let header = parse(b"Key,ETag\nk,\"\"\n", None).expect("header");
        assert_eq!(header.objects[0].key, "k");
        assert!(parse(b"a,b\n", Some("Bucket, Size")).is_err());
    }

    #[test]
    fn rows_short_of_a_column_are_problems() {
        let text = "\"b\",\"full\",\"1\",\"\",\"d41d8cd98f00b204e9800998ecf8427e\"\n\
                    \"b\",\"short\",\"1\"\n\
                    \"b\",\"long\",\"1\",\"\",\"\",\"x\"\n\
                    \"b\"\n";
        let listing = parse(text.as_bytes(), None).expect("inventory");
        let keys: Vec<&str> = listing.objects.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["full"]);
        let places: Vec<&str> = listing.problems.iter().map(|p| p.place.as_str()).collect();
        assert_eq!(places, ["line 2 (short)", "line 3 (long)", "line 4"]);
        assert!(
            listing.problems[0]
                .message
                .starts_with("3 fields where the schema names 5")
        );
    }

    #[test]
    fn a_field_given_twice_is_a_problem() {
        let text = r#"[{"Key": "a", "Key": "b"}, {"Key": "c", "Size": 1, "Size": 2},
                       {"Key": "d", "Checksum": {"ChecksumCRC32": "AAAAAQ==", "ChecksumCRC32": "AAAAAg=="}},
                       {"Key": "e", "Size": 3}]"#;
        let listing = parse(text.as_bytes(), None).expect("listing");
        assert_eq!(listing.objects.len(), 1);
        assert_eq!(listing.objects[0].key, "e");
        let problems: Vec<(&str, &str)> = listing
            .problems
            .iter()
            .map(|p| (p.place.as_str(), p.message.as_str()))
            .collect();
        assert_eq!(
            problems,
            [
                ("object 1", "'Key' given twice: ambiguous"),
                ("object 2", "'Size' given twice: ambiguous"),
                ("object 3", "'ChecksumCRC32' given twice: ambiguous"),
            ]
        );
        let twice = r#"{"Contents": [], "Contents": [{"Key": "x"}]}"#;
        assert!(parse(twice.as_bytes(), None).is_err());
        // A key that needs quoting is quoted in its place.
        let odd = parse(br#"[{"Key": "a\u0000b", "Size": "x"}]"#, None).expect("listing");
        assert_eq!(odd.problems[0].place, "object 1 ('a'$'\\000''b')");
    }
}
