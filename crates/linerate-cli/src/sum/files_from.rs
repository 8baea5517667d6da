//! The operands of a run: the command line's, or the names listed in
//! `--files-from FILE`, with every directory among them walked under `-r`
//! ([`linerate_files::tree`]).
//!
//! A list holds one name per line (a last line without its newline counts),
//! or names ended by NUL with `-0`; empty entries are skipped and nothing
//! else is trimmed, so a name may hold spaces, backslashes or (with `-0`)
//! newlines. It is read as it streams in: only the names are kept.
//!
//! The result is the list of files to hash in the order they are printed,
//! and the errors met on the way, each attached to the place it belongs
//! among them. The list is the one thing that grows with the tree.
//!
//! A list read from standard input cannot name it too: by then it has been
//! read to its end. Each `-` in it is refused with du's and wc's words
//! (`--files0-from`), in its place, and the other names are still hashed.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use super::args::Options;
use super::console::{Console, error_text};
use linerate_files::tree::{self, Found};

/// The files of a run and the errors met finding them.
#[derive(Debug, Default)]
pub struct Listing {
    /// What to hash, in output order: regular files found by the walk and
    /// the other operands as given (`-`, missing names, pipes, and
    /// directories without `-r`, which the hashing reports as md5sum does).
    pub files: Vec<OsString>,
    /// Errors, each to be reported just before `files[index]` (after the
    /// last file when `index` is `files.len()`).
    pub errors: Vec<Misfortune>,
}

/// A path that could not be listed, read or walked.
#[derive(Debug)]
pub struct Misfortune {
    /// The error comes before `files[index]`.
    pub index: usize,
    /// The path the error is about; `None` when the error's text is the
    /// whole message.
    pub path: Option<OsString>,
    pub error: io::Error,
}

/// du's and wc's words for a `-` in a list of names read from standard
/// input (coreutils 9.1).
pub const STDIN_NAMED_IN_STDIN_LIST: &str =
    "when reading file names from stdin, no file name of '-' allowed";

impl Misfortune {
    /// Prints the error on `console`'s stderr: `linerate: PATH: TEXT`.
    pub fn report(&self, console: &mut Console) {
        match &self.path {
            Some(path) => console.error_about(path.as_bytes(), &error_text(&self.error)),
            None => console.error(self.error.to_string().as_bytes()),
        }
    }
}

impl Listing {
    fn error(&mut self, path: OsString, error: io::Error) {
        self.errors.push(Misfortune {
            index: self.files.len(),
            path: Some(path),
            error,
        });
    }
}

/// The operands of `options`, read from `--files-from`'s list if given, and
/// walked if `-r` is given.
pub fn gather(options: &Options) -> Listing {
    let mut listing = Listing::default();
    let operands = match &options.files_from {
        None => options.files.clone(),
        Some(list) => {
            let separator = if options.null { b'\0' } else { b'\n' };
            let (names, error) = read_list(list, separator);
            if let Some(e) = error {
                listing.error(list.clone(), e);
            }
            names
        }
    };
    let list_from_stdin = options
        .files_from
        .as_ref()
        .is_some_and(|list| list.as_bytes() == b"-");
    for operand in operands {
        if list_from_stdin && operand.as_bytes() == b"-" {
            // Refused in its place; the other names are still hashed.
            listing.errors.push(Misfortune {
                index: listing.files.len(),
                path: None,
                error: io::Error::other(STDIN_NAMED_IN_STDIN_LIST),
            });
        } else if options.recursive
            && operand.as_bytes() != b"-"
            && std::fs::metadata(&operand).is_ok_and(|m| m.is_dir())
        {
            tree::walk(&operand, &options.walk, &mut |found| match found {
                Found::File(path) => listing.files.push(path),
                Found::Error(path, e) => listing.error(path, e),
            });
        } else {
            listing.files.push(operand);
        }
    }
    listing
}

/// The names in the list `list` (`-`: standard input), each ended by
/// `separator`, and the error that cut the reading short, if one did.
pub fn read_list(list: &OsStr, separator: u8) -> (Vec<OsString>, Option<io::Error>) {
    if list.as_bytes() == b"-" {
        return split(linerate_files::stdin(), separator);
    }
    match File::open(list) {
        Ok(file) => split(BufReader::with_capacity(64 << 10, file), separator),
        Err(e) => (Vec::new(), Some(e)),
    }
}

/// The non-empty entries of `reader` split at `separator`.
fn split(reader: impl BufRead, separator: u8) -> (Vec<OsString>, Option<io::Error>) {
    let mut names = Vec::new();
    for entry in reader.split(separator) {
        match entry {
            Ok(name) if name.is_empty() => {}
            Ok(name) => names.push(OsString::from_vec(name)),
            Err(e) => return (names, Some(e)),
        }
    }
    (names, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_bytes(bytes: &[u8], separator: u8) -> Vec<OsString> {
        let (names, error) = split(bytes, separator);
        assert!(error.is_none());
        names
    }

    fn names(list: &[OsString]) -> Vec<&[u8]> {
        list.iter().map(|n| n.as_bytes()).collect()
    }

    #[test]
    fn lines_and_nul_entries() {
        let list = split_bytes(b"a\n\nb c\nd\\e\r\nlast", b'\n');
        assert_eq!(names(&list), [&b"a"[..], b"b c", b"d\\e\r", b"last"]);
        let list = split_bytes(b"x\ny\0\0z\0", b'\0');
        assert_eq!(names(&list), [&b"x\ny"[..], b"z"]);
        assert!(split_bytes(b"", b'\n').is_empty());
        assert!(split_bytes(b"\n\n", b'\n').is_empty());
    }

    #[test]
    fn an_unreadable_list_is_an_error() {
        let (list, error) = read_list(OsStr::new("/nonexistent/linerate-list"), b'\n');
        assert!(list.is_empty());
        assert_eq!(error.map(|e| e.kind()), Some(io::ErrorKind::NotFound));
        let (_, error) = read_list(OsStr::new("/"), b'\n');
        assert!(error.is_some());
    }
}
