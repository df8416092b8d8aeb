//! What a flush merges its trace and observation updates onto: the newest stored version of each.

use clickhouse::Row;
use serde::Deserialize;

use domain::v3::{ObservationRecord, TraceRecord};

use super::{ObservationRow, TraceRow};
use crate::Result;
use crate::clickhouse::{ClickHouse, StringList, Work, newest_versions};

/// A flush's read of what it merges onto: the flush's inserts wait for it, so it asks for the
/// server's query priority (1 = highest; queries without it are not affected on a server): when
/// the server is busy, it gets the CPU ahead of the reads beside it.
fn merge_read(query: clickhouse::query::Query) -> clickhouse::query::Query {
    query.with_setting("priority", "1")
}

/// What a flush merges its updates onto: the newest stored version of each trace and observation it
/// updates, live ones only.
#[derive(Debug, Default)]
pub struct Stored {
    pub traces: Vec<TraceRecord>,
    pub observations: Vec<ObservationRecord>,
}

/// Both tables' rows travel in one row, each as an array of tuples in its row's field order.
#[derive(Row, Deserialize)]
struct StoredRows {
    traces: Vec<TraceRow>,
    observations: Vec<ObservationRow>,
}

/// The newest stored version of each trace and observation of one project, for merging updates
/// onto. A flush waits for this read before its inserts, so it is cut to what is stored: first the
/// ids of both tables that have any row (one narrow statement), then the whole rows of those ids
/// only (a second statement, skipped when nothing is stored). Most updates are of new ids, and
/// observations are seldom updated after their span ends, so the wide read (every column) is
/// usually skipped or narrowed to the traces. On the dev engine, tables of a few dozen rows, the
/// narrow read took 8 ms where the wide one took 24 (29 when a trace was stored); a `legacy` span's
/// v1 trace became readable 19–27 ms sooner (`loupe-bench freshness`, README "Speed").
pub async fn existing(
    ch: &ClickHouse,
    project_id: &str,
    trace_ids: &[String],
    observation_ids: &[String],
) -> Result<Stored> {
    if trace_ids.is_empty() && observation_ids.is_empty() {
        return Ok(Stored::default());
    }
    let (traces, observations) = stored_ids(ch, project_id, trace_ids, observation_ids).await?;
    if traces.is_empty() && observations.is_empty() {
        return Ok(Stored::default());
    }
    newest_rows(ch, project_id, &traces, &observations).await
}

/// Which of the ids have a row in `traces` and in `observations` (a deletion's too: the newest
/// version decides, in `newest_rows`).
async fn stored_ids(
    ch: &ClickHouse,
    project_id: &str,
    trace_ids: &[String],
    observation_ids: &[String],
) -> Result<(Vec<String>, Vec<String>)> {
    #[derive(Row, Deserialize)]
    struct StoredId {
        observation: bool,
        id: String,
    }
    let (traces, observations) =
        (StringList::new("traces", trace_ids), StringList::new("observations", observation_ids));
    let sql = format!(
        "SELECT DISTINCT false AS observation, id FROM traces WHERE project_id = {{project:String}} AND id IN {} \
         UNION ALL \
         SELECT DISTINCT true AS observation, id FROM observations WHERE project_id = {{project:String}} AND id IN {}",
        traces.sql(),
        observations.sql(),
    );
    let query = observations.bind(traces.bind(ch.client().query(&sql).param("project", project_id)));
    let rows: Vec<StoredId> =
        ch.bounded(Work::Read, "stored trace and observation ids", merge_read(query).fetch_all()).await?;
    let (observations, traces): (Vec<StoredId>, Vec<StoredId>) =
        rows.into_iter().partition(|r| r.observation);
    Ok((traces.into_iter().map(|r| r.id).collect(), observations.into_iter().map(|r| r.id).collect()))
}

/// The newest version of each of these traces and observations, live ones only, in one statement.
async fn newest_rows(
    ch: &ClickHouse,
    project_id: &str,
    trace_ids: &[String],
    observation_ids: &[String],
) -> Result<Stored> {
    let (traces, observations) =
        (StringList::new("traces", trace_ids), StringList::new("observations", observation_ids));
    // A table none of whose ids is stored is left out: with an empty list its subquery still cost
    // the dev engine 15–18 ms of a statement's 31–38 (a trace found, no observation), to find nothing.
    let newest = |table: &str, columns: &[&str], list: &StringList<'_>, ids: &[String]| {
        if ids.is_empty() {
            return "[]".to_owned();
        }
        let columns = columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
        let filter = format!("project_id = {{project:String}} AND id IN {}", list.sql());
        format!(
            "(SELECT groupArray(tuple({columns})) FROM ({}))",
            newest_versions(&columns, table, &filter, "id")
        )
    };
    let sql = format!(
        "SELECT {} AS traces, {} AS observations",
        newest("traces", TraceRow::COLUMN_NAMES, &traces, trace_ids),
        newest("observations", ObservationRow::COLUMN_NAMES, &observations, observation_ids),
    );
    // Each table's rows come as an array of tuples, which RowBinary encodes exactly as the rows
    // themselves when the tuple lists the row's columns in its field order (`COLUMN_NAMES`, as
    // above). The crate's schema check compares columns with top-level fields, so this statement
    // goes without it.
    let client = ch.client().clone().with_validation(false);
    let query = observations.bind(traces.bind(client.query(&sql).param("project", project_id)));
    let row: StoredRows =
        ch.bounded(Work::Read, "traces and observations", merge_read(query).fetch_one()).await?;
    Ok(Stored {
        traces: row.traces.into_iter().filter(|r| r.is_deleted == 0).map(TraceRecord::from).collect(),
        observations: row
            .observations
            .into_iter()
            .filter(|r| r.is_deleted == 0)
            .map(ObservationRecord::from)
            .collect(),
    })
}
