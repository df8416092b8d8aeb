//! The command line of every subcommand, parsed in one place: `--flag value` pairs, the two flags
//! all of them take (`--bin-dir`, `--stack-env`) handled here, the rest handed to the subcommand.

use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Context, bail};

/// What every subcommand takes.
pub struct Common {
    /// Where the web and worker binaries are (`just bench` passes its release directory).
    pub bin_dir: PathBuf,
    /// The stack's env file the binaries get their settings from: `--stack-env FILE`, else
    /// `LOUPE_BENCH_STACK_ENV` (scripts set it once for several runs), else the dev stack's.
    pub stack_env: PathBuf,
}

/// One `--flag value` pair.
pub struct Flag {
    name: String,
    raw: String,
}

impl Flag {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> String {
        self.raw.clone()
    }

    pub fn number<T: FromStr>(&self) -> anyhow::Result<T> {
        self.raw.parse().ok().with_context(|| format!("{} needs a number, got {}", self.name, self.raw))
    }

    /// Comma-separated numbers (`--rate 200,2000`).
    pub fn numbers<T: FromStr>(&self) -> anyhow::Result<Vec<T>> {
        self.raw
            .split(',')
            .map(|n| {
                n.trim()
                    .parse()
                    .ok()
                    .with_context(|| format!("{} needs numbers, got {}", self.name, self.raw))
            })
            .collect()
    }

    /// A `KEY=VALUE` setting (`--env`).
    pub fn setting(&self) -> anyhow::Result<(String, String)> {
        let (key, value) =
            self.raw.split_once('=').with_context(|| format!("{} needs KEY=VALUE", self.name))?;
        Ok((key.to_owned(), value.to_owned()))
    }
}

/// Reads `args` as `--flag value` pairs. `own` takes the subcommand's flags and answers whether it
/// knew the flag; one nobody knows stops the run, so a typo never measures the defaults quietly.
pub fn parse(
    mut args: impl Iterator<Item = String>,
    mut own: impl FnMut(&Flag) -> anyhow::Result<bool>,
) -> anyhow::Result<Common> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The tool's own option, not a Loupe setting: Loupe's binaries get theirs from the env file.
    #[allow(clippy::disallowed_methods)]
    let chosen = std::env::var_os("LOUPE_BENCH_STACK_ENV");
    let mut common = Common {
        bin_dir: PathBuf::from("target/release"),
        stack_env: chosen.map_or_else(|| root.join(".local/stack.env"), PathBuf::from),
    };
    while let Some(name) = args.next() {
        let raw = args.next().with_context(|| format!("{name} needs a value"))?;
        let flag = Flag { name, raw };
        match flag.name() {
            "--bin-dir" => common.bin_dir = PathBuf::from(flag.text()),
            "--stack-env" => common.stack_env = PathBuf::from(flag.text()),
            _ if own(&flag)? => {}
            other => bail!("unknown flag {other}"),
        }
    }
    Ok(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> impl Iterator<Item = String> {
        line.split_whitespace().map(str::to_owned).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn common_flags_are_taken_and_the_rest_go_to_the_subcommand() {
        let mut seen = Vec::new();
        let common = parse(args("--requests 7 --bin-dir /b --rate 1,2 --stack-env /s.env"), |flag| {
            match flag.name() {
                "--requests" => seen.push(flag.number::<u64>()?),
                "--rate" => seen.extend(flag.numbers::<u64>()?),
                _ => return Ok(false),
            }
            Ok(true)
        })
        .unwrap();
        assert_eq!(seen, [7, 1, 2]);
        assert_eq!(common.bin_dir, PathBuf::from("/b"));
        assert_eq!(common.stack_env, PathBuf::from("/s.env"));
    }

    #[test]
    fn unknown_flags_missing_values_and_bad_numbers_are_refused() {
        let number = |flag: &Flag| flag.number::<u64>().map(|_| flag.name() == "--n");
        let error = |line: &str| parse(args(line), number).err().map(|e| e.to_string());
        assert_eq!(error("--typo 3").as_deref(), Some("unknown flag --typo"));
        assert_eq!(error("--n").as_deref(), Some("--n needs a value"));
        assert_eq!(error("--n x").as_deref(), Some("--n needs a number, got x"));
        assert_eq!(error("--n 3"), None);
    }
}
