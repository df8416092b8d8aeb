//! Resolving a prompt's references with bounded work, whatever the prompts hold.
//!
//! References are fetched a level at a time — every distinct `(name, version|label)` of a level in
//! one query — then each distinct version is resolved once and reused wherever it is referenced.
//! Three limits keep a hostile or mistaken graph cheap to refuse: references nest at most
//! [`MAX_REFERENCE_DEPTH`] levels, one resolution reaches at most [`MAX_REFERENCED_VERSIONS`]
//! distinct versions, and the resolved text is at most [`MAX_RESOLVED_BYTES`]. Each is a 400 that
//! names it.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use sqlx::PgPool;

use super::references::{self, Reference, Selector};
use super::{COLUMNS, Dependencies, StoredPrompt};
use crate::{Error, Result};

/// How deep references may nest; deeper chains are almost certainly a mistake.
pub const MAX_REFERENCE_DEPTH: usize = 8;
/// How many distinct prompt versions one resolution may pull in.
pub const MAX_REFERENCED_VERSIONS: usize = 1_000;
/// How large a resolved prompt may grow (a text repeated through references multiplies).
pub const MAX_RESOLVED_BYTES: usize = 1 << 20;

type Key = (String, Selector);

fn key(reference: &Reference) -> Key {
    (reference.name.clone(), reference.selector.clone())
}

/// `body` (of the prompt `root_name`, id `root_id`) with every reference replaced by its target's
/// resolved text, and the versions each version pulled in.
pub(crate) async fn resolve(
    pool: &PgPool,
    project: &str,
    root_name: &str,
    root_id: &str,
    body: &Value,
) -> Result<(Value, Dependencies)> {
    let targets = fetch_levels(pool, project, body).await?;
    let mut resolver = Resolver { targets: &targets, texts: HashMap::new(), graph: Dependencies::new() };
    let resolved = resolver.body(body, root_id, &mut vec![root_name.to_owned()])?;
    Ok((resolved, resolver.graph))
}

/// Every version the body reaches within the depth limit (one query per level); `None` for a
/// reference nothing matches.
async fn fetch_levels(
    pool: &PgPool,
    project: &str,
    body: &Value,
) -> Result<HashMap<Key, Option<StoredPrompt>>> {
    let mut targets: HashMap<Key, Option<StoredPrompt>> = HashMap::new();
    let mut frontier: BTreeSet<Key> = references::in_body(body).iter().map(key).collect();
    for _ in 0..MAX_REFERENCE_DEPTH {
        frontier.retain(|key| !targets.contains_key(key));
        if frontier.is_empty() {
            break;
        }
        if targets.len() + frontier.len() > MAX_REFERENCED_VERSIONS {
            return Err(Error::bad_request(format!(
                "Prompt references reach more than {MAX_REFERENCED_VERSIONS} prompt versions"
            )));
        }
        let level: Vec<Key> = std::mem::take(&mut frontier).into_iter().collect();
        let found = fetch(pool, project, &level).await?;
        for (key, target) in level.into_iter().zip(found) {
            if let Some(target) = &target {
                frontier.extend(references::in_body(&target.prompt.0).iter().map(self::key));
            }
            targets.insert(key, target);
        }
    }
    Ok(targets)
}

/// The version each key names (the highest version carrying a label), in one query.
async fn fetch(pool: &PgPool, project: &str, keys: &[Key]) -> Result<Vec<Option<StoredPrompt>>> {
    let names: Vec<&str> = keys.iter().map(|(name, _)| name.as_str()).collect();
    let versions: Vec<Option<i32>> =
        keys.iter().map(|(_, s)| if let Selector::Version(v) = s { Some(*v) } else { None }).collect();
    let labels: Vec<Option<&str>> = keys
        .iter()
        .map(|(_, s)| if let Selector::Label(label) = s { Some(label.as_str()) } else { None })
        .collect();
    // One index lookup per key (the lateral subquery), as many keys as the level has, one round trip.
    let sql = format!(
        "SELECT r.i, p.* FROM unnest($2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS r(name, version, label, i) \
         CROSS JOIN LATERAL (SELECT {COLUMNS} FROM prompts WHERE project_id = $1 AND name = r.name \
                             AND (version = r.version OR r.label = ANY(labels)) ORDER BY version DESC LIMIT 1) AS p"
    );
    let rows: Vec<Ordered> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(&names)
        .bind(&versions)
        .bind(&labels)
        .fetch_all(pool)
        .await?;
    let mut found: Vec<Option<StoredPrompt>> = vec![None; keys.len()];
    for row in rows {
        if let Some(slot) = usize::try_from(row.i - 1).ok().and_then(|i| found.get_mut(i)) {
            *slot = Some(row.prompt);
        }
    }
    Ok(found)
}

