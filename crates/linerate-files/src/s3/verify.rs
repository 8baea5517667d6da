//! Local files against a listing of S3 objects (`linerate etag --verify`):
//! each listed object's file checked against every value the listing
//! gives (size, ETag, checksums), and the files under the directory that
//! the listing does not name.
//!
//! Values without a part count (a plain ETag, a full-object CRC, a
//! one-PUT SHA) are the whole file's, whatever the part size: they are
//! computed in one pass over each file ([`checksums_in_order`] with one
//! "part"). Values with one (`-N`: a multipart ETag, a composite checksum)
//! depend on the upload's part size: the ETag's is searched as `--match`
//! does ([`search`](super::search)), a composite checksum's among the
//! common clients' sizes giving N parts; then every such value is computed
//! with the size found. A part size that cannot be found tells nothing
//! unless another value decides: "cannot tell".
//!
//! The listing comes from elsewhere, so its keys are names from data: each
//! is mapped to a path as S3 clients download keys ([`key_path`]) and
//! opened only beneath the directory ([`Root`]); a key that leads out of
//! it, by `..`, `/` or a symbolic link, is [`Status::Outside`] and nothing
//! is said about what lies there.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use linerate_sumfile::listing::Object;

use super::checksums::Request;
use super::etags::checksums_in_order;
use super::layout::{Policy, sizes_giving};
use super::search::{Found, Search, Verdict, open_for_search};
use super::search_checksum::search_checksum_of;
use super::size::human;
use super::{ChecksumType, Etag, S3Algorithm, S3Value};
use crate::beneath::{Root, is_outside};
use crate::tree::{self, WalkOptions};
use crate::{FileError, Input, Progress};

/// Where and how to verify.
pub struct Target<'a> {
    /// The directory the listing's keys are relative to, open: every
    /// listed file is opened beneath it ([`Root`]).
    pub root: &'a Root,
    /// Keys start with this; it is dropped to make a path under `root`.
    pub prefix: &'a str,
    pub threads: usize,
    /// `--max-work` for the ETag searches.
    pub max_work: Option<u64>,
    pub walk: WalkOptions,
}

/// What became of one object or file.
#[derive(Debug)]
pub enum Status {
    /// Every value that could be checked matched; how (`ETag (part size
    /// 8 MiB), CRC64NVME`).
    Matched(String),
    /// A value differs: which.
    Changed(String),
    Missing,
    /// Nothing failed, and nothing decided: why.
    CannotTell(String),
    Error(FileError),
    /// Under the directory, not listed.
    Extra,
    /// The key names a path outside the directory (`..`, a leading `/`, or
    /// a symbolic link leading out): never opened, nothing said about it.
    Outside,
}

/// One line of the report.
#[derive(Debug)]
pub struct Record {
    /// The file's path (under the directory, as given).
    pub path: OsString,
    /// The object's key, if listed.
    pub key: Option<String>,
    pub status: Status,
}

/// An object's file while it is being checked.
struct Case<'o> {
    object: &'o Object,
    path: OsString,
    /// The path relative to the directory, as opened beneath it.
    relative: OsString,
    len: u64,
    /// How the values checked so far matched.
    matched: Vec<String>,
    verdict: Option<Status>,
}

impl Case<'_> {
    fn input<'a>(&'a self, target: &Target<'a>) -> Input<'a> {
        Input::Beneath(target.root, &self.relative)
    }
}

/// Why a key names no file under the directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRefusal {
    /// A `..` component or a leading `/`.
    Outside,
    /// A NUL byte, or nothing left once empty and `.` segments are dropped.
    Unusable(&'static str),
}

/// The path under the directory that `key` (the prefix dropped) names, as
/// S3 clients map keys to files when they download (`aws s3 sync`,
/// rclone, s5cmd): empty and `.` segments dropped, so `./x`, `sub//y` and
/// `x/.` name `x`, `sub/y` and `x`. Refused: `..` segments and a leading
/// `/` (outside), a NUL byte, and a key with no segment left (`.`).
pub fn key_path(key: &str) -> Result<Vec<u8>, KeyRefusal> {
    if key.starts_with('/') || key.split('/').any(|part| part == "..") {
        return Err(KeyRefusal::Outside);
    }
    if key.contains('\0') {
        return Err(KeyRefusal::Unusable(
            "the key holds a NUL byte, which no file name can: not read",
        ));
    }
    let parts: Vec<&str> = key
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.is_empty() {
        return Err(KeyRefusal::Unusable(
            "the key names the directory itself: not read",
        ));
    }
    Ok(parts.join("/").into_bytes())
}

