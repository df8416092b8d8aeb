//! `GET /api/public/metrics/daily` (reference/public-api.md §4.2): per day, the traces and
//! observations counted, usage and cost, broken down by model, from the v3 tables.

use serde::{Deserialize, Serialize};
use storage::clickhouse::ClickHouse;
use storage::clickhouse::NEWEST_BY_ID;
use utoipa::ToSchema;

use crate::page::Paged;
use crate::params::PageRequest;
use crate::render::Num;
use crate::sql::{Sql, all_of, equals, one_of, project, time_bound};
use crate::{Params, Result};

/// One day: what was counted, and usage and cost per model.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Day {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub count_observations: u64,
    pub count_traces: u64,
    pub total_cost: Num,
    #[serde(default)]
    pub usage: Vec<ModelUsage>,
}

/// One model's usage and cost on a day.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    #[serde(skip_serializing)]
    date: String,
    pub model: Option<String>,
    pub input_usage: u64,
    pub output_usage: u64,
    pub total_usage: u64,
    pub count_observations: u64,
    pub count_traces: u64,
    pub total_cost: Num,
}

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Paged<Day>> {
    let page = PageRequest::parse(params)?;
    // Trace properties narrow the traces whose observations count.
    let mut trace_conditions = vec![project(project_id)];
    if let Some(name) = params.get("traceName") {
        trace_conditions.push(equals("name", name));
    }
    if let Some(user) = params.get("userId") {
        trace_conditions.push(equals("user_id", user));
    }
    let tags = params.list("tags");
    if !tags.is_empty() {
        let mut sql = Sql::new("hasAll(tags, ");
        sql.bind(tags).push(")");
        trace_conditions.push(sql);
    }
    let mut conditions = vec![project(project_id)];
    if trace_conditions.len() > 1 {
        let mut sql = Sql::new("trace_id IN (SELECT id FROM traces WHERE ");
        sql.append(&all_of(&trace_conditions)).push(")");
        conditions.push(sql);
    }
    let environments = params.list("environment");
    if !environments.is_empty() {
        conditions.push(one_of("environment", environments));
    }
    for (param, op) in [("fromTimestamp", ">="), ("toTimestamp", "<")] {
        if let Some(at) = params.datetime(param)? {
            conditions.push(time_bound("start_time", op, at));
        }
    }
    let mut latest = Sql::new(
        "(SELECT id, trace_id, start_time, provided_model_name, usage_details, total_cost, is_deleted \
         FROM observations WHERE ",
    );
    latest.append(&all_of(&conditions)).push(NEWEST_BY_ID).push(")");
    let measures = "count() AS countObservations, uniqExact(trace_id) AS countTraces, \
        toFloat64(sum(ifNull(total_cost, 0))) AS totalCost";
    let mut days = Sql::new(&format!("SELECT toString(toDate(start_time)) AS date, {measures} FROM "));
    days.append(&latest).push(" WHERE is_deleted = 0 GROUP BY date ORDER BY date DESC");
    let mut models = Sql::new(&format!(
        "SELECT toString(toDate(start_time)) AS date, provided_model_name AS model, \
         sum(usage_details['input']) AS inputUsage, sum(usage_details['output']) AS outputUsage, \
         sum(usage_details['total']) AS totalUsage, {measures} FROM "
    ));
    models.append(&latest).push(" WHERE is_deleted = 0 GROUP BY date, model ORDER BY date DESC, model");
    let days: Vec<Day> = days.fetch(clickhouse).await?;
    let models: Vec<ModelUsage> = models.fetch(clickhouse).await?;
    let total = days.len() as u64;
    let data = days
        .into_iter()
        .skip(page.offset() as usize)
        .take(page.limit as usize)
        .map(|mut day| {
            day.usage = models.iter().filter(|m| m.date == day.date).cloned().collect();
            day
        })
        .collect();
    Ok(page.page(data, total))
}
