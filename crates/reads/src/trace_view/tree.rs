//! Every observation of a trace, for the UI's tree: no input, output or metadata, no cap, and no
//! per-row JSON object. The body is columnar (one array per field), names, types, levels and models
//! are indices into one list of distinct strings, parents are indices into the rows, and times are
//! microseconds from the trace's first start, so 100 000 observations are a few MB and the browser
//! builds the tree from arrays without parsing an object per row.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use storage::clickhouse::{ClickHouse, NEWEST_BY_ID, NEWEST_BY_SPAN_ID};
use utoipa::ToSchema;

use super::{Model, trace_root_id};
use crate::sql::{Sql, all_of, equals, project};
use crate::{ReadError, Result};

/// `parents` of a node without a parent id: a root.
pub const NO_PARENT: i32 = -1;
/// `parents` of a node whose parent id is not in the trace (not yet ingested, or lost): an orphan.
pub const MISSING_PARENT: i32 = -2;
/// `models` of a node without a model.
pub const NO_MODEL: i32 = -1;

/// One trace's observations, column by column; row `i` of every array is the same observation.
/// Rows are in start order (ties by id).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraceTree {
    pub trace_id: String,
    /// `v3` or `v4`: the data model read.
    pub model: &'static str,
    /// The earliest start of the trace, in microseconds since the Unix epoch; `starts` and `ends`
    /// count microseconds from it.
    pub origin_micros: i64,
    pub count: usize,
    /// The distinct names, types, levels and models; `names`, `types`, `levels` and `models` hold
    /// indices into it.
    pub strings: Vec<String>,
    pub ids: Vec<String>,
    /// The row of each node's parent: -1 for a root, -2 for an orphan (its parent id is in
    /// `missingParents`).
    pub parents: Vec<i32>,
    pub missing_parents: Vec<MissingParent>,
    pub names: Vec<u32>,
    pub types: Vec<u32>,
    pub levels: Vec<u32>,
    /// -1 for none.
    pub models: Vec<i32>,
    pub starts: Vec<i64>,
    pub ends: Vec<Option<i64>>,
    /// Total tokens (`usageDetails.total`).
    pub tokens: Vec<Option<u64>>,
    /// Total cost in USD.
    pub costs: Vec<Option<f64>>,
}

/// An orphan: the row and the parent id it names.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MissingParent {
    pub index: u32,
    pub parent_id: String,
}

/// One observation as the queries read it.
#[derive(Debug, Deserialize, Clone, PartialEq)]
pub(crate) struct Node {
    id: String,
    /// Empty for none.
    parent: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    level: String,
    /// Empty for none.
    model: String,
    /// Microseconds since the epoch.
    start: i64,
    end: Option<i64>,
    tokens: Option<u64>,
    cost: Option<f64>,
}

/// The tree of `trace_id`; 404 when the trace has no observation in this model.
pub async fn tree(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_id: &str,
    model: Model,
) -> Result<TraceTree> {
    let nodes = match model {
        Model::V4 => events(clickhouse, project_id, trace_id).await?,
        Model::V3 => v3(clickhouse, project_id, trace_id).await?,
    };
    if nodes.is_empty() {
        return Err(ReadError::not_found(format!("Trace {trace_id} not found within authorized project")));
    }
    Ok(build(trace_id, model, nodes))
}

/// Total cost: the stated total, else the sum of the input and output costs; none without costs.
const COST: &str = "if(empty(cost_details), NULL, \
    toFloat64(if(mapContains(cost_details, 'total'), cost_details['total'], calculated_total_cost)))";

