//! Every long option the README's command examples use is in its
//! command's `--help`, and the top-level help says what each command does
//! today: read mechanically from README.md's `sh` blocks.

use std::collections::BTreeSet;
use std::process::Command;

use crate::support::{LINERATE, repository};

/// `(command, option)` for every `--option` after `linerate COMMAND` in
/// the README's `sh` blocks (up to a pipe, `;`, `&&` or the comment).
fn readme_options() -> BTreeSet<(String, String)> {
    let readme = std::fs::read_to_string(repository().join("README.md")).expect("README.md");
    let mut found = BTreeSet::new();
    let mut in_sh = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = line.split(" # ").next().unwrap_or(line);
        let mut words = code.split_whitespace();
        while let Some(word) = words.next() {
            if word != "linerate" {
                continue;
            }
            let Some(command) = words.next() else {
                break;
            };
            for word in words.by_ref() {
                if matches!(word, "|" | ";" | "&&" | "||") {
                    break;
                }
                if let Some(option) = word.strip_prefix("--") {
                    let name = option.split('=').next().unwrap_or(option);
                    if !name.is_empty() {
                        found.insert((command.to_string(), format!("--{name}")));
                    }
                }
            }
        }
    }
    found
}

fn help_of(command: &str) -> String {
    let out = Command::new(LINERATE)
        .args([command, "--help"])
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("run linerate");
    assert_eq!(out.status.code(), Some(0), "linerate {command} --help");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_option_the_readme_uses_is_in_its_commands_help() {
    let options = readme_options();
    assert!(
        options.contains(&("sum".to_string(), "--also".to_string())),
        "the README is read: {options:?}"
    );
    let mut missing = Vec::new();
    let mut helps = std::collections::HashMap::new();
    for (command, option) in &options {
        let help = helps
            .entry(command.clone())
            .or_insert_with(|| help_of(command));
        // The option's name as a whole word: `--also` is not `--also-x`.
        let listed = help.match_indices(option.as_str()).any(|(at, _)| {
            let after = help[at + option.len()..].chars().next();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        if !listed {
            missing.push(format!("linerate {command} {option}"));
        }
    }
    assert!(missing.is_empty(), "not in --help: {missing:?}");
}

#[test]
fn the_top_level_help_says_cksum_checks() {
    let out = Command::new(LINERATE)
        .arg("--help")
        .output()
        .expect("run linerate");
    let help = String::from_utf8_lossy(&out.stdout);
    let cksum: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("cksum "))
        .take(3)
        .collect();
    assert!(!cksum.is_empty(), "{help}");
    assert!(!help.contains("no --check yet"), "{help}");
    assert!(cksum.concat().contains("--check"), "{cksum:?}");
}
