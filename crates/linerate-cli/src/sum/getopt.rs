//! The part of GNU `getopt_long` that md5sum's command line uses: flags
//! without arguments, bundled short options (`-bc`), long options and their
//! unambiguous prefixes (`--stat`), `--` to end the options, and operands
//! mixed with options (GNU permutation; with `POSIXLY_CORRECT` set the first
//! operand ends the options instead). Error messages are glibc's.
//!
//! linerate's own options either take a required argument, the glibc way
//! (`-a X`, `-aX`, `-ba X`, `--algorithm X`, `--algorithm=X`), or none
//! (`--recursive`). Their long names match only when spelled out in full:
//! they take part in no abbreviation, so md5sum's abbreviations (`--t`,
//! `--st`) and their error messages stay exactly md5sum's. Options that
//! take an argument in the tool being copied (cksum's `--algorithm` and
//! `--length`) are abbreviated as glibc abbreviates them
//! ([`Getopt::with_abbreviable_arguments`]).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

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
    /// `-a` as the last argument.
    MissingShortArgument(u8),
    /// `--algorithm` as the last argument.
    MissingLongArgument(&'static str),
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
            GetoptError::MissingShortArgument(c) => {
                m.extend_from_slice(b"option requires an argument -- '");
                m.push(*c);
                m.push(b'\'');
            }
            GetoptError::MissingLongArgument(name) => {
                m.extend_from_slice(format!("option '--{name}' requires an argument").as_bytes());
            }
        }
        m
    }
}

