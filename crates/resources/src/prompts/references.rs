//! Prompt references: `@@@langfusePrompt:name=<name>|version=<n>@@@` or `…|label=<label>@@@`
//! inside a prompt's text (or a chat message's content) is replaced by the referenced text prompt
//! when the prompt is read with `resolve=true`.

use reads::Params;

use crate::{Error, Result};

const OPEN: &str = "@@@langfusePrompt:";
const CLOSE: &str = "@@@";

/// Which version of a named prompt: by number or by the label on it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Selector {
    Version(i32),
    Label(String),
}

impl Selector {
    /// The `version` or `label` query parameter, never both; `None` when neither is given.
    pub fn from_params(params: &Params) -> Result<Option<Self>> {
        let version = params.int("version", 0, 1, i64::from(i32::MAX))?;
        match (i32::try_from(version).unwrap_or_default(), params.string("label")) {
            (0, None) => Ok(None),
            (0, Some(label)) => Ok(Some(Self::Label(label))),
            (version, None) => Ok(Some(Self::Version(version))),
            (_, Some(_)) => Err(Error::bad_request("Specify either `version` or `label`, not both")),
        }
    }
}

/// One reference as written, and what it points at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// The whole tag, replaced on resolution.
    pub tag: String,
    pub name: String,
    pub selector: Selector,
}

impl Reference {
    pub fn describe(&self) -> String {
        match &self.selector {
            Selector::Version(version) => format!("'{}' with version {version}", self.name),
            Selector::Label(label) => format!("'{}' with label '{label}'", self.name),
        }
    }
}

/// The references in `text`, in order; malformed tags are left alone as plain text.
pub fn find(text: &str) -> Vec<Reference> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find(CLOSE) else { break };
        if let Some(reference) = parse(&after[..end]) {
            found.push(Reference { tag: format!("{OPEN}{}{CLOSE}", &after[..end]), ..reference });
        }
        rest = &after[end + CLOSE.len()..];
    }
    found
}

fn parse(inner: &str) -> Option<Reference> {
    let (mut name, mut selector) = (None, None);
    for part in inner.split('|') {
        match part.split_once('=')? {
            ("name", value) if !value.is_empty() => name = Some(value.to_owned()),
            ("version", value) => selector = Some(Selector::Version(value.parse().ok()?)),
            ("label", value) if !value.is_empty() => selector = Some(Selector::Label(value.to_owned())),
            _ => return None,
        }
    }
    Some(Reference { tag: String::new(), name: name?, selector: selector? })
}

/// Every reference inside a stored prompt body (the text, or each chat message's content).
pub fn in_body(body: &serde_json::Value) -> Vec<Reference> {
    texts(body).flat_map(find).collect()
}

fn texts(body: &serde_json::Value) -> impl Iterator<Item = &str> {
    let single = body.as_str().into_iter();
    let messages = body
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|message| message.get("content").and_then(serde_json::Value::as_str));
    single.chain(messages)
}

/// Replaces each tag in the body's texts by its resolved text.
pub fn substitute(body: &mut serde_json::Value, resolved: &[(Reference, String)]) {
    let replace = |text: &str| {
        resolved.iter().fold(text.to_owned(), |text, (reference, with)| text.replace(&reference.tag, with))
    };
    match body {
        serde_json::Value::String(text) => *text = replace(text),
        serde_json::Value::Array(messages) => {
            for message in messages {
                if let Some(serde_json::Value::String(content)) = message.get_mut("content") {
                    *content = replace(content);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_version_and_label_references_and_skips_malformed_tags() {
        let text = "A @@@langfusePrompt:name=base|version=2@@@ B @@@langfusePrompt:name=team/x|label=staging@@@ \
                    C @@@langfusePrompt:name=bad@@@ D @@@langfusePrompt:name=y|version=two@@@";
        let found = find(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].name, "base");
        assert_eq!(found[0].selector, Selector::Version(2));
        assert_eq!(found[0].tag, "@@@langfusePrompt:name=base|version=2@@@");
        assert_eq!(found[1].name, "team/x");
        assert_eq!(found[1].selector, Selector::Label("staging".into()));
        assert!(find("no references @@@langfusePrompt:name=open").is_empty());
    }

    #[test]
    fn a_selector_is_a_version_or_a_label_never_both() {
        let of = |pairs: &[(&str, &str)]| Selector::from_params(&Params::from_pairs(pairs.iter().copied()));
        assert_eq!(of(&[]).unwrap(), None);
        assert_eq!(of(&[("version", "3")]).unwrap(), Some(Selector::Version(3)));
        assert_eq!(of(&[("label", "staging")]).unwrap(), Some(Selector::Label("staging".into())));
        assert!(of(&[("version", "3"), ("label", "staging")]).unwrap_err().to_string().contains("not both"));
        assert!(of(&[("version", "0")]).is_err(), "versions start at 1");
    }

    #[test]
    fn substitutes_in_text_and_in_chat_contents() {
        let reference = find("@@@langfusePrompt:name=base|label=production@@@").remove(0);
        let resolved = vec![(reference, "BASE".to_owned())];
        let mut text = json!("x @@@langfusePrompt:name=base|label=production@@@ y");
        substitute(&mut text, &resolved);
        assert_eq!(text, json!("x BASE y"));
        let mut chat = json!([
            {"role": "system", "content": "@@@langfusePrompt:name=base|label=production@@@!"},
            {"type": "placeholder", "name": "history"},
        ]);
        assert_eq!(in_body(&chat).len(), 1);
        substitute(&mut chat, &resolved);
        assert_eq!(chat[0]["content"], "BASE!");
        assert_eq!(chat[1], json!({"type": "placeholder", "name": "history"}));
    }
}
