//! The directory walker behind `linerate sum -r` and `linerate audit`: the
//! regular files under a directory, in a fixed order, and every path that
//! could not be read.
//!
//! The order is depth-first with each directory's entries sorted by name
//! bytes, a subdirectory's name counted with a trailing `/`: that puts `a.b`
//! (`.` is 0x2e) before the files of `a/` (`/` is 0x2f) and `a0` after them,
//! so the paths come out in byte order of the whole path, as `LC_ALL=C
//! sort` sorts them, whatever order the file system lists entries in.
//!
//! Memory: the walk holds the sorted entries of the directories on the
//! current path, never the whole tree. File types come from the directory
//! listing (`d_type`), so a regular file costs no `stat`; a directory costs
//! one (its device and inode, to detect loops), and with `--follow` so does
//! a symbolic link (to learn what it points to).

use std::ffi::{OsStr, OsString};
use std::fs::{self, Metadata};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// How a tree is walked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// `--follow`: follow symbolic links met inside directories (loops
    /// detected by (dev, inode) of the directories on the current path and
    /// reported as errors). Without it such links are skipped silently, as
    /// `find DIR -type f` does; a root given on the command line is always
    /// followed.
    pub follow: bool,
    /// `--exclude GLOB` patterns (compiled once by [`Exclude::new`]).
    pub exclude: Exclude,
}

/// Compiled `--exclude` globs. A pattern without `/` matches any single
/// path component's name (`*.tmp`, `.git`, `node_modules`); a pattern with
/// `/` matches the path relative to the root (`build/**`, `docs/*.pdf`; a
/// leading `/` is dropped, so `/build` is `build` at the root only). A
/// pattern ending in `/` matches directories only (`cache/`). An excluded
/// directory is not entered. The roots themselves are never excluded.
///
/// Globs are globset's with `*` and `?` stopping at `/`, `**` crossing it,
/// `[...]` classes, `{a,b}` alternatives and `\` escaping.
#[derive(Clone, Debug, Default)]
pub struct Exclude {
    /// The patterns as given, to compare two sets.
    given: Vec<OsString>,
    /// Boxed: globsets are large, and options are moved around.
    compiled: Box<Compiled>,
}

/// An exclusion pattern that does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid pattern '{pattern}': {problem}")]
pub struct ExcludeError {
    /// The pattern as given.
    pub pattern: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Patterns for any entry, and for directories only.
#[derive(Clone, Debug, Default)]
struct Compiled {
    any: Patterns,
    dirs: Patterns,
}

/// Name patterns and relative-path patterns.
#[derive(Clone, Debug, Default)]
struct Patterns {
    names: GlobSet,
    paths: GlobSet,
}

impl PartialEq for Exclude {
    fn eq(&self, other: &Exclude) -> bool {
        self.given == other.given
    }
}

impl Eq for Exclude {}

impl Exclude {
    /// Compiles `patterns`; the error names the first bad one.
    pub fn new(patterns: &[OsString]) -> Result<Exclude, ExcludeError> {
        let mut builders: [GlobSetBuilder; 4] = std::array::from_fn(|_| GlobSetBuilder::new());
        let invalid = |pattern: &OsString, problem: String| ExcludeError {
            pattern: pattern.to_string_lossy().into_owned(),
            problem,
        };
        for pattern in patterns {
            let text = pattern
                .to_str()
                .ok_or_else(|| invalid(pattern, "not valid UTF-8".into()))?;
            let (text, dirs_only) = match text.strip_suffix('/') {
                Some(rest) => (rest.trim_end_matches('/'), true),
                None => (text, false),
            };
            let (text, is_path) = match text.strip_prefix('/') {
                Some(rest) => (rest.trim_start_matches('/'), true),
                None => (text, text.contains('/')),
            };
            let glob = compile(text).map_err(|e| invalid(pattern, e.to_string()))?;
            builders[usize::from(dirs_only) * 2 + usize::from(is_path)].add(glob);
        }
        let [any_names, any_paths, dir_names, dir_paths] = builders.map(|b| b.build());
        let built = |set: Result<GlobSet, globset::Error>| {
            set.map_err(|e| ExcludeError {
                pattern: String::new(),
                problem: e.to_string(),
            })
        };
        Ok(Exclude {
            given: patterns.to_vec(),
            compiled: Box::new(Compiled {
                any: Patterns {
                    names: built(any_names)?,
                    paths: built(any_paths)?,
                },
                dirs: Patterns {
                    names: built(dir_names)?,
                    paths: built(dir_paths)?,
                },
            }),
        })
    }

