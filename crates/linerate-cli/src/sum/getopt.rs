//! The part of GNU `getopt_long` that md5sum's command line uses: flags
//! without arguments, bundled short options (`-bc`), long options and their
//! unambiguous prefixes (`--stat`), `--` to end the options, and operands
//! mixed with options (GNU permutation; with `POSIXLY_CORRECT` set the first
//! operand ends the options instead). Error messages are glibc's.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

/// A long option and the value it stands for.
pub struct LongOption<T> {
    pub name: &'static str,
    pub value: T,
}

/// A command-line mistake, worded as glibc words it.
#[derive(Debug, PartialEq, Eq)]
pub enum GetoptError {
    /// `-x` where `x` is no short option.
    InvalidShort(u8),
    /// `--xyz`, which starts no long option; holds what followed `--`.
    Unrecognized(Vec<u8>),
    /// `--st`, which starts several long options.
    Ambiguous {
        given: Vec<u8>,
        candidates: Vec<&'static str>,
    },
    /// `--check=x`: none of md5sum's options takes an argument.
    UnexpectedArgument(&'static str),
}

impl GetoptError {
    /// The message, without the program name.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::new();
        match self {
            GetoptError::InvalidShort(c) => {
                m.extend_from_slice(b"invalid option -- '");
                m.push(*c);
                m.push(b'\'');
            }
            GetoptError::Unrecognized(given) => {
                m.extend_from_slice(b"unrecognized option '--");
                m.extend_from_slice(given);
                m.push(b'\'');
            }
            GetoptError::Ambiguous { given, candidates } => {
                m.extend_from_slice(b"option '--");
                m.extend_from_slice(given);
                m.extend_from_slice(b"' is ambiguous; possibilities:");
                for name in candidates {
                    m.extend_from_slice(format!(" '--{name}'").as_bytes());
                }
            }
            GetoptError::UnexpectedArgument(name) => {
                m.extend_from_slice(
                    format!("option '--{name}' doesn't allow an argument").as_bytes(),
                );
            }
        }
        m
    }
}

/// Yields the options of a command line in order; the operands it passes
/// over are kept for [`Getopt::into_operands`].
pub struct Getopt<'a, T> {
    args: &'a [OsString],
    next: usize,
    /// A bundle of short options being taken apart: argument index, position.
    bundle: Option<(usize, usize)>,
    short: &'a [(u8, T)],
    long: &'a [LongOption<T>],
    /// Set by `--`, or by the first operand under `POSIXLY_CORRECT`.
    options_ended: bool,
    posixly_correct: bool,
    operands: Vec<OsString>,
}

impl<'a, T: Copy> Getopt<'a, T> {
    pub fn new(
        args: &'a [OsString],
        short: &'a [(u8, T)],
        long: &'a [LongOption<T>],
        posixly_correct: bool,
    ) -> Self {
        Getopt {
            args,
            next: 0,
            bundle: None,
            short,
            long,
            options_ended: false,
            posixly_correct,
            operands: Vec::new(),
        }
    }

    /// The operands, in command-line order, once the options are consumed.
    pub fn into_operands(mut self) -> Vec<OsString> {
        self.operands.extend(self.args[self.next..].iter().cloned());
        self.operands
    }

    fn next_short(&mut self, index: usize, pos: usize) -> Option<Result<T, GetoptError>> {
        let bytes = self.args[index].as_bytes();
        let &c = bytes.get(pos)?;
        self.bundle = Some((index, pos + 1));
        let found = self
            .short
            .iter()
            .find(|(s, _)| *s == c)
            .map(|&(_, value)| value);
        Some(found.ok_or(GetoptError::InvalidShort(c)))
    }

    /// Resolves `--BODY` as glibc does: an exact name wins, else a unique prefix.
    fn long_option(&self, body: &[u8]) -> Result<T, GetoptError> {
        let (name, has_argument) = match body.iter().position(|&b| b == b'=') {
            Some(eq) => (&body[..eq], true),
            None => (body, false),
        };
        let found = match self.long.iter().find(|o| o.name.as_bytes() == name) {
            Some(exact) => exact,
            None => {
                // glibc lets several prefix matches through if they mean the
                // same thing; md5sum's options all mean different things.
                let matches: Vec<&LongOption<T>> = self
                    .long
                    .iter()
                    .filter(|o| o.name.as_bytes().starts_with(name))
                    .collect();
                match matches[..] {
                    [] => return Err(GetoptError::Unrecognized(body.to_vec())),
                    [only] => only,
                    _ => {
                        let candidates = matches.iter().map(|o| o.name).collect();
                        return Err(GetoptError::Ambiguous {
                            given: body.to_vec(),
                            candidates,
                        });
                    }
                }
            }
        };
        if has_argument {
            return Err(GetoptError::UnexpectedArgument(found.name));
        }
        Ok(found.value)
    }
}

impl<T: Copy> Iterator for Getopt<'_, T> {
    type Item = Result<T, GetoptError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((index, pos)) = self.bundle.take()
                && let Some(item) = self.next_short(index, pos)
            {
                return Some(item);
            }
            if self.options_ended {
                return None;
            }
            let arg = self.args.get(self.next)?;
            self.next += 1;
            let bytes = arg.as_bytes();
            if bytes == b"--" {
                self.options_ended = true;
            } else if bytes.len() < 2 || bytes[0] != b'-' {
                // "-" alone is an operand too: standard input.
                self.operands.push(arg.clone());
                self.options_ended = self.posixly_correct;
            } else if let Some(body) = bytes.strip_prefix(b"--") {
                return Some(self.long_option(body));
            } else {
                self.bundle = Some((self.next - 1, 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum O {
        B,
        C,
        Status,
        Strict,
    }

    const SHORT: &[(u8, O)] = &[(b'b', O::B), (b'c', O::C)];
    const LONG: &[LongOption<O>] = &[
        LongOption {
            name: "check",
            value: O::C,
        },
        LongOption {
            name: "status",
            value: O::Status,
        },
        LongOption {
            name: "strict",
            value: O::Strict,
        },
        LongOption {
            name: "binary",
            value: O::B,
        },
    ];

    fn run(args: &[&str], posix: bool) -> (Vec<Result<O, GetoptError>>, Vec<String>) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let mut getopt = Getopt::new(&args, SHORT, LONG, posix);
        let options: Vec<_> = getopt.by_ref().collect();
        let operands = getopt
            .into_operands()
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        (options, operands)
    }

    #[test]
    fn permutes_bundles_and_stops_at_double_dash() {
        let (options, operands) = run(&["a", "-bc", "-", "--stat", "--", "-b"], false);
        assert_eq!(options, vec![Ok(O::B), Ok(O::C), Ok(O::Status)]);
        assert_eq!(operands, vec!["a", "-", "-b"]);
    }

    #[test]
    fn posixly_correct_stops_at_the_first_operand() {
        let (options, operands) = run(&["-b", "a", "-c"], true);
        assert_eq!(options, vec![Ok(O::B)]);
        assert_eq!(operands, vec!["a", "-c"]);
    }

    #[test]
    fn glibc_messages() {
        let (options, _) = run(&["--st=x", "--ch=1", "--nope", "-x"], false);
        let messages: Vec<String> = options
            .into_iter()
            .filter_map(Result::err)
            .map(|e| String::from_utf8_lossy(&e.message()).into_owned())
            .collect();
        assert_eq!(
            messages,
            vec![
                "option '--st=x' is ambiguous; possibilities: '--status' '--strict'",
                "option '--check' doesn't allow an argument",
                "unrecognized option '--nope'",
                "invalid option -- 'x'",
            ]
        );
    }
}
