//! The audit proper: the manifest's entries against the files of a
//! directory, each file sorted into one [`Status`].
//!
//! 1. The directory is walked ([`tree::walk`]) for its regular files and
//!    the errors met on the way, each under a lexical key
//!    ([`paths::normalize`]) so that it meets the manifest's entry for it.
//! 2. Every entry is opened beneath the directory ([`Root`]): a path that
//!    leads out of it (`..`, an absolute path elsewhere, a symbolic link
//!    out) is [`Status::Outside`], never read. Each entry found by the walk
//!    is hashed; one the walk did not find is looked at first (it may be
//!    excluded, or behind a symbolic link that stays inside): missing,
//!    something other than a regular file (opened without waiting and
//!    never read, so a FIFO cannot hang the audit), or hashed like the
//!    others.
//!    Hashing runs on several threads in the lanes engine
//!    ([`whole::hash_in_order`]), one pass per function the manifest uses.
//! 3. Files found but not listed are new, except the manifest itself; walk
//!    errors are reported unless they concern a listed path, whose own
//!    outcome says it.
//! 4. A manifest may list a path once per function (a dual manifest of
//!    `sum --also`: MD5 and SHA-256): the path is one record, matched only
//!    if every function matches, and a changed one says which differ.
//! 5. A missing path whose every listed digest a new file has moved there:
//!    one `Moved` record instead of missing + new (new files are hashed
//!    for this only when something is missing). Among several such files
//!    the one with the same name is taken, else one in the same directory,
//!    else the first in path order; the record says how many were equally
//!    good when that is more than one.
//!
//! Records come back sorted by path, so the report does not depend on the
//! walk's order, `-j` or the order of the manifest.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;

use linerate::cksum::{CksumValue, DigestAlgorithm};
use linerate_sumfile::manifest::{Defect, Entry};
use linerate_sumfile::paths;

use crate::beneath::{Root, is_outside};
use crate::tree::{self, Found, WalkOptions};
use crate::{FileError, Input, Progress, strerror, whole};

/// What became of one file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Listed, and its digest is the manifest's.
    Matched,
    /// Listed, and its digest differs.
    Changed,
    /// Listed, and not there.
    Missing,
    /// There, and not listed.
    New,
    /// Listed, not there, and found under this other path (not listed)
    /// with every digest the manifest gives it; `candidates`: how many new
    /// files were as good a match (more than one: the choice is a guess).
    Moved { to: Vec<u8>, candidates: usize },
    /// Listed but unreadable, or met by the walk and unreadable: why.
    Error(String),
    /// Listed, and the path leads out of the directory: never opened.
    Outside,
}

/// One file's outcome, under its path relative to the audited directory
/// (or absolute, as the manifest gave it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Record {
    pub path: Vec<u8>,
    pub status: Status,
    /// For a file listed under several functions: which differ and which
    /// match (`SHA256 differs, MD5 matches`).
    pub detail: Option<String>,
}

/// How many files (and defective manifest lines) of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub matched: u64,
    pub changed: u64,
    pub missing: u64,
    pub new: u64,
    pub moved: u64,
    pub errors: u64,
    pub malformed_lines: u64,
}

impl Counts {
    pub fn of(records: &[Record], defects: &[Defect]) -> Counts {
        let mut counts = Counts {
            malformed_lines: defects.len() as u64,
            ..Counts::default()
        };
        for record in records {
            *match record.status {
                Status::Matched => &mut counts.matched,
                Status::Changed => &mut counts.changed,
                Status::Missing => &mut counts.missing,
                Status::New => &mut counts.new,
                Status::Moved { .. } => &mut counts.moved,
                Status::Error(_) | Status::Outside => &mut counts.errors,
            } += 1;
        }
        counts
    }

    /// Whether the audit passes: nothing changed, missing, moved or
    /// unreadable and every manifest line sound; with `strict`, nothing new
    /// either. (A moved file was missing + new before moves were told
    /// apart: it still fails, as a manifest audited against the wrong
    /// directory must.)
    pub fn ok(&self, strict: bool) -> bool {
        self.changed == 0
            && self.missing == 0
            && self.moved == 0
            && self.errors == 0
            && self.malformed_lines == 0
            && (!strict || self.new == 0)
    }
}

/// What is audited and how.
pub struct Target<'a> {
    /// The directory the manifest's paths start from, open: every listed
    /// file is opened beneath it.
    pub root: &'a Root,
    pub walk: &'a WalkOptions,
    pub threads: usize,
    /// The manifest file, when it is one: never reported new.
    pub manifest: Option<&'a OsStr>,
    /// Where new files are looked for: these trees under `dir` (see
    /// [`manifest_roots`]), or all of `dir` if `None`.
    pub roots: Option<&'a [OsString]>,
}