    /// Whether there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }

    /// Whether the entry `name`, at `relative` under the root, is excluded.
    fn excludes(&self, name: &[u8], relative: &[u8], is_dir: bool) -> bool {
        let matches = |p: &Patterns| {
            p.names.is_match(Path::new(OsStr::from_bytes(name)))
                || p.paths.is_match(Path::new(OsStr::from_bytes(relative)))
        };
        matches(&self.compiled.any) || (is_dir && matches(&self.compiled.dirs))
    }
}

/// `*` and `?` stay within a component, `**` crosses components.
fn compile(text: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// What the walk finds, in order.
#[derive(Debug)]
pub enum Found {
    /// A regular file (or a link to one when followed): its path as printed,
    /// `root` joined with the relative components by `/` (as `find ROOT` prints it).
    File(OsString),
    /// A path that could not be read (unreadable directory, broken link with
    /// --follow, a loop, a vanished entry): its path and the error.
    Error(OsString, io::Error),
}

/// Walks `root` depth-first, each directory's entries sorted by name bytes
/// (see the module docs for the order), calling `found` for every regular
/// file and every error. If `root` is a regular file it is the one file
/// found (as is anything else that is not a directory, for the caller to
/// read or report); a root that cannot be `stat`ed is an error. Names need
/// not be UTF-8.
pub fn walk(root: &OsStr, options: &WalkOptions, found: &mut dyn FnMut(Found)) {
    let meta = match fs::metadata(root) {
        Ok(meta) => meta,
        Err(e) => return found(Found::Error(root.to_owned(), e)),
    };
    if !meta.is_dir() {
        return found(Found::File(root.to_owned()));
    }
    let mut path = root.as_bytes().to_vec();
    // `find dir/` prints `dir/a`, not `dir//a`.
    if path.last() != Some(&b'/') {
        path.push(b'/');
    }
    let mut walker = Walker {
        options,
        root,
        found,
        relative_from: path.len(),
        path,
        stack: Vec::new(),
    };
    walker.enter(id(&meta));
    walker.run();
}

/// What a directory entry is, as far as the walk cares.
enum Kind {
    File,
    /// A directory; its identity when a followed link led to it.
    Dir(Option<(u64, u64)>),
    /// An entry that could not be examined (a broken link, a failed `stat`).
    Error(io::Error),
}

/// A directory entry, sorted by `key`: its name, plus `/` for a directory.
struct Entry {
    key: Vec<u8>,
    kind: Kind,
}

impl Entry {
    fn name(&self) -> &[u8] {
        match self.kind {
            Kind::Dir(_) => &self.key[..self.key.len() - 1],
            _ => &self.key,
        }
    }
}

/// A directory being walked: its sorted entries and where the walk is.
struct Level {
    /// Entries still to visit, in reverse order (popped from the end).
    entries: Vec<Entry>,
    /// The length of the path up to and including this directory's `/`.
    path_len: usize,
    /// (device, inode), to detect loops.
    id: (u64, u64),
}

struct Walker<'a, 'f> {
    options: &'a WalkOptions,
    root: &'a OsStr,
    found: &'f mut dyn FnMut(Found),
    /// The current path: the root, then the components of the entry being
    /// visited, each ended by `/` while it is a directory on the way.
    path: Vec<u8>,
    /// Where the part relative to the root starts in `path`.
    relative_from: usize,
    /// The directories on the current path, the root first.
    stack: Vec<Level>,
}

impl Walker<'_, '_> {
    /// Visits every entry, depth-first.
    fn run(&mut self) {
        while let Some(level) = self.stack.last_mut() {
            let Some(entry) = level.entries.pop() else {
                self.stack.pop();
                continue;
            };
            let path_len = level.path_len;
            self.path.truncate(path_len);
            self.path.extend_from_slice(entry.name());
            match entry.kind {
                Kind::File => self.emit(Found::File),
                Kind::Error(e) => self.emit(|path| Found::Error(path, e)),
                Kind::Dir(meta) => self.descend(meta),
            }
        }
    }

    /// Enters the directory at `path`, unless it is one of its own ancestors.
    fn descend(&mut self, followed: Option<(u64, u64)>) {
        let dir = match followed {
            Some(dir) => dir,
            // A real directory: `lstat`, so one replaced by a link since it
            // was listed is not followed.
            None => match fs::symlink_metadata(OsStr::from_bytes(&self.path)) {
                Err(e) => return self.emit(|path| Found::Error(path, e)),
                Ok(meta) if !meta.is_dir() => return,
                Ok(meta) => id(&meta),
            },
        };
        if self.stack.iter().any(|level| level.id == dir) {
            let e = io::Error::other("File system loop detected");
            self.emit(|path| Found::Error(path, e));
        } else {
            self.path.push(b'/');
            self.enter(dir);
        }
    }

    /// Lists the directory at `path` (which ends with `/`) onto the stack.
    /// A listing that fails part way is reported and what was read is kept.
    fn enter(&mut self, id: (u64, u64)) {
        let dir = OsStr::from_bytes(&self.path);
        let mut entries = Vec::new();
        match fs::read_dir(dir) {
            Err(e) => return self.report_dir(e),
            Ok(listing) => {
                for entry in listing {
                    match entry {
                        Ok(entry) => entries.extend(self.entry(&entry)),
                        Err(e) => {
                            self.report_dir(e);
                            break;
                        }
                    }
                }
            }
        }
        entries.sort_unstable_by(|a: &Entry, b: &Entry| b.key.cmp(&a.key));
        self.stack.push(Level {
            entries,
            path_len: self.path.len(),
            id,
        });
    }

    /// What the walk makes of one directory entry: `None` to skip it.
    fn entry(&self, entry: &fs::DirEntry) -> Option<Entry> {
        let name = entry.file_name().into_vec();
        let kind = match entry.file_type() {
            Err(e) => Kind::Error(e),
            Ok(t) if t.is_file() => Kind::File,
            Ok(t) if t.is_dir() => Kind::Dir(None),
            Ok(t) if t.is_symlink() && self.options.follow => match fs::metadata(entry.path()) {
                Err(e) => Kind::Error(e),
                Ok(meta) if meta.is_file() => Kind::File,
                Ok(meta) if meta.is_dir() => Kind::Dir(Some(id(&meta))),
                Ok(_) => return None,
            },
            // Links not followed, devices, pipes, sockets: not files to hash.
            Ok(_) => return None,
        };
        let is_dir = matches!(kind, Kind::Dir(_));
        if !self.options.exclude.is_empty() {
            let mut relative = self.path[self.relative_from..].to_vec();
            relative.extend_from_slice(&name);
            if self.options.exclude.excludes(&name, &relative, is_dir) {
                return None;
            }
        }
        let mut key = name;
        if is_dir {
            key.push(b'/');
        }
        Some(Entry { key, kind })
    }

    /// Reports the directory being listed: the root as given, any other
    /// by its path without the final `/`.
    fn report_dir(&mut self, e: io::Error) {
        let path = match self.stack.is_empty() {
            true => self.root.to_owned(),
            false => OsString::from_vec(self.path[..self.path.len() - 1].to_vec()),
        };
        (self.found)(Found::Error(path, e));
    }

    /// Hands what was found at the current path to the caller.
    fn emit(&mut self, found: impl FnOnce(OsString) -> Found) {
        let path = OsString::from_vec(self.path.clone());
        (self.found)(found(path));
    }
}

/// A directory's identity: (device, inode).
fn id(meta: &Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exclude(patterns: &[&str]) -> Exclude {
        let patterns: Vec<OsString> = patterns.iter().map(OsString::from).collect();
        Exclude::new(&patterns).unwrap()
    }

    #[test]
    fn name_patterns_match_any_component_and_path_patterns_the_relative_path() {
        let e = exclude(&["*.tmp", "build/**", "/top", "cache/"]);
        assert!(e.excludes(b"a.tmp", b"x/y/a.tmp", false));
        assert!(!e.excludes(b"a.tmpx", b"a.tmpx", false));
        assert!(e.excludes(b"o", b"build/o", false));
        assert!(e.excludes(b"o", b"build/x/o", false));
        assert!(!e.excludes(b"o", b"src/build/o", false));
        assert!(!e.excludes(b"build", b"build", true));
        assert!(e.excludes(b"top", b"top", true));
        assert!(!e.excludes(b"top", b"x/top", true));
        assert!(e.excludes(b"cache", b"x/cache", true));
        assert!(!e.excludes(b"cache", b"x/cache", false));
        assert!(e.excludes(b"\xff.tmp", b"\xff.tmp", false));
    }

    #[test]
    fn star_stops_at_a_slash() {
        let e = exclude(&["docs/*.pdf"]);
        assert!(e.excludes(b"a.pdf", b"docs/a.pdf", false));
        assert!(!e.excludes(b"a.pdf", b"docs/x/a.pdf", false));
    }

    #[test]
    fn bad_patterns_are_named() {
        let bad = [OsString::from("a[")];
        let error = Exclude::new(&bad).unwrap_err();
        assert_eq!(error.pattern, "a[");
        let message = error.to_string();
        assert!(message.starts_with("invalid pattern 'a['"), "{message}");
        assert!(exclude(&[]).is_empty());
        assert_eq!(exclude(&["x"]), exclude(&["x"]));
        assert_ne!(exclude(&["x"]), exclude(&["y"]));
    }

    fn walked(root: &Path, options: &WalkOptions) -> Vec<Result<String, String>> {
        let mut found = Vec::new();
        walk(root.as_os_str(), options, &mut |f| {
            found.push(match f {
                Found::File(path) => Ok(path.to_string_lossy().into_owned()),
                Found::Error(path, e) => Err(format!("{}: {e}", path.to_string_lossy())),
            });
        });
        found
    }

    #[test]
    fn paths_come_sorted_and_loops_are_caught() {
        let dir = std::env::temp_dir().join(format!("linerate-walk-{}", std::process::id()));
        let root = dir.join("r");
        fs::create_dir_all(root.join("x/y")).unwrap();
        for name in ["x.b", "x0", "x/y/f", "x/a", "x-"] {
            fs::write(root.join(name), name).unwrap();
        }
        std::os::unix::fs::symlink("../..", root.join("x/y/up")).unwrap();
        let r = root.to_string_lossy().into_owned();
        let ok = |rel: &str| Ok(format!("{r}/{rel}"));
        assert_eq!(
            walked(&root, &WalkOptions::default()),
            [ok("x-"), ok("x.b"), ok("x/a"), ok("x/y/f"), ok("x0")]
        );
        let follow = WalkOptions {
            follow: true,
            ..WalkOptions::default()
        };
        let found = walked(&root, &follow);
        assert_eq!(found.len(), 6);
        assert!(
            found[4]
                .as_ref()
                .is_err_and(|e| e.ends_with("x/y/up: File system loop detected"))
        );
        // A file root is the one file; a missing one an error.
        assert_eq!(walked(&root.join("x0"), &follow), [ok("x0")]);
        assert!(walked(&root.join("none"), &follow)[0].is_err());
        // `r/` prints `r/x-`, not `r//x-`.
        let slash = root.join("");
        assert_eq!(walked(&slash, &WalkOptions::default())[0], ok("x-"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
