//! The bodies the prompt endpoints answer with, as the SDKs' `Prompt` and `PromptMeta` read them.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// One version of a prompt (the SDKs' `TextPrompt` or `ChatPrompt`, told apart by `type`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub project_id: String,
    pub created_by: String,
    pub name: String,
    pub version: i32,
    /// `text` or `chat`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A string for `text`; for `chat`, a list of messages (`{role, content}`) and placeholders
    /// (`{type: "placeholder", name}`). References are resolved unless `resolve=false`.
    pub prompt: Value,
    /// Free-form model parameters; `{}` when none were given.
    pub config: Value,
    pub labels: Vec<String>,
    pub tags: Vec<String>,
    pub commit_message: Option<String>,
    /// Always `null`: upstream's deprecated flag, kept because older SDKs expect the key.
    pub is_active: Option<bool>,
    /// Present only when references were resolved: which versions the prompt pulled in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution_graph: Option<ResolutionGraph>,
}

/// The versions a resolved prompt pulled in, by the id of the version that referenced them.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResolutionGraph {
    pub root: PromptNode,
    pub dependencies: BTreeMap<String, Vec<PromptNode>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct PromptNode {
    pub id: String,
    pub name: String,
    pub version: i32,
}

/// One prompt name in the list, summarising its versions that match the filters.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptMeta {
    pub name: String,
    /// The newest matching version's type.
    #[serde(rename = "type")]
    pub kind: String,
    pub versions: Vec<i32>,
    /// Every label on a matching version, sorted.
    pub labels: Vec<String>,
    pub tags: Vec<String>,
    pub last_updated_at: String,
    /// The newest matching version's config.
    pub last_config: Value,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn prompt(resolution_graph: Option<ResolutionGraph>) -> Prompt {
        Prompt {
            id: "id".into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
            project_id: "p".into(),
            created_by: "API".into(),
            name: "greeting".into(),
            version: 2,
            kind: "text".into(),
            prompt: json!("Hi {{name}}"),
            config: json!({}),
            labels: vec!["latest".into()],
            tags: vec![],
            commit_message: None,
            is_active: None,
            resolution_graph,
        }
    }

    #[test]
    fn unset_keys_are_null_and_the_graph_only_appears_when_resolved() {
        let body = serde_json::to_value(prompt(None)).unwrap();
        assert_eq!(body["type"], "text");
        assert_eq!((&body["commitMessage"], &body["isActive"]), (&json!(null), &json!(null)));
        assert!(body.get("isActive").is_some() && body.get("resolutionGraph").is_none(), "{body}");
        let node = PromptNode { id: "b".into(), name: "base".into(), version: 1 };
        let graph = ResolutionGraph {
            root: PromptNode { id: "id".into(), name: "greeting".into(), version: 2 },
            dependencies: BTreeMap::from([("id".to_owned(), vec![node])]),
        };
        let body = serde_json::to_value(prompt(Some(graph))).unwrap();
        assert_eq!(
            body["resolutionGraph"]["dependencies"]["id"][0],
            json!({"id": "b", "name": "base", "version": 1})
        );
    }
}