/// An option met on the command line, with its argument if it takes one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found<T> {
    pub value: T,
    pub argument: Option<OsString>,
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
    /// Options that take a required argument; the long ones match exactly.
    short_with_argument: &'a [(u8, T)],
    long_with_argument: &'a [LongOption<T>],
    /// Options that take a required argument and, like the flags in
    /// `long`, match by any unambiguous prefix.
    long_abbreviable_with_argument: &'a [LongOption<T>],
    /// Long options without an argument that match exactly too.
    long_exact: &'a [LongOption<T>],
    /// Set by `--`, or by the first operand under `POSIXLY_CORRECT`.
    options_ended: bool,
    posixly_correct: bool,
    /// Unknown options' values are not echoed (commands that take keys).
    hide_values: bool,
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
            short_with_argument: &[],
            long_with_argument: &[],
            long_abbreviable_with_argument: &[],
            long_exact: &[],
            options_ended: false,
            posixly_correct,
            hide_values: false,
            operands: Vec::new(),
        }
    }

    /// Adds options that take a required argument: short ones, and long ones
    /// that match only when spelled out in full.
    pub fn with_arguments(mut self, short: &'a [(u8, T)], long: &'a [LongOption<T>]) -> Self {
        self.short_with_argument = short;
        self.long_with_argument = long;
        self
    }

    /// Adds long options that take a required argument and match by any
    /// unambiguous prefix, as the flags do (`--algo=sha1` for cksum's
    /// `--algorithm`).
    pub fn with_abbreviable_arguments(mut self, long: &'a [LongOption<T>]) -> Self {
        self.long_abbreviable_with_argument = long;
        self
    }

    /// An unknown or ambiguous `--NAME=VALUE` is reported as
    /// `--NAME=...`: for commands that take keys, where a misspelled key
    /// option must not print the key (md5sum's own options echo it all).
    pub fn hiding_values(mut self) -> Self {
        self.hide_values = true;
        self
    }

    /// Adds long options without an argument that match only when spelled
    /// out in full.
    pub fn with_exact_flags(mut self, long: &'a [LongOption<T>]) -> Self {
        self.long_exact = long;
        self
    }

    /// The operands, in command-line order, once the options are consumed.
    pub fn into_operands(mut self) -> Vec<OsString> {
        self.operands.extend(self.args[self.next..].iter().cloned());
        self.operands
    }

    fn next_short(&mut self, index: usize, pos: usize) -> Option<Result<Found<T>, GetoptError>> {
        let bytes = self.args[index].as_bytes();
        let &c = bytes.get(pos)?;
        self.bundle = Some((index, pos + 1));
        if let Some(&(_, value)) = self.short_with_argument.iter().find(|(s, _)| *s == c) {
            // The rest of the word is the argument, else the next word,
            // whatever it looks like.
            self.bundle = None;
            let argument = if pos + 1 < bytes.len() {
                OsString::from_vec(bytes[pos + 1..].to_vec())
            } else {
                match self.take_next_word() {
                    Some(word) => word,
                    None => return Some(Err(GetoptError::MissingShortArgument(c))),
                }
            };
            return Some(Ok(Found {
                value,
                argument: Some(argument),
            }));
        }
        let found = self
            .short
            .iter()
            .find(|(s, _)| *s == c)
            .map(|&(_, value)| Found {
                value,
                argument: None,
            });
        Some(found.ok_or(GetoptError::InvalidShort(c)))
    }

    fn take_next_word(&mut self) -> Option<OsString> {
        let word = self.args.get(self.next)?.clone();
        self.next += 1;
        Some(word)
    }

    /// Resolves `--BODY` as glibc does: an exact name wins, else a unique
    /// prefix of the tool's own options.
    fn long_option(&mut self, body: &[u8]) -> Result<Found<T>, GetoptError> {
        let (name, inline) = match body.iter().position(|&b| b == b'=') {
            Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
            None => (body, None),
        };
        // Each candidate with whether it takes an argument.
        let with_argument = self
            .long_with_argument
            .iter()
            .chain(self.long_abbreviable_with_argument)
            .map(|o| (o, true));
        let flags = self.long.iter().chain(self.long_exact).map(|o| (o, false));
        let exact = with_argument
            .chain(flags)
            .find(|(o, _)| o.name.as_bytes() == name);
        let (found, takes_argument) = match exact {
            Some(exact) => exact,
            None => {
                // glibc lets several prefix matches through if they mean the
                // same thing; these options all mean different things.
                let matches: Vec<(&LongOption<T>, bool)> = self
                    .long
                    .iter()
                    .map(|o| (o, false))
                    .chain(
                        self.long_abbreviable_with_argument
                            .iter()
                            .map(|o| (o, true)),
                    )
                    .filter(|(o, _)| o.name.as_bytes().starts_with(name))
                    .collect();
                let shown = match inline {
                    Some(_) if self.hide_values => [name, b"=..."].concat(),
                    _ => body.to_vec(),
                };
                match matches[..] {
                    [] => return Err(GetoptError::Unrecognized(shown)),
                    [only] => only,
                    _ => {
                        let candidates = matches.iter().map(|(o, _)| o.name).collect();
                        return Err(GetoptError::Ambiguous {
                            given: shown,
                            candidates,
                        });
                    }
                }
            }
        };
        if !takes_argument {
            if inline.is_some() {
                return Err(GetoptError::UnexpectedArgument(found.name));
            }
            return Ok(Found {
                value: found.value,
                argument: None,
            });
        }
        let argument = match inline {
            Some(value) => OsString::from_vec(value.to_vec()),
            None => self
                .take_next_word()
                .ok_or(GetoptError::MissingLongArgument(found.name))?,
        };
        Ok(Found {
            value: found.value,
            argument: Some(argument),
        })
    }
}