/// The trees a manifest's relative paths lie in, for an audit not given a
/// directory: the first component of every path, so that a manifest made
/// with `linerate sum -r photos/` audits `photos` and not every other file
/// of the current directory. `None` where a path lies directly in the
/// current directory (then all of it is the tree). Absolute paths and
/// paths that leave the directory (`..`) add no tree.
pub fn manifest_roots(entries: &[Entry]) -> Option<Vec<OsString>> {
    let mut roots = std::collections::BTreeSet::new();
    for entry in entries {
        if entry.name.first() == Some(&b'/') {
            continue;
        }
        let normalized = paths::normalize(&entry.name);
        let mut parts = normalized.split(|&b| b == b'/');
        let first = parts.next().unwrap_or_default();
        // A file directly in the directory: all of it is the tree.
        parts.next()?;
        if first != b".." {
            roots.insert(first.to_vec());
        }
    }
    Some(roots.into_iter().map(OsString::from_vec).collect())
}

/// Audits `entries` against `target`; the records sorted by path.
pub fn audit(entries: &[Entry], target: &Target, progress: &dyn Progress) -> Vec<Record> {
    let root = target.root;
    let dir = root.name().as_bytes();
    let walked = Walked::new(root.name(), target.roots, target.walk);
    let real_dir = fs::canonicalize(root.name()).ok();
    let beneath: Vec<Option<OsString>> = entries
        .iter()
        .map(|e| beneath_name(real_dir.as_deref(), &e.name))
        .collect();
    let keys: Vec<Vec<u8>> = entries
        .iter()
        .zip(&beneath)
        .map(|(e, name)| match name {
            Some(name) => paths::locate(dir, name.as_bytes()),
            None => paths::locate(dir, &e.name),
        })
        .collect();
    let mut statuses: Vec<Option<Status>> = vec![None; entries.len()];
    let mut queue = Queue::default();
    for (i, key) in keys.iter().enumerate() {
        let Some(name) = &beneath[i] else {
            statuses[i] = Some(Status::Outside);
            continue;
        };
        if walked.files.contains_key(key) {
            queue.push(i, entries[i].algorithm, name);
        } else {
            match unwalked(root, name) {
                Some(status) => statuses[i] = Some(status),
                None => queue.push(i, entries[i].algorithm, name),
            }
        }
    }
    queue.hash(entries, root, target.threads, progress, &mut statuses);

    let listed: HashSet<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    // One record per listed path: a dual manifest lists a path once per
    // function, and the path is matched only if every function matches.
    let mut by_key: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut first_of: HashMap<&[u8], usize> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        match first_of.get(key.as_slice()) {
            Some(&at) => by_key[at].1.push(i),
            None => {
                first_of.insert(key, by_key.len());
                by_key.push((i, vec![i]));
            }
        }
    }
    let mut records: Vec<Record> = by_key
        .iter()
        .map(|(first, members)| combine(entries, &statuses, *first, members))
        .collect();
    let manifest = target.manifest.and_then(Identity::of);
    let mut new_files = Vec::new();
    for (key, shown) in walked.files {
        let own = manifest.as_ref().is_some_and(|m| m.is(&key));
        if !listed.contains(key.as_slice()) && !own {
            new_files.push((key, shown));
        }
    }
    // In path order, whatever the walk's: the moves found do not depend on it.
    new_files.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    let moves = find_moves(
        entries,
        &by_key,
        &records,
        &new_files,
        target.threads,
        progress,
    );
    for &(record_index, new_index, candidates) in &moves {
        records[record_index].status = Status::Moved {
            to: new_files[new_index].1.clone(),
            candidates,
        };
    }
    let moved_to: HashSet<usize> = moves.iter().map(|&(_, n, _)| n).collect();
    for (i, (_, shown)) in new_files.into_iter().enumerate() {
        if !moved_to.contains(&i) {
            records.push(Record {
                path: shown,
                status: Status::New,
                detail: None,
            });
        }
    }
    for (key, shown, error) in walked.errors {
        if !listed.contains(key.as_slice()) {
            records.push(Record {
                path: shown,
                status: Status::Error(reason(&error)),
                detail: None,
            });
        }
    }
    records.sort_unstable();
    records
}

