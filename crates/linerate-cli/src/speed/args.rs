//! `linerate speed`'s command line.

use linerate_lab::algo::Algo;
use linerate_lab::lab::Request;
use std::ffi::OsString;
use std::path::PathBuf;

/// What `linerate speed` was asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The lab run: ALGO arguments (rows of the throughput table; none
    /// means every table), `--bytes`, `--seconds`, `-j`, `--quick`, `--cold`.
    pub request: Request,
    pub json: bool,
    /// `--from FILE`: render this saved run (`speed --json`'s output)
    /// instead of measuring; `-` is standard input.
    pub from: Option<PathBuf>,
    pub help: bool,
}

/// The largest block `--bytes` takes (each thread holds one or more).
const MAX_BYTES: u64 = 256 << 20;

/// Parses the arguments after `speed`; the error is a one-line message.
pub fn parse(args: &[OsString]) -> Result<Options, String> {
    let mut options = Options {
        request: Request::default(),
        json: false,
        from: None,
        help: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let arg = arg
            .to_str()
            .ok_or_else(|| format!("invalid argument '{}'", arg.to_string_lossy()))?;
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg, None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args
                    .next()
                    .and_then(|v| v.to_str())
                    .map(str::to_string)
                    .ok_or_else(|| format!("option '{what}' needs a value")),
            }
        };
        match name {
            "--json" => options.json = true,
            "--from" => options.from = Some(PathBuf::from(value("--from")?)),
            "--quick" => options.request.quick = true,
            "--cold" => options.request.cold = true,
            "-h" | "--help" => options.help = true,
            "--bytes" => {
                let v = value("--bytes")?;
                options.request.bytes = Some(
                    v.parse::<u64>()
                        .ok()
                        .filter(|n| (1..=MAX_BYTES).contains(n))
                        .ok_or_else(|| format!("invalid --bytes '{v}': give 1 to {MAX_BYTES}"))?,
                );
            }
            "--seconds" => {
                let v = value("--seconds")?;
                options.request.seconds = Some(
                    v.parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 60.0)
                        .ok_or_else(|| {
                            format!("invalid --seconds '{v}': give more than 0, at most 60")
                        })?,
                );
            }
            "-j" | "--jobs" => options.request.jobs = jobs(&value("-j")?)?,
            _ if name.starts_with("-j") && name.len() > 2 => {
                options.request.jobs = jobs(&name[2..])?
            }
            _ if name.starts_with('-') && name.len() > 1 => {
                return Err(format!("unrecognized option '{arg}'"));
            }
            _ => {
                let algo = Algo::from_name(arg).map_err(|e| e.0)?;
                if !options.request.algos.contains(&algo) {
                    options.request.algos.push(algo);
                }
            }
        }
    }
    if options.from.is_some() && options.request != Request::default() {
        return Err(
            "--from renders a saved run: it takes no ALGO, --bytes, --seconds, \
                    -j, --cold or --quick"
                .to_string(),
        );
    }
    Ok(options)
}

fn jobs(v: &str) -> Result<usize, String> {
    v.parse::<usize>()
        .ok()
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| format!("invalid -j '{v}': give 1 to 1024 threads"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses() {
        let o = parse(&os(&[
            "md5",
            "--bytes",
            "64",
            "-j2",
            "--seconds=0.5",
            "--json",
            "MD5",
        ]))
        .unwrap();
        assert_eq!(o.request.algos, vec![Algo::MD5]);
        assert_eq!(o.request.bytes, Some(64));
        assert_eq!(o.request.jobs, 2);
        assert_eq!(o.request.seconds, Some(0.5));
        assert!(o.json && !o.request.quick);
        assert_eq!(o.from, None);
        let o = parse(&os(&["--from=lab.json", "--json"])).unwrap();
        assert_eq!(o.from, Some(PathBuf::from("lab.json")));
        for bad in [
            &["--bytes", "0"][..],
            &["-j", "x"],
            &["--seconds", "-1"],
            &["--frob"],
            &["md6"],
            &["--bytes"],
            &["--from", "lab.json", "md5"],
            &["--from", "lab.json", "--quick"],
            &["--from"],
        ] {
            assert!(parse(&os(bad)).is_err(), "{bad:?}");
        }
    }
}