/// Checks `objects` against the files under `target.root`; the records
/// sorted by path (objects whose key lies outside the prefix, or names a
/// directory marker, are left out).
pub fn verify(objects: &[Object], target: &Target<'_>, progress: &dyn Progress) -> Vec<Record> {
    let mut records = Vec::new();
    let mut cases = Vec::new();
    let mut listed = HashSet::new();
    let root = target.root.name();
    for object in objects {
        let Some(relative) = object.key.strip_prefix(target.prefix) else {
            continue;
        };
        if relative.is_empty() || relative.ends_with('/') {
            continue;
        }
        let record = |path: OsString, status: Status| Record {
            path,
            key: Some(object.key.clone()),
            status,
        };
        let relative = match key_path(relative) {
            Ok(relative) => OsString::from_vec(relative),
            Err(KeyRefusal::Outside) => {
                records.push(record(join(root, relative.as_ref()), Status::Outside));
                continue;
            }
            Err(KeyRefusal::Unusable(why)) => {
                let error = FileError::Open(std::io::Error::other(why));
                records.push(record(join(root, relative.as_ref()), Status::Error(error)));
                continue;
            }
        };
        let path = join(root, &relative);
        listed.insert(path.clone());
        // Opened beneath the directory, and its type and size taken from
        // that descriptor: a FIFO is never read, a link out never followed.
        let status = match target.root.metadata(&relative) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Status::Missing),
            Err(e) if is_outside(&e) => Some(Status::Outside),
            Err(e) => Some(Status::Error(FileError::Open(e))),
            Ok(meta) if !meta.is_file() => Some(Status::Error(FileError::Read(
                std::io::Error::other("not a regular file"),
            ))),
            Ok(meta) => match object.size {
                Some(size) if size != meta.len() => Some(Status::Changed(format!(
                    "size {}, listed {size}",
                    meta.len()
                ))),
                _ => {
                    cases.push(Case {
                        object,
                        path: path.clone(),
                        relative,
                        len: meta.len(),
                        matched: Vec::new(),
                        verdict: None,
                    });
                    None
                }
            },
        };
        if let Some(status) = status {
            records.push(record(path, status));
        }
    }
    check_whole_values(&mut cases, target, progress);
    for case in &mut cases {
        if case.verdict.is_none() {
            check_part_values(case, target, progress);
        }
        let status = case.verdict.take().unwrap_or_else(|| {
            if case.matched.is_empty() {
                Status::CannotTell("the listing gives no size, ETag or checksum".into())
            } else {
                Status::Matched(case.matched.join(", "))
            }
        });
        records.push(Record {
            path: case.path.clone(),
            key: Some(case.object.key.clone()),
            status,
        });
    }
    tree::walk(root, &target.walk, &mut |found| match found {
        tree::Found::File(path) if !listed.contains(&path) => records.push(Record {
            path,
            key: None,
            status: Status::Extra,
        }),
        tree::Found::File(_) => {}
        tree::Found::Error(path, e) if !listed.contains(&path) => records.push(Record {
            path,
            key: None,
            status: Status::Error(FileError::Read(e)),
        }),
        tree::Found::Error(..) => {}
    });
    records.sort_by(|a, b| a.path.cmp(&b.path));
    records
}

/// `root/relative`, as the walk writes the paths it finds.
fn join(root: &OsStr, relative: &OsStr) -> OsString {
    let mut path = root.as_bytes().to_vec();
    if path.last() != Some(&b'/') {
        path.push(b'/');
    }
    path.extend_from_slice(relative.as_bytes());
    OsString::from_vec(path)
}

