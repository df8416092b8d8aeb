//! The recorded SDK requests in ../shared/fixtures/sdk-captures, ready to replay.

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

pub struct Recorded {
    pub path: String,
    pub content_type: String,
    /// Header names and values as the client sent them, minus transport and auth headers.
    pub headers: Vec<(String, String)>,
    /// The body as it was before any Content-Encoding.
    pub body: Vec<u8>,
    /// Spans in this request (OTLP only).
    pub spans: usize,
}

fn directory() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/sdk-captures")
}

/// Every fixture file name (without `.json`).
pub fn all() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory())
        .expect("the shared fixtures sit beside the repository")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    names
}

pub fn requests(name: &str) -> Vec<Recorded> {
    let text = std::fs::read_to_string(directory().join(format!("{name}.json"))).unwrap();
    let capture: Value = serde_json::from_str(&text).unwrap();
    capture["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == "POST")
        .map(|r| {
            let body = match r["body_base64"].as_str() {
                Some(encoded) => STANDARD.decode(encoded).unwrap(),
                None if r["body_kind"] == "empty" => Vec::new(),
                None => serde_json::to_vec(&r["body"]).unwrap(),
            };
            let skip = [
                "host",
                "authorization",
                "content-length",
                "content-encoding",
                "transfer-encoding",
                "connection",
            ];
            let headers = r["headers"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !skip.contains(&k.to_ascii_lowercase().as_str()))
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect();
            let spans = r["body"]["resourceSpans"]
                .as_array()
                .map(|rs| {
                    rs.iter()
                        .flat_map(|r| r["scopeSpans"].as_array().cloned().unwrap_or_default())
                        .map(|s| s["spans"].as_array().map_or(0, Vec::len))
                        .sum()
                })
                .unwrap_or(0);
            Recorded {
                path: r["path"].as_str().unwrap().to_owned(),
                content_type: r["content_type"].as_str().unwrap_or_default().to_owned(),
                headers,
                body,
                spans,
            }
        })
        .collect()
}