async fn events(clickhouse: &ClickHouse, project_id: &str, trace_id: &str) -> Result<Vec<Node>> {
    let mut sql = Sql::new(&format!(
        "SELECT span_id AS id, parent_span_id AS parent, name, type, level, provided_model_name AS model, \
         toUnixTimestamp64Micro(start_time) AS start, \
         if(isNull(end_time), NULL, toUnixTimestamp64Micro(assumeNotNull(end_time))) AS end, \
         if(mapContains(usage_details, 'total'), usage_details['total'], NULL) AS tokens, {COST} AS cost \
         FROM (SELECT span_id, parent_span_id, name, type, level, provided_model_name, start_time, end_time, \
         usage_details, cost_details, calculated_total_cost, is_deleted FROM events_core WHERE "
    ));
    sql.append(&all_of(&[project(project_id), equals("trace_id", trace_id)]))
        .push(NEWEST_BY_SPAN_ID)
        .push(") WHERE is_deleted = 0 ORDER BY start_time, span_id");
    sql.fetch(clickhouse).await
}

/// The v3 observations, under a root node for the trace row when there is one (as the backfill
/// writes `t-<trace id>`): the observations without a parent are its children.
async fn v3(clickhouse: &ClickHouse, project_id: &str, trace_id: &str) -> Result<Vec<Node>> {
    let scope = all_of(&[project(project_id), equals("trace_id", trace_id)]);
    let mut sql = Sql::new(
        "SELECT id, ifNull(parent_observation_id, '') AS parent, name, type, level, \
         ifNull(provided_model_name, '') AS model, toUnixTimestamp64Micro(start_time) AS start, \
         if(isNull(end_time), NULL, toUnixTimestamp64Micro(assumeNotNull(end_time))) AS end, \
         if(mapContains(usage_details, 'total'), usage_details['total'], NULL) AS tokens, \
         if(isNull(total_cost), NULL, toFloat64(total_cost)) AS cost \
         FROM (SELECT id, parent_observation_id, name, type, level, provided_model_name, start_time, end_time, \
         usage_details, total_cost, is_deleted FROM observations WHERE ",
    );
    sql.append(&scope).push(NEWEST_BY_ID).push(") WHERE is_deleted = 0 ORDER BY start_time, id");
    let mut nodes: Vec<Node> = sql.fetch(clickhouse).await?;

    #[derive(Deserialize)]
    struct TraceRow {
        name: String,
        start: i64,
    }
    let mut trace = Sql::new(
        "SELECT name, toUnixTimestamp64Micro(timestamp) AS start FROM (SELECT name, timestamp, is_deleted \
         FROM traces WHERE ",
    );
    trace
        .append(&all_of(&[project(project_id), equals("id", trace_id)]))
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0");
    let Some(row) = trace.fetch::<TraceRow>(clickhouse).await?.into_iter().next() else {
        return Ok(nodes);
    };
    let root = trace_root_id(trace_id);
    let end = nodes.iter().map(|n| n.end.unwrap_or(n.start)).max();
    for node in nodes.iter_mut().filter(|n| n.parent.is_empty()) {
        node.parent.clone_from(&root);
    }
    let position = nodes.partition_point(|n| n.start < row.start);
    let root = Node {
        id: root,
        parent: String::new(),
        name: row.name,
        kind: "TRACE".to_owned(),
        level: "DEFAULT".to_owned(),
        model: String::new(),
        start: row.start,
        end: end.map(|end| end.max(row.start)),
        tokens: None,
        cost: None,
    };
    nodes.insert(position, root);
    Ok(nodes)
}