/// The listed values of `object` that hold for the whole file, whatever
/// the part size: a plain ETag (as MD5), and checksums without `-N`.
fn whole_values(object: &Object) -> Vec<S3Value> {
    let etag = object.etag.filter(|e| e.parts.is_none()).map(|e| S3Value {
        algorithm: S3Algorithm::Md5,
        value: e.digest.to_vec(),
        parts: None,
    });
    etag.into_iter()
        .chain(
            object
                .checksums
                .iter()
                .filter(|v| v.parts.is_none())
                .cloned(),
        )
        .collect()
}

/// The size check passed: a listed size that matched counts.
fn size_matched(case: &mut Case<'_>) {
    if case.object.size.is_some() && case.matched.is_empty() {
        case.matched.push("size".into());
    }
}

/// Computes and compares every case's whole-file values, one pass per
/// file; cases grouped by the algorithms they need.
fn check_whole_values(cases: &mut [Case<'_>], target: &Target<'_>, progress: &dyn Progress) {
    let mut groups: BTreeMap<Vec<S3Algorithm>, Vec<usize>> = BTreeMap::new();
    for (i, case) in cases.iter_mut().enumerate() {
        size_matched(case);
        let mut algorithms: Vec<S3Algorithm> = whole_values(case.object)
            .iter()
            .map(|v| v.algorithm)
            .collect();
        algorithms.sort_unstable();
        algorithms.dedup();
        if !algorithms.is_empty() {
            groups.entry(algorithms).or_default().push(i);
        }
    }
    let policy = Policy {
        single: true,
        ..Policy::default()
    };
    for (algorithms, members) in groups {
        let Ok(request) = Request::new(&algorithms, None) else {
            continue;
        };
        let inputs: Vec<Input<'_>> = members.iter().map(|&i| cases[i].input(target)).collect();
        let mut outcomes = Vec::with_capacity(members.len());
        checksums_in_order(
            &inputs,
            &policy,
            &request,
            target.threads,
            progress,
            |_, _, r| {
                outcomes.push(r);
            },
        );
        for (&i, outcome) in members.iter().zip(outcomes) {
            let case = &mut cases[i];
            match outcome {
                Err(e) => case.verdict = Some(Status::Error(e)),
                Ok(values) => compare(case, &whole_values(case.object), &values, None),
            }
        }
    }
}

/// Compares `listed` with `computed` (by algorithm): the first that
/// differs makes the case changed; the others are noted as matched.
fn compare(case: &mut Case<'_>, listed: &[S3Value], computed: &[S3Value], part_size: Option<u64>) {
    for want in listed {
        let Some(got) = computed.iter().find(|v| v.algorithm == want.algorithm) else {
            continue;
        };
        let name = want.algorithm.api_name();
        if got != want {
            case.verdict = Some(Status::Changed(format!("{name} {got}, listed {want}")));
            return;
        }
        let how = match part_size {
            Some(size) => format!("{name} (part size {})", human(size)),
            None => name.to_string(),
        };
        case.matched.retain(|m| m != "size");
        case.matched.push(how);
    }
}

/// The values with a part count: the part size found, then all of them
/// computed with it.
fn check_part_values(case: &mut Case<'_>, target: &Target<'_>, progress: &dyn Progress) {
    let etag = case.object.etag.filter(|e| e.parts.is_some());
    let composite: Vec<S3Value> = case
        .object
        .checksums
        .iter()
        .filter(|v| v.parts.is_some())
        .cloned()
        .collect();
    let Some(parts) = etag
        .and_then(|e| e.parts)
        .or(composite.first().and_then(|v| v.parts))
    else {
        return;
    };
    if sizes_giving(case.len, parts).is_none() {
        case.verdict = Some(Status::Changed(format!(
            "{parts} parts cannot split {} bytes",
            case.len
        )));
        return;
    }
    let part_size = match etag {
        Some(etag) => match search_etag(case, &etag, target, progress) {
            Ok(found) => found,
            Err(e) => {
                case.verdict = Some(Status::Error(e));
                return;
            }
        },
        None => match search_composite(case, &composite[0], target, progress) {
            Ok(found) => found,
            Err(e) => {
                case.verdict = Some(Status::Error(e));
                return;
            }
        },
    };
    let Some(part_size) = part_size else {
        let what = etag.map_or_else(
            || composite[0].algorithm.api_name().to_string(),
            |e| format!("ETag {e}"),
        );
        if case.matched.iter().any(|m| m != "size") {
            case.matched.push(format!("{what}: part size not found"));
        } else {
            case.verdict = Some(Status::CannotTell(format!(
                "no part size tried gives its {what}, and nothing else listed decides"
            )));
        }
        return;
    };
    if let Some(etag) = etag {
        case.matched.retain(|m| m != "size");
        case.matched
            .push(format!("ETag {etag} (part size {})", human(part_size)));
    }
    if composite.is_empty() {
        return;
    }
    let algorithms: Vec<S3Algorithm> = composite.iter().map(|v| v.algorithm).collect();
    let request = match Request::new(&algorithms, Some(ChecksumType::Composite)) {
        Ok(request) => request,
        Err(e) => {
            case.verdict = Some(Status::Changed(e));
            return;
        }
    };
    match checksums_of(case, &request, part_size, target, progress) {
        Ok(values) => compare(case, &composite, &values, Some(part_size)),
        Err(e) => case.verdict = Some(Status::Error(e)),
    }
}

/// The part size that reproduces a multipart `etag`, if any.
fn search_etag(
    case: &Case<'_>,
    etag: &Etag,
    target: &Target<'_>,
    progress: &dyn Progress,
) -> Result<Option<u64>, FileError> {
    let input = case.input(target);
    let (file, len) = open_for_search(input).map_err(FileError::Open)?;
    let mut search = Search {
        progress,
        input,
        file,
        len,
        threads: target.threads,
        max_work: target.max_work,
    };
    Ok(match search.run(etag)? {
        Verdict::Found(Found::PartSize(size)) => Some(size),
        Verdict::Found(Found::OnePart(len)) => Some(len.max(1)),
        Verdict::Found(Found::Plain) | Verdict::NotFound(_) | Verdict::NoSuchSplit => None,
    })
}

/// The part size giving `value` (composite, N parts), if any: the search
/// `--match` runs for it.
fn search_composite(
    case: &Case<'_>,
    value: &S3Value,
    target: &Target<'_>,
    progress: &dyn Progress,
) -> Result<Option<u64>, FileError> {
    let verdict = search_checksum_of(
        case.input(target),
        case.len,
        value,
        target.threads,
        target.max_work,
        progress,
    )?;
    Ok(match verdict {
        Verdict::Found(Found::PartSize(size)) => Some(size),
        Verdict::Found(Found::OnePart(len)) => Some(len.max(1)),
        _ => None,
    })
}

/// `request`'s values of the case's file uploaded in parts of `part_size`.
fn checksums_of(
    case: &Case<'_>,
    request: &Request,
    part_size: u64,
    target: &Target<'_>,
    progress: &dyn Progress,
) -> Result<Vec<S3Value>, FileError> {
    let policy = Policy {
        part_size: Some(part_size),
        ..Policy::default()
    };
    let inputs = [case.input(target)];
    let mut outcome = None;
    checksums_in_order(
        &inputs,
        &policy,
        request,
        target.threads,
        progress,
        |_, _, r| {
            outcome = Some(r);
        },
    );
    outcome.unwrap_or_else(|| Err(FileError::changed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_paths_as_s3_clients_download_them() {
        let path = |key: &str| key_path(key).map(|p| String::from_utf8(p).unwrap());
        assert_eq!(path("./x").unwrap(), "x");
        assert_eq!(path("sub//y").unwrap(), "sub/y");
        assert_eq!(path("x/.").unwrap(), "x");
        assert_eq!(path("a/./b/c").unwrap(), "a/b/c");
        for outside in ["/etc/passwd", "..", "a/../b", "a/.."] {
            assert_eq!(path(outside), Err(KeyRefusal::Outside), "{outside}");
        }
        for unusable in [".", "./.", "a\0b"] {
            assert!(
                matches!(path(unusable), Err(KeyRefusal::Unusable(_))),
                "{unusable:?}"
            );
        }
    }
}