impl<T: Copy> Iterator for Getopt<'_, T> {
    type Item = Result<Found<T>, GetoptError>;

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
        let options: Vec<_> = getopt
            .by_ref()
            .map(|found| found.map(|f| f.value))
            .collect();
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

    const SHORT_ARG: &[(u8, O)] = &[(b'a', O::Status)];
    const LONG_ARG: &[LongOption<O>] = &[LongOption {
        name: "algorithm",
        value: O::Status,
    }];

    fn run_with_arguments(args: &[&str]) -> (Vec<Result<Found<O>, GetoptError>>, Vec<String>) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let mut getopt = Getopt::new(&args, SHORT, LONG, false).with_arguments(SHORT_ARG, LONG_ARG);
        let options: Vec<_> = getopt.by_ref().collect();
        let operands = getopt
            .into_operands()
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        (options, operands)
    }

    fn with(argument: &str) -> Result<Found<O>, GetoptError> {
        Ok(Found {
            value: O::Status,
            argument: Some(OsString::from(argument)),
        })
    }

    #[test]
    fn arguments_in_every_glibc_form() {
        let (options, operands) = run_with_arguments(&[
            "-a",
            "x",
            "f",
            "-ay",
            "-ba",
            "-c",
            "--algorithm",
            "--",
            "--algorithm=",
            "g",
        ]);
        assert_eq!(
            options,
            vec![
                with("x"),
                with("y"),
                Ok(Found {
                    value: O::B,
                    argument: None
                }),
                with("-c"),
                with("--"),
                with(""),
            ]
        );
        assert_eq!(operands, vec!["f", "g"]);
    }

    #[test]
    fn long_options_with_arguments_are_never_abbreviated() {
        let (options, _) = run_with_arguments(&["--algo", "x", "--a", "--algorithm"]);
        let messages: Vec<String> = options
            .into_iter()
            .filter_map(Result::err)
            .map(|e| String::from_utf8_lossy(&e.message()).into_owned())
            .collect();
        assert_eq!(
            messages,
            vec![
                "unrecognized option '--algo'",
                "unrecognized option '--a'",
                "option '--algorithm' requires an argument",
            ]
        );
        let (options, _) = run_with_arguments(&["-ba"]);
        assert_eq!(
            options
                .last()
                .map(|e| e.as_ref().map_err(GetoptError::message)),
            Some(Err(b"option requires an argument -- 'a'".to_vec()))
        );
    }

    #[test]
    fn abbreviable_arguments_match_by_prefix_as_glibc_does() {
        let args: Vec<OsString> = ["--algo=x", "--a", "y", "--s", "--alg"]
            .iter()
            .map(OsString::from)
            .collect();
        let getopt = Getopt::new(&args, SHORT, LONG, false).with_abbreviable_arguments(LONG_ARG);
        let found: Vec<Result<Found<O>, String>> = getopt
            .map(|found| found.map_err(|e| String::from_utf8_lossy(&e.message()).into_owned()))
            .collect();
        assert_eq!(
            found,
            vec![
                with("x").map_err(|_| String::new()),
                with("y").map_err(|_| String::new()),
                Err("option '--s' is ambiguous; possibilities: '--status' '--strict'".to_owned()),
                Err("option '--algorithm' requires an argument".to_owned()),
            ]
        );
    }

    const EXACT: &[LongOption<O>] = &[LongOption {
        name: "recursive",
        value: O::B,
    }];

    #[test]
    fn exact_flags_match_only_in_full_and_take_no_argument() {
        let args: Vec<OsString> = ["--recursive", "--rec", "--recursive=x", "--st", "--r"]
            .iter()
            .map(OsString::from)
            .collect();
        let getopt = Getopt::new(&args, SHORT, LONG, false).with_exact_flags(EXACT);
        let messages: Vec<Result<O, String>> = getopt
            .map(|found| {
                found
                    .map(|f| f.value)
                    .map_err(|e| String::from_utf8_lossy(&e.message()).into_owned())
            })
            .collect();
        assert_eq!(
            messages,
            vec![
                Ok(O::B),
                Err("unrecognized option '--rec'".to_owned()),
                Err("option '--recursive' doesn't allow an argument".to_owned()),
                // md5sum's own ambiguity is untouched.
                Err("option '--st' is ambiguous; possibilities: '--status' '--strict'".to_owned()),
                Err("unrecognized option '--r'".to_owned()),
            ]
        );
    }
}
