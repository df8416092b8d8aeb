//! Helpers of the deployment checks in `tests/`: reading the repository's deployment files, Compose
//! variable substitution and environment merging, and the structure and comments of the chart's
//! `values.yaml`. The tests themselves hold the rules; nothing here is used by Loupe's binaries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use serde_norway::Value;

/// An environment: variable name → value.
pub type Env = BTreeMap<String, String>;

/// The repository root (this crate lives in `deploy/check`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of the repository, by its path from the root.
pub fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(repo_root().join(path)).map_err(|e| format!("{path}: {e}"))
}

/// Parses YAML and applies `<<` merge keys, as Compose and Helm do.
pub fn parse_yaml(text: &str) -> Result<Value, String> {
    let mut value: Value = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    value.apply_merge().map_err(|e| e.to_string())?;
    Ok(value)
}

/// A repository YAML file, parsed.
pub fn yaml_file(path: &str) -> Result<Value, String> {
    parse_yaml(&read(path)?).map_err(|e| format!("{path}: {e}"))
}

/// Follows a dotted path (`web.probes.startup`) through nested mappings.
pub fn lookup<'a>(value: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(value, |v, key| v.get(key))
}

/// A scalar as an environment value would see it; `None` for null (unset), mappings and sequences.
pub fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Compose variable substitution (compose-spec "Interpolation"): `$$`, `$NAME`, `${NAME}`,
/// `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`, `${NAME:+alt}`,
/// `${NAME+alt}`. `vars` plays the part of the shell environment and `.env`.
pub fn interpolate(text: &str, vars: &Env) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').ok_or_else(|| format!("unclosed ${{ in {text:?}"))?;
            out.push_str(&substitute(&body[..end], vars)?);
            rest = &body[end + 1..];
        } else {
            let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            if len == 0 {
                return Err(format!("a lone $ in {text:?} (write $$)"));
            }
            out.push_str(vars.get(&after[..len]).map(String::as_str).unwrap_or(""));
            rest = &after[len..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn substitute(expression: &str, vars: &Env) -> Result<String, String> {
    let name_len =
        expression.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(expression.len());
    let (name, modifier) = expression.split_at(name_len);
    if name.is_empty() {
        return Err(format!("no variable name in ${{{expression}}}"));
    }
    let value = vars.get(name);
    let set = value.is_some();
    let non_empty = value.is_some_and(|v| !v.is_empty());
    let value = value.cloned().unwrap_or_default();
    let result = match modifier {
        "" => value,
        m if m.starts_with(":-") => {
            if non_empty {
                value
            } else {
                m[2..].to_owned()
            }
        }
        m if m.starts_with('-') => {
            if set {
                value
            } else {
                m[1..].to_owned()
            }
        }
        m if m.starts_with(":?") => {
            if !non_empty {
                return Err(format!("{name}: {}", &m[2..]));
            }
            value
        }
        m if m.starts_with('?') => {
            if !set {
                return Err(format!("{name}: {}", &m[1..]));
            }
            value
        }
        m if m.starts_with(":+") => {
            if non_empty {
                m[2..].to_owned()
            } else {
                String::new()
            }
        }
        m if m.starts_with('+') => {
            if set {
                m[1..].to_owned()
            } else {
                String::new()
            }
        }
        m => return Err(format!("unsupported substitution ${{{name}{m}}}")),
    };
    Ok(result)
}

/// The `environment` of one service in one Compose file, substituted with `vars`. `None` when the file
/// does not mention the service's environment. Null values (pass-through from the shell) are left out.
pub fn compose_service_env(file: &Value, service: &str, vars: &Env) -> Result<Option<Env>, String> {
    let Some(environment) =
        file.get("services").and_then(|s| s.get(service)).and_then(|s| s.get("environment"))
    else {
        return Ok(None);
    };
    let mut env = Env::new();
    match environment {
        Value::Mapping(map) => {
            for (key, value) in map {
                let key = scalar(key).ok_or_else(|| format!("{service}: a non-scalar variable name"))?;
                if let Some(value) = scalar(value) {
                    env.insert(key, interpolate(&value, vars)?);
                }
            }
        }
        Value::Sequence(items) => {
            for item in items {
                let item =
                    scalar(item).ok_or_else(|| format!("{service}: a non-scalar environment entry"))?;
                if let Some((key, value)) = item.split_once('=') {
                    env.insert(key.to_owned(), interpolate(value, vars)?);
                }
            }
        }
        _ => return Err(format!("{service}: environment is neither a mapping nor a list")),
    }
    Ok(Some(env))
}

/// A service's environment after `docker compose -f a -f b …`: later files override earlier ones key
/// by key (compose-spec "Merge").
pub fn merged_service_env(files: &[&Value], service: &str, vars: &Env) -> Result<Env, String> {
    let mut env = Env::new();
    for file in files {
        if let Some(layer) = compose_service_env(file, service, vars)? {
            env.extend(layer);
        }
    }
    Ok(env)
}

/// One key of a YAML document written in block style, with its comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentedKey {
    /// Dotted path from the root, e.g. `web.probes.startup.periodSeconds`.
    pub path: String,
    /// The comment lines right above the key plus its trailing comment, joined with spaces.
    pub comment: String,
    /// 1-based line number.
    pub line: usize,
}

/// Every block-style key of a YAML text (such as `values.yaml`) with the comment that documents it.
/// Keys inside flow collections (`{…}`, `[…]`) and list items are not visited.
pub fn documented_keys(text: &str) -> Vec<DocumentedKey> {
    let mut keys = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() {
            pending.clear();
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            pending.push(comment.trim().to_owned());
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            pending.clear();
            continue;
        };
        let is_key = !key.is_empty()
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && (value.is_empty() || value.starts_with(' '));
        if !is_key {
            pending.clear();
            continue;
        }
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        stack.push((indent, key.to_owned()));
        let path = stack.iter().map(|(_, k)| k.as_str()).collect::<Vec<_>>().join(".");
        let trailing = trailing_comment(value).unwrap_or_default();
        let mut comment = pending.join(" ");
        if !trailing.is_empty() {
            comment = format!("{comment} {trailing}").trim().to_owned();
        }
        keys.push(DocumentedKey { path, comment, line: index + 1 });
        pending.clear();
    }
    keys
}

