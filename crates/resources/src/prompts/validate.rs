//! The rules a new prompt version must satisfy before anything is written.

use serde_json::{Value, json};

use crate::{Error, Result};

/// `latest` is kept on the highest version by the server; nobody may assign it.
pub const LATEST: &str = "latest";
/// The label a get without `version` or `label` reads.
pub const PRODUCTION: &str = "production";

const MAX_LABEL_LENGTH: usize = 36;

/// Folder-style names (`team/summarise`) are allowed; empty segments and `|` (the separator of
/// prompt references) are not.
pub fn name(name: &str) -> Result<()> {
    let problem = if name.trim().is_empty() {
        Some("must not be empty")
    } else if name.contains('|') {
        Some("must not contain '|'")
    } else if name.starts_with('/') || name.ends_with('/') || name.contains("//") {
        Some("must not start or end with '/' or contain '//'")
    } else if name == "new" {
        Some("must not be 'new'")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::bad_request(format!("Prompt name {problem}: `{name}`"))),
        None => Ok(()),
    }
}

/// Labels are short lowercase words: `production`, `staging`, `v1.2-beta`.
pub fn labels(labels: &[String], allow_latest: bool) -> Result<()> {
    for label in labels {
        let valid_chars = label
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-' | '.'));
        if label.is_empty() || label.len() > MAX_LABEL_LENGTH || !valid_chars {
            return Err(Error::bad_request(format!(
                "Invalid label `{label}`: labels are 1 to {MAX_LABEL_LENGTH} characters of lowercase letters, digits, '_', '-' or '.'"
            )));
        }
        if label == LATEST && !allow_latest {
            return Err(Error::bad_request(
                "The label 'latest' is reserved: it is always on the newest version",
            ));
        }
    }
    Ok(())
}

/// The prompt body for its type: a string for `text`, a list of messages and placeholders for
/// `chat`. Returns the body as stored, with each placeholder's `type` made explicit.
pub fn body(kind: &str, prompt: &Value) -> Result<Value> {
    match (kind, prompt) {
        ("text", Value::String(_)) => Ok(prompt.clone()),
        ("text", _) => Err(Error::bad_request("A text prompt's `prompt` must be a string")),
        ("chat", Value::Array(messages)) => messages.iter().enumerate().map(|(i, m)| message(i, m)).collect(),
        ("chat", _) => Err(Error::bad_request("A chat prompt's `prompt` must be an array of messages")),
        (other, _) => {
            Err(Error::bad_request(format!("Unknown prompt type `{other}`: expected `text` or `chat`")))
        }
    }
}

fn message(index: usize, message: &Value) -> Result<Value> {
    let invalid = |what: &str| Error::bad_request(format!("prompt[{index}]: {what}"));
    let object = message.as_object().ok_or_else(|| invalid("a message must be an object"))?;
    let kind = object.get("type").and_then(Value::as_str);
    if kind == Some("placeholder") || (kind.is_none() && !object.contains_key("role")) {
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .ok_or_else(|| invalid("a placeholder needs a non-empty string `name`"))?;
        return Ok(json!({ "type": "placeholder", "name": name }));
    }
    if let Some(other) = kind.filter(|kind| *kind != "chatmessage") {
        return Err(invalid(&format!("unknown message type `{other}`")));
    }
    if !object.get("role").is_some_and(Value::is_string) {
        return Err(invalid("a message needs a string `role`"));
    }
    if !object.get("content").is_some_and(Value::is_string) {
        return Err(invalid("a message needs a string `content`"));
    }
    Ok(message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_allow_folders_but_not_separators_or_empty_segments() {
        assert!(name("team/summarise").is_ok());
        for bad in ["", " ", "a|b", "/a", "a/", "a//b", "new"] {
            assert!(name(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn labels_are_short_lowercase_words_and_latest_is_reserved() {
        assert!(labels(&["production".into(), "v1.2-beta_x".into()], false).is_ok());
        assert!(labels(&["Production".into()], false).is_err());
        assert!(labels(&["a b".into()], false).is_err());
        assert!(labels(&["x".repeat(37)], false).is_err());
        assert!(labels(&[LATEST.into()], false).is_err());
        assert!(labels(&[LATEST.into()], true).is_ok());
    }

    #[test]
    fn bodies_must_match_their_type() {
        assert!(body("text", &json!("Hi {{name}}")).is_ok());
        assert!(body("text", &json!([])).is_err());
        assert!(body("chat", &json!("hi")).is_err());
        assert!(body("image", &json!("hi")).is_err());
        let chat = json!([
            {"role": "system", "content": "Be brief"},
            {"type": "chatmessage", "role": "user", "content": "{{q}}"},
            {"name": "history"},
        ]);
        let stored = body("chat", &chat).unwrap();
        assert_eq!(stored[2], json!({"type": "placeholder", "name": "history"}));
        assert_eq!(stored[0], chat[0]);
        assert!(body("chat", &json!([{"role": "user"}])).is_err());
        assert!(body("chat", &json!([{"type": "placeholder"}])).is_err());
        assert!(body("chat", &json!([{"type": "tool", "role": "user", "content": "x"}])).is_err());
    }
}