/// The columnar body of `nodes` (in start order).
pub(crate) fn build(trace_id: &str, model: Model, nodes: Vec<Node>) -> TraceTree {
    let count = nodes.len();
    let origin = nodes.iter().map(|n| n.start).min().unwrap_or_default();
    let rows: HashMap<&str, i32> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i32::try_from(i).unwrap_or(i32::MAX)))
        .collect();
    let mut strings = Strings::default();
    let mut tree = TraceTree {
        trace_id: trace_id.to_owned(),
        model: model.as_str(),
        origin_micros: origin,
        count,
        strings: Vec::new(),
        ids: Vec::with_capacity(count),
        parents: Vec::with_capacity(count),
        missing_parents: Vec::new(),
        names: Vec::with_capacity(count),
        types: Vec::with_capacity(count),
        levels: Vec::with_capacity(count),
        models: Vec::with_capacity(count),
        starts: Vec::with_capacity(count),
        ends: Vec::with_capacity(count),
        tokens: Vec::with_capacity(count),
        costs: Vec::with_capacity(count),
    };
    for (index, node) in nodes.iter().enumerate() {
        let parent = match node.parent.as_str() {
            "" => NO_PARENT,
            // A node naming itself as its parent would be a cycle; it is shown as an orphan.
            id if id == node.id => MISSING_PARENT,
            id => rows.get(id).copied().unwrap_or(MISSING_PARENT),
        };
        if parent == MISSING_PARENT {
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            tree.missing_parents.push(MissingParent { index, parent_id: node.parent.clone() });
        }
        tree.parents.push(parent);
        tree.names.push(strings.index(&node.name));
        tree.types.push(strings.index(&node.kind));
        tree.levels.push(strings.index(&node.level));
        tree.models.push(if node.model.is_empty() {
            NO_MODEL
        } else {
            i32::try_from(strings.index(&node.model)).unwrap_or(NO_MODEL)
        });
        tree.starts.push(node.start - origin);
        tree.ends.push(node.end.map(|end| end - origin));
        tree.tokens.push(node.tokens);
        tree.costs.push(node.cost.filter(|cost| cost.is_finite()));
    }
    for node in nodes {
        tree.ids.push(node.id);
    }
    tree.strings = strings.list;
    tree
}

/// Distinct strings, each numbered once.
#[derive(Default)]
struct Strings {
    list: Vec<String>,
    numbers: HashMap<String, u32>,
}

impl Strings {
    fn index(&mut self, text: &str) -> u32 {
        if let Some(number) = self.numbers.get(text) {
            return *number;
        }
        let number = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(text.to_owned());
        self.numbers.insert(text.to_owned(), number);
        number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, parent: &str, start: i64) -> Node {
        Node {
            id: id.into(),
            parent: parent.into(),
            name: format!("n-{id}"),
            kind: "SPAN".into(),
            level: "DEFAULT".into(),
            model: String::new(),
            start,
            end: Some(start + 10),
            tokens: None,
            cost: None,
        }
    }

    #[test]
    fn parents_are_rows_and_orphans_name_what_they_miss() {
        let mut generation = node("c", "a", 1_000_020);
        generation.model = "gpt-4o".into();
        generation.kind = "GENERATION".into();
        let nodes = vec![
            node("a", "", 1_000_000),
            node("b", "a", 1_000_010),
            generation,
            node("d", "gone", 1_000_030),
            node("e", "e", 1_000_040),
        ];
        let tree = build("t", Model::V4, nodes);
        assert_eq!(tree.origin_micros, 1_000_000);
        assert_eq!(tree.parents, [NO_PARENT, 0, 0, MISSING_PARENT, MISSING_PARENT]);
        assert_eq!(
            tree.missing_parents,
            [
                MissingParent { index: 3, parent_id: "gone".into() },
                MissingParent { index: 4, parent_id: "e".into() }
            ]
        );
        assert_eq!(tree.starts, [0, 10, 20, 30, 40]);
        assert_eq!(tree.ends[1], Some(20));
        assert_eq!(tree.strings[tree.types[2] as usize], "GENERATION");
        assert_eq!(tree.types[0], tree.types[1], "each distinct string is listed once");
        assert_eq!(tree.models, [NO_MODEL, NO_MODEL, tree.models[2], NO_MODEL, NO_MODEL]);
        assert_eq!(tree.strings[tree.models[2] as usize], "gpt-4o");
        assert_eq!(tree.ids, ["a", "b", "c", "d", "e"]);
        assert_eq!(tree.count, 5);
    }

    #[test]
    fn the_columnar_body_is_small() {
        let nodes: Vec<Node> =
            (0..10_000).map(|i| node(&format!("{i:016x}"), "0000000000000000", i)).collect();
        let body = serde_json::to_vec(&build("t", Model::V4, nodes)).unwrap();
        assert!(body.len() < 10_000 * 80, "{} bytes for 10 000 nodes", body.len());
    }
}