/// The comment after a YAML value on the same line, ignoring `#` inside quotes.
pub fn trailing_comment(value: &str) -> Option<String> {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (at, c) in value.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => return Some(value[at + 1..].trim().to_owned()),
            _ => {}
        }
        previous = c;
    }
    None
}

/// Parentheses removed and whitespace collapsed, so `true (false in legacy mode)` matches a comment
/// that says `true (false in legacy mode)` or `true, false in legacy mode` alike.
pub fn normalise(text: &str) -> String {
    text.replace(['(', ')', ','], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Env {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn interpolation_follows_the_compose_spec() {
        let none = Env::new();
        assert_eq!(interpolate("a ${X:-dflt} b", &none).unwrap(), "a dflt b");
        assert_eq!(interpolate("${X:-d}", &vars(&[("X", "")])).unwrap(), "d");
        assert_eq!(interpolate("${X-d}", &vars(&[("X", "")])).unwrap(), "");
        assert_eq!(interpolate("${X}/$X/$$X", &vars(&[("X", "v")])).unwrap(), "v/v/$X");
        assert_eq!(interpolate("${X:+alt}", &vars(&[("X", "v")])).unwrap(), "alt");
        assert!(interpolate("${X:?set X}", &none).unwrap_err().contains("set X"));
        assert!(interpolate("${X", &none).is_err());
        assert_eq!(interpolate("redis://:${P:-pw}@redis:6379/0", &none).unwrap(), "redis://:pw@redis:6379/0");
    }

    #[test]
    fn later_files_override_earlier_ones_key_by_key() {
        let base = parse_yaml(
            "x-env: &env\n  A: \"1\"\n  B: ${B:-2}\nservices:\n  s:\n    environment:\n      <<: *env\n      C: 3\n",
        )
        .unwrap();
        let over = parse_yaml("services:\n  s:\n    environment: [\"B=20\", \"D=4\"]\n").unwrap();
        let env = merged_service_env(&[&base, &over], "s", &Env::new()).unwrap();
        assert_eq!(env, vars(&[("A", "1"), ("B", "20"), ("C", "3"), ("D", "4")]));
    }

    #[test]
    fn keys_carry_the_comments_above_and_beside_them() {
        let text = "# top\na:\n  # about b\n  # more\n  b: 1 # beside\n\n  c: \"#x\"\nd: [1]\n";
        let keys = documented_keys(text);
        let find = |p: &str| keys.iter().find(|k| k.path == p).unwrap().comment.clone();
        assert_eq!(find("a"), "top");
        assert_eq!(find("a.b"), "about b more beside");
        assert_eq!(find("a.c"), "");
        assert_eq!(find("d"), "");
    }
}
