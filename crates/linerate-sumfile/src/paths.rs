//! Paths compared lexically: the manifest's names, the directory they are
//! relative to and what the walk finds are reduced to one spelling each, so
//! that `./a//b`, `a/b` and `DIR/a/b` (found under `DIR`) meet.
//!
//! Normalising drops empty and `.` components (a leading `./`, repeated or
//! trailing `/`) and keeps everything else, `..` included: resolving `..`
//! would need the file system (a symbolic link may stand before it), and a
//! lexical audit must not guess.

/// `path` in its normal spelling: `/` between components, a leading `/` if
/// it is absolute; `.` for a relative path with no component left (and `/`
/// for the root).
pub fn normalize(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    if path.first() == Some(&b'/') {
        out.push(b'/');
    }
    let absolute = !out.is_empty();
    for component in components(path) {
        if out.len() > usize::from(absolute) {
            out.push(b'/');
        }
        out.extend_from_slice(component);
    }
    if out.is_empty() {
        out.push(b'.');
    }
    out
}

/// Where the manifest's `name` lies for an audit of `dir`, normalised: an
/// absolute name as it is, a relative one under `dir`.
pub fn locate(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if name.first() == Some(&b'/') {
        return normalize(name);
    }
    let mut joined = Vec::with_capacity(dir.len() + 1 + name.len());
    joined.extend_from_slice(dir);
    joined.push(b'/');
    joined.extend_from_slice(name);
    normalize(&joined)
}

/// `found` (a path the walk of `root` printed) relative to `root`,
/// normalised; `found` normalised if it does not lie under `root`.
pub fn relative(root: &[u8], found: &[u8]) -> Vec<u8> {
    let absolute = |p: &[u8]| p.first() == Some(&b'/');
    let same_kind = absolute(root) == absolute(found);
    let mut rest = components(found);
    let under = same_kind && components(root).all(|r| rest.next() == Some(r));
    if !under {
        return normalize(found);
    }
    let rest: Vec<&[u8]> = rest.collect();
    if rest.is_empty() {
        b".".to_vec()
    } else {
        rest.join(&b'/')
    }
}

/// The components that count: neither empty nor `.`.
fn components(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.split(|&b| b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(path: &str) -> String {
        String::from_utf8(normalize(path.as_bytes())).unwrap()
    }

    #[test]
    fn normal_spellings() {
        assert_eq!(n("./a//b/"), "a/b");
        assert_eq!(n("././a"), "a");
        assert_eq!(n("a/./b"), "a/b");
        assert_eq!(n("//x///y"), "/x/y");
        assert_eq!(n("../a/../b"), "../a/../b");
        assert_eq!(n("."), ".");
        assert_eq!(n(""), ".");
        assert_eq!(n("/"), "/");
        assert_eq!(n("/./"), "/");
        assert_eq!(n("a b/\n"), "a b/\n");
    }

    #[test]
    fn names_are_located_under_the_directory_unless_absolute() {
        let l = |dir: &str, name: &str| String::from_utf8(locate(dir.as_bytes(), name.as_bytes()));
        assert_eq!(l(".", "./a/b").unwrap(), "a/b");
        assert_eq!(l("tree/", "a").unwrap(), "tree/a");
        assert_eq!(l("/", "a").unwrap(), "/a");
        assert_eq!(l("tree", "/etc/x").unwrap(), "/etc/x");
        assert_eq!(l("../t", "-").unwrap(), "../t/-");
    }

    #[test]
    fn found_paths_relative_to_the_root() {
        let r = |root: &str, found: &str| {
            String::from_utf8(relative(root.as_bytes(), found.as_bytes())).unwrap()
        };
        assert_eq!(r(".", "./a/b"), "a/b");
        assert_eq!(r("./", ".//a"), "a");
        assert_eq!(r("tree", "tree/a/b"), "a/b");
        assert_eq!(r("tree/", "tree//a"), "a");
        assert_eq!(r("/", "/a"), "a");
        assert_eq!(r("/x/t", "/x/t/a"), "a");
        assert_eq!(r("tree", "tree"), ".");
        // Not under the root: left as found.
        assert_eq!(r("tree", "other/a"), "other/a");
        assert_eq!(r("t", "/t/a"), "/t/a");
        assert_eq!(r("/t", "t/a"), "t/a");
    }
}