/// A fetched version and the position of the key that named it.
#[derive(sqlx::FromRow)]
struct Ordered {
    i: i64,
    #[sqlx(flatten)]
    prompt: StoredPrompt,
}

struct Resolver<'t> {
    targets: &'t HashMap<Key, Option<StoredPrompt>>,
    /// Each version's resolved text and the names it reaches, once resolved.
    texts: HashMap<String, (String, BTreeSet<String>)>,
    graph: Dependencies,
}

impl Resolver<'_> {
    /// `body` with its references replaced. `chain` holds the names from the root to this body, so
    /// a prompt that reaches its own name again is refused instead of looping.
    fn body(&mut self, body: &Value, parent_id: &str, chain: &mut Vec<String>) -> Result<Value> {
        let references = references::in_body(body);
        if references.is_empty() {
            return Ok(body.clone());
        }
        if chain.len() > MAX_REFERENCE_DEPTH {
            return Err(Error::bad_request(format!(
                "Prompt references nest deeper than {MAX_REFERENCE_DEPTH} levels: {}",
                chain.join(" -> ")
            )));
        }
        let mut resolved: Vec<(Reference, String)> = Vec::with_capacity(references.len());
        let mut size = text_len(body);
        for reference in references {
            let text = self.reference(&reference, parent_id, chain)?;
            size = size.saturating_add(text.len()).saturating_sub(reference.tag.len());
            if size > MAX_RESOLVED_BYTES {
                return Err(Error::bad_request(format!(
                    "The resolved prompt would exceed {MAX_RESOLVED_BYTES} bytes (through {})",
                    reference.describe()
                )));
            }
            resolved.push((reference, text));
        }
        let mut body = body.clone();
        references::substitute(&mut body, &resolved);
        Ok(body)
    }

    fn reference(
        &mut self,
        reference: &Reference,
        parent_id: &str,
        chain: &mut Vec<String>,
    ) -> Result<String> {
        if chain.contains(&reference.name) {
            return Err(circular(chain, &reference.name));
        }
        let target = self.targets.get(&key(reference)).and_then(Option::as_ref).ok_or_else(|| {
            Error::bad_request(format!("Prompt reference not found: {}", reference.describe()))
        })?;
        if target.kind != "text" {
            return Err(Error::bad_request(format!(
                "Prompt reference {} points at a chat prompt; only text prompts can be referenced",
                reference.describe()
            )));
        }
        let children = self.graph.entry(parent_id.to_owned()).or_default();
        if !children.contains(&target.node()) {
            children.push(target.node());
        }
        // A version resolved before is reused, unless a name on this chain is among those it
        // reaches: then it is walked again, to name the circle.
        if let Some((text, reaches)) = self.texts.get(&target.id)
            && !chain.iter().any(|name| reaches.contains(name))
        {
            return Ok(text.clone());
        }
        chain.push(target.name.clone());
        let text = self.body(&target.prompt.0, &target.id, chain);
        chain.pop();
        let text = text?.as_str().unwrap_or_default().to_owned();
        let reaches = self.reaches(&target.id, &target.name);
        self.texts.insert(target.id.clone(), (text.clone(), reaches));
        Ok(text)
    }

    /// The names a resolved version reaches: its own and those of everything it pulled in.
    fn reaches(&self, id: &str, name: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::from([name.to_owned()]);
        for child in self.graph.get(id).into_iter().flatten() {
            match self.texts.get(&child.id) {
                Some((_, reached)) => names.extend(reached.iter().cloned()),
                None => {
                    names.insert(child.name.clone());
                }
            }
        }
        names
    }
}

fn circular(chain: &[String], name: &str) -> Error {
    Error::bad_request(format!("Circular prompt reference: {} -> {name}", chain.join(" -> ")))
}

/// The length of the texts a body's references sit in.
fn text_len(body: &Value) -> usize {
    match body {
        Value::String(text) => text.len(),
        Value::Array(messages) => {
            messages.iter().filter_map(|m| m.get("content").and_then(Value::as_str)).map(str::len).sum()
        }
        _ => 0,
    }
}