/// The record of a listed path from its entries' statuses: an error, a
/// path outside or a missing file first; changed if any function differs
/// (saying which, when there are several); else matched.
fn combine(
    entries: &[Entry],
    statuses: &[Option<Status>],
    first: usize,
    members: &[usize],
) -> Record {
    let status_of = |i: usize| {
        // Every entry was either classified or queued and hashed.
        statuses[i]
            .clone()
            .unwrap_or_else(|| Status::Error("not hashed".to_string()))
    };
    let all: Vec<Status> = members.iter().map(|&i| status_of(i)).collect();
    let path = entries[first].name.clone();
    let status = all
        .iter()
        .find(|s| matches!(s, Status::Error(_)))
        .or_else(|| all.iter().find(|s| **s == Status::Outside))
        .or_else(|| all.iter().find(|s| **s == Status::Missing))
        .or_else(|| all.iter().find(|s| **s == Status::Changed))
        .cloned()
        .unwrap_or(Status::Matched);
    let detail = (members.len() > 1 && status == Status::Changed).then(|| {
        let names = |wanted: &Status| {
            members
                .iter()
                .zip(&all)
                .filter(|(_, s)| *s == wanted)
                .map(|(&i, _)| entries[i].algorithm.tag())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (differ, same) = (names(&Status::Changed), names(&Status::Matched));
        if same.is_empty() {
            format!("{differ} differ")
        } else {
            format!("{differ} differs, {same} matches")
        }
    });
    Record {
        path,
        status,
        detail,
    }
}

/// Files that moved: each missing path whose every listed digest some new
/// file (not listed) has: (index of the missing record, index of the new
/// file, how many new files were as good a match). Pairs of the same file
/// name are made first, then of the same directory, then any, each round
/// in path order (new files come sorted by path). Only hashed when both
/// missing and new files exist.
fn find_moves(
    entries: &[Entry],
    by_key: &[(usize, Vec<usize>)],
    records: &[Record],
    new_files: &[(Vec<u8>, Vec<u8>)],
    threads: usize,
    progress: &dyn Progress,
) -> Vec<(usize, usize, usize)> {
    let missing: Vec<usize> = (0..records.len())
        .filter(|&r| records[r].status == Status::Missing)
        .collect();
    if missing.is_empty() || new_files.is_empty() {
        return Vec::new();
    }
    let mut algorithms: Vec<DigestAlgorithm> = Vec::new();
    for &r in &missing {
        for &i in &by_key[r].1 {
            if !algorithms.contains(&entries[i].algorithm) {
                algorithms.push(entries[i].algorithm);
            }
        }
    }
    let paths: Vec<OsString> = new_files.iter().map(|(key, _)| openable(key)).collect();
    let inputs: Vec<Input<'_>> = paths.iter().map(|p| Input::Path(p)).collect();
    // Each new file's digest under each function (None if unreadable).
    let mut digests: HashMap<(usize, DigestAlgorithm), Vec<u8>> = HashMap::new();
    for &algorithm in &algorithms {
        digests_of(&inputs, algorithm, threads, progress, |k, digest| {
            digests.insert((k, algorithm), digest);
        });
    }
    let same_content = |r: usize, k: usize| {
        by_key[r]
            .1
            .iter()
            .all(|&i| digests.get(&(k, entries[i].algorithm)) == Some(&entries[i].digest))
    };
    let mut missing = missing;
    missing.sort_unstable_by(|&a, &b| records[a].path.cmp(&records[b].path));
    let mut taken = HashSet::new();
    let mut paired = HashSet::new();
    let mut moves = Vec::new();
    for near in [Near::SameName, Near::SameDirectory, Near::Anywhere] {
        for &r in &missing {
            if paired.contains(&r) {
                continue;
            }
            let from = &records[r].path;
            let candidates: Vec<usize> = (0..new_files.len())
                .filter(|&k| {
                    !taken.contains(&k) && near.holds(from, &new_files[k].1) && same_content(r, k)
                })
                .collect();
            if let Some(&k) = candidates.first() {
                taken.insert(k);
                paired.insert(r);
                moves.push((r, k, candidates.len()));
            }
        }
    }
    moves
}

/// How near a new file must be to a missing path to pair them, in the
/// order pairs are made.
#[derive(Clone, Copy)]
enum Near {
    SameName,
    SameDirectory,
    Anywhere,
}

impl Near {
    fn holds(self, from: &[u8], to: &[u8]) -> bool {
        match self {
            Near::SameName => split_name(from).1 == split_name(to).1,
            Near::SameDirectory => split_name(from).0 == split_name(to).0,
            Near::Anywhere => true,
        }
    }
}

/// A path's directory (empty for none) and file name.
fn split_name(path: &[u8]) -> (&[u8], &[u8]) {
    let path = path.strip_suffix(b"/").unwrap_or(path);
    match path.iter().rposition(|&b| b == b'/') {
        Some(at) => (&path[..at], &path[at + 1..]),
        None => (&b""[..], path),
    }
}

/// The name under the directory that a manifest's `name` opens beneath it
/// (normalised), or `None` where it leads out: a `..` component, or an
/// absolute path not under the directory (`real_dir`, its canonical path;
/// one under it is made relative, so that a manifest of absolute paths
/// audits with the directory, or `/`, given).
fn beneath_name(real_dir: Option<&std::path::Path>, name: &[u8]) -> Option<OsString> {
    let normalized = paths::normalize(name);
    let relative = if normalized.first() == Some(&b'/') {
        let dir = paths::normalize(real_dir?.as_os_str().as_bytes());
        let rest = if dir == b"/" {
            &normalized[1..]
        } else {
            normalized
                .strip_prefix(dir.as_slice())?
                .strip_prefix(b"/")?
        };
        if rest.is_empty() {
            return None;
        }
        rest.to_vec()
    } else {
        normalized
    };
    if relative.split(|&b| b == b'/').any(|part| part == b"..") {
        return None;
    }
    Some(OsString::from_vec(relative))
}

/// The digest of each of `inputs` that could be read, with `algorithm`:
/// MD5 and MD5-P/K in the lanes, cksum's digests beside the reads.
fn digests_of(
    inputs: &[Input<'_>],
    algorithm: DigestAlgorithm,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Vec<u8>),
) {
    digests_or_errors(inputs, algorithm, threads, progress, |k, result| {
        if let Ok(digest) = result {
            each(k, digest);
        }
    });
}

/// Every input's digest with `algorithm`, or why it failed, in order.
fn digests_or_errors(
    inputs: &[Input<'_>],
    algorithm: DigestAlgorithm,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Result<Vec<u8>, FileError>),
) {
    match algorithm {
        DigestAlgorithm::Hash(a) => whole::hash_in_order(inputs, a, threads, progress, |k, r| {
            each(k, r.map(|d| d.to_vec()));
        }),
        DigestAlgorithm::Cksum(a) => {
            whole::digests_in_order(inputs, a, threads, progress, |k, r| {
                each(
                    k,
                    r.map(|v| match v {
                        CksumValue::Digest(d) => d,
                        CksumValue::Sum { .. } => Vec::new(),
                    }),
                );
            })
        }
    }
}

/// What the walk found: regular files (lexical key, path shown) and errors.
struct Walked {
    files: HashMap<Vec<u8>, Vec<u8>>,
    errors: Vec<(Vec<u8>, Vec<u8>, io::Error)>,
}

impl Walked {
    /// Walks `dir`, or only the trees `roots` under it; paths are shown
    /// relative to `dir` either way.
    fn new(dir: &OsStr, roots: Option<&[OsString]>, options: &WalkOptions) -> Walked {
        let mut walked = Walked {
            files: HashMap::new(),
            errors: Vec::new(),
        };
        let dir = dir.as_bytes();
        let starts: Vec<Vec<u8>> = match roots {
            None => vec![dir.to_vec()],
            // A tree that is not there holds nothing new (its files are
            // missing, and said so).
            Some(roots) => roots
                .iter()
                .map(|root| [dir, b"/", root.as_bytes()].concat())
                .filter(|start| fs::metadata(OsStr::from_bytes(start)).is_ok_and(|m| m.is_dir()))
                .collect(),
        };
        for start in starts {
            tree::walk(
                OsStr::from_bytes(&start),
                options,
                &mut |found| match found {
                    Found::File(path) => {
                        let path = path.as_bytes();
                        walked
                            .files
                            .insert(paths::normalize(path), paths::relative(dir, path));
                    }
                    Found::Error(path, error) => {
                        let path = path.as_bytes();
                        walked.errors.push((
                            paths::normalize(path),
                            paths::relative(dir, path),
                            error,
                        ));
                    }
                },
            );
        }
        walked
    }
}

/// The status of a listed file the walk did not find, from its metadata
/// (opened beneath the directory, never read); `None` if it is a regular
/// file to hash.
fn unwalked(root: &Root, name: &OsStr) -> Option<Status> {
    match root.metadata(name) {
        Err(e) if is_missing(&e) => Some(Status::Missing),
        Err(e) if is_outside(&e) => Some(Status::Outside),
        Err(e) => Some(Status::Error(reason(&e))),
        Ok(m) if m.is_file() => None,
        Ok(m) if m.is_dir() => Some(Status::Error("Is a directory".to_string())),
        Ok(_) => Some(Status::Error("not a regular file".to_string())),
    }
}

/// Listed files to hash, one list per function.
#[derive(Default)]
struct Queue {
    groups: Vec<(DigestAlgorithm, Vec<usize>, Vec<OsString>)>,
}

impl Queue {
    fn push(&mut self, entry: usize, algorithm: DigestAlgorithm, name: &OsStr) {
        let at = match self.groups.iter().position(|g| g.0 == algorithm) {
            Some(at) => at,
            None => {
                self.groups.push((algorithm, Vec::new(), Vec::new()));
                self.groups.len() - 1
            }
        };
        let group = &mut self.groups[at];
        group.1.push(entry);
        group.2.push(name.to_owned());
    }

    /// Hashes every queued file, setting its entry's status.
    fn hash(
        &self,
        entries: &[Entry],
        root: &Root,
        threads: usize,
        progress: &dyn Progress,
        statuses: &mut [Option<Status>],
    ) {
        // Sized only if someone watches.
        if progress.shown() {
            let files = self.groups.iter().flat_map(|g| &g.2);
            let bytes = files
                .clone()
                .filter_map(|f| root.metadata(f).ok())
                .filter(fs::Metadata::is_file)
                .fold(0u64, |total, m| total.saturating_add(m.len()));
            progress.expect(bytes, files.count() as u64);
        }
        for (algorithm, indices, files) in &self.groups {
            let inputs: Vec<Input<'_>> = files.iter().map(|f| Input::Beneath(root, f)).collect();
            digests_or_errors(&inputs, *algorithm, threads, progress, |k, result| {
                // One outcome per file, in the order of `files`.
                let i = indices[k];
                statuses[i] = Some(verdict(&entries[i], result));
            });
        }
    }
}

fn verdict(entry: &Entry, result: Result<Vec<u8>, FileError>) -> Status {
    match result {
        Ok(digest) if digest == entry.digest => Status::Matched,
        Ok(_) => Status::Changed,
        Err(e) if e.is_missing() || is_missing(e.io_error()) => Status::Missing,
        Err(e) if is_outside(e.io_error()) => Status::Outside,
        Err(e) => Status::Error(reason(e.io_error())),
    }
}

/// Whether an error says the path is not there: no such file, or a
/// component that is no longer a directory.
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// `key` as a path to open.
fn openable(key: &[u8]) -> OsString {
    OsString::from_vec(key.to_vec())
}

/// An error as `strerror` words it.
fn reason(e: &io::Error) -> String {
    strerror(e)
}

/// The manifest file, recognised among the files found: by name first
/// (cheap), then by device and inode.
struct Identity {
    name: Vec<u8>,
    dev: u64,
    ino: u64,
}

impl Identity {
    fn of(path: &OsStr) -> Option<Identity> {
        let meta = fs::metadata(path).ok()?;
        let name = paths::normalize(path.as_bytes());
        let name = name.rsplit(|&b| b == b'/').next()?.to_vec();
        Some(Identity {
            name,
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    fn is(&self, key: &[u8]) -> bool {
        key.rsplit(|&b| b == b'/').next() == Some(self.name.as_slice())
            && fs::metadata(openable(key)).is_ok_and(|m| m.dev() == self.dev && m.ino() == self.ino)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn manifest_names_beneath_the_directory() {
        let name = |dir: Option<&str>, name: &str| {
            beneath_name(dir.map(Path::new), name.as_bytes())
                .map(|n| n.to_string_lossy().into_owned())
        };
        assert_eq!(name(None, "./a//b").as_deref(), Some("a/b"));
        assert_eq!(name(Some("/t"), "/t/a").as_deref(), Some("a"));
        assert_eq!(name(Some("/"), "/etc/x").as_deref(), Some("etc/x"));
        for outside in ["../a", "a/../../b", "/etc/x", "/tree/a", "/t", "/t/../x"] {
            assert_eq!(name(Some("/t"), outside), None, "{outside}");
        }
        assert_eq!(name(None, "/t/a"), None);
    }

    #[test]
    fn names_split_into_directory_and_file() {
        assert_eq!(split_name(b"a/b/c"), (&b"a/b"[..], &b"c"[..]));
        assert_eq!(split_name(b"c"), (&b""[..], &b"c"[..]));
        assert!(Near::SameName.holds(b"old/e1", b"new/e1"));
        assert!(!Near::SameName.holds(b"old/e1", b"new/e11"));
        assert!(Near::SameDirectory.holds(b"d/f1", b"d/renamed"));
        assert!(!Near::SameDirectory.holds(b"d/f1", b"e/f1"));
    }
}
