//! The public shapes of a monitor (request and response bodies, which the OpenAPI document shows)
//! and the bounds every field is checked against before anything is stored.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use domain::config::WriteMode;
use reads::metrics::Version;
use resources::{Error, Result};

pub const MAX_NAME: usize = 200;
pub const MAX_DESCRIPTION: usize = 2000;
pub const MAX_FILTERS: usize = 20;
pub const MAX_CHANNELS: usize = 5;
pub const MAX_MONITORS_PER_PROJECT: i64 = 100;
pub const MIN_WINDOW_SECONDS: i64 = 60;
pub const MAX_WINDOW_SECONDS: i64 = 7 * 24 * 3600;
pub const MIN_INTERVAL_SECONDS: i64 = 10;
pub const MAX_INTERVAL_SECONDS: i64 = 24 * 3600;
pub const MAX_URL: usize = 2048;
pub const MIN_SECRET: usize = 16;
pub const MAX_SECRET: usize = 256;
pub const MAX_TOKEN: usize = 512;
pub const MAX_GITHUB_NAME: usize = 100;
pub const MAX_EVENT_TYPE: usize = 100;

/// Aggregations that give one number (`histogram` gives buckets, which no threshold compares to).
pub const AGGREGATIONS: &[&str] =
    &["sum", "avg", "count", "max", "min", "p50", "p75", "p90", "p95", "p99", "uniq"];

/// Which metrics views a deployment's monitors read: the tables its write mode fills at once. The
/// events in `events_only`; the v3 tables in `legacy` and `dual` (in `dual` the events of most
/// SDKs arrive only after propagation, minutes late, which would delay every alert).
pub fn version_for(mode: WriteMode) -> Version {
    if mode == WriteMode::EventsOnly { Version::V2 } else { Version::V1 }
}

/// `>`, `>=`, `<` or `<=`: the monitor alerts while `value <comparison> threshold` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Comparison {
    #[serde(rename = ">")]
    Above,
    #[serde(rename = ">=")]
    AtLeast,
    #[serde(rename = "<")]
    Below,
    #[serde(rename = "<=")]
    AtMost,
}

impl Comparison {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Above => ">",
            Self::AtLeast => ">=",
            Self::Below => "<",
            Self::AtMost => "<=",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Above, Self::AtLeast, Self::Below, Self::AtMost].into_iter().find(|c| c.as_str() == text)
    }

    /// Whether `value` breaches `threshold`; no value (no data in the window) never does.
    pub fn breached(self, value: Option<f64>, threshold: f64) -> bool {
        let Some(value) = value else { return false };
        match self {
            Self::Above => value > threshold,
            Self::AtLeast => value >= threshold,
            Self::Below => value < threshold,
            Self::AtMost => value <= threshold,
        }
    }
}

/// What a monitor measures: one measure of one metrics view, aggregated over the window, with the
/// view's filters (the Metrics v2 query's shape, one metric and no dimensions).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = MonitorQuery)]
pub struct MonitorQuery {
    /// A metrics view: `observations`, `scores-numeric`, `scores-categorical`, `scores-boolean`
    /// (and `traces` on a deployment whose monitors read the v3 tables).
    pub view: String,
    /// One of the view's measures, e.g. `count`, `latency`, `totalCost`, `value`.
    pub measure: String,
    /// `sum`, `avg`, `count`, `max`, `min`, `p50`, `p75`, `p90`, `p95`, `p99` or `uniq`.
    pub aggregation: String,
    /// Filters in the Metrics v2 shape (`{column, operator, value, type}`), at most 20.
    #[serde(default)]
    #[schema(value_type = Vec<Object>)]
    pub filters: Vec<Value>,
}

impl MonitorQuery {
    /// The metrics query object over `[from, to)`.
    pub fn metrics_query(&self, from: &str, to: &str) -> Value {
        json!({
            "view": self.view,
            "metrics": [{"measure": self.measure, "aggregation": self.aggregation}],
            "filters": self.filters,
            "fromTimestamp": from,
            "toTimestamp": to,
        })
    }

    /// The key of the one value in the metrics row.
    pub fn value_key(&self) -> String {
        format!("{}_{}", self.aggregation, self.measure)
    }

    /// Checked by the metrics compiler itself (the same 400s the metrics API gives), plus the
    /// monitors' own rules: a scalar aggregation, and at most [`MAX_FILTERS`] filters.
    pub fn check(&self, version: Version) -> Result<()> {
        if !AGGREGATIONS.contains(&self.aggregation.as_str()) {
            return Err(Error::bad_request(format!(
                "query.aggregation `{}` must be one of {} (a monitor compares one number)",
                self.aggregation,
                AGGREGATIONS.join(", ")
            )));
        }
        if self.filters.len() > MAX_FILTERS {
            return Err(Error::bad_request(format!("query.filters takes at most {MAX_FILTERS} filters")));
        }
        let probe = self.metrics_query("2024-01-01T00:00:00Z", "2024-01-01T00:05:00Z");
        reads::metrics::validate(probe, version)
            .map_err(|e| Error::bad_request(format!("Invalid monitor query: {e}")))
    }
}

/// A channel as a request gives it, secret included.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[schema(as = MonitorChannelInput)]
pub enum ChannelInput {
    /// A JSON POST signed with HMAC-SHA256 (`X-Loupe-Signature`, docs/monitors.md).
    Webhook {
        url: String,
        /// The signing secret, 16–256 characters; stored encrypted, never returned.
        secret: String,
    },
    /// A Slack incoming webhook; its URL is the secret (stored encrypted, shown as `...abcd`).
    Slack { url: String },
    /// A GitHub `repository_dispatch` event (a CI trigger).
    Github {
        owner: String,
        repo: String,
        /// A token allowed to create dispatch events on the repository; stored encrypted.
        token: String,
        #[serde(rename = "eventType")]
        event_type: String,
    },
}

/// A channel as the API shows it: its public settings, and its secret's display form.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MonitorChannel)]
pub struct ChannelBody {
    /// `webhook`, `slack` or `github`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The webhook's URL (a Slack URL is a secret: see `displaySecret`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_type: Option<String>,
    /// The secret's last four characters (`...abcd`): webhook secret, Slack URL or GitHub token.
    pub display_secret: String,
}

/// `POST /api/public/monitors`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = CreateMonitorRequest)]
pub struct NewMonitor {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub query: MonitorQuery,
    /// The window each evaluation aggregates: the last `windowSeconds` (60 to 604800).
    pub window_seconds: i64,
    pub comparison: Comparison,
    pub threshold: f64,
    /// Seconds between evaluations (10 to 86400).
    pub interval_seconds: i64,
    #[serde(default)]
    pub channels: Vec<ChannelInput>,
    #[serde(default)]
    pub muted: bool,
}

/// `PATCH /api/public/monitors/{monitorId}`: the fields given replace the stored ones; `channels`
/// replaces the whole list (each with its secret again). The next evaluation is due at once.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = UpdateMonitorRequest)]
pub struct MonitorPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub query: Option<MonitorQuery>,
    pub window_seconds: Option<i64>,
    pub comparison: Option<Comparison>,
    pub threshold: Option<f64>,
    pub interval_seconds: Option<i64>,
    pub channels: Option<Vec<ChannelInput>>,
}

/// `OK` or `ALERTING`.
pub const OK: &str = "OK";
pub const ALERTING: &str = "ALERTING";

/// A monitor.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Monitor)]
pub struct MonitorBody {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub description: String,
    pub query: MonitorQuery,
    pub window_seconds: i64,
    pub comparison: Comparison,
    pub threshold: f64,
    pub interval_seconds: i64,
    pub channels: Vec<ChannelBody>,
    /// `OK` or `ALERTING`.
    pub state: String,
    /// Evaluations go on while muted; notifications are not made.
    pub muted: bool,
    pub last_value: Option<f64>,
    pub last_evaluated_at: Option<String>,
    pub next_evaluation_at: String,
    pub created_at: String,
    pub updated_at: String,
}

/// One evaluation of a monitor.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MonitorEvaluation)]
pub struct EvaluationBody {
    pub id: i64,
    pub evaluated_at: String,
    pub window_from: String,
    pub window_to: String,
    /// The aggregated value; null when the window had no data (or the query failed).
    pub value: Option<f64>,
    /// The state after this evaluation.
    pub state: String,
    /// Whether this evaluation changed the state (and so notified, unless muted).
    pub transition: bool,
    pub muted: bool,
    /// Why the query could not be run; the state is then left as it was.
    pub error: Option<String>,
}

/// One attempt to deliver a notification.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MonitorDelivery)]
pub struct DeliveryBody {
    pub attempt: i32,
    pub attempted_at: String,
    /// The receiver's HTTP status; null when no answer came (connection error, timeout).
    pub status_code: Option<i32>,
    pub error: Option<String>,
    pub duration_ms: i32,
}

/// A notification: one per transition and channel, with every delivery attempt.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MonitorNotification)]
pub struct NotificationBody {
    pub id: String,
    pub evaluation_id: i64,
    pub channel_index: i32,
    pub channel_type: String,
    /// The state the monitor moved to: `ALERTING` or `OK`.
    pub transition: String,
    /// `pending` (being delivered or waiting for a retry), `delivered` or `failed`.
    pub status: String,
    pub attempts: i32,
    pub created_at: String,
    pub deliveries: Vec<DeliveryBody>,
}

pub fn check_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(Error::bad_request(format!("name must be 1 to {MAX_NAME} characters")));
    }
    Ok(name.to_owned())
}

pub fn check_description(description: &str) -> Result<()> {
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(Error::bad_request(format!("description must be at most {MAX_DESCRIPTION} characters")));
    }
    Ok(())
}

pub fn check_window(seconds: i64) -> Result<()> {
    if !(MIN_WINDOW_SECONDS..=MAX_WINDOW_SECONDS).contains(&seconds) {
        return Err(Error::bad_request(format!(
            "windowSeconds must be between {MIN_WINDOW_SECONDS} and {MAX_WINDOW_SECONDS}"
        )));
    }
    Ok(())
}

pub fn check_interval(seconds: i64) -> Result<()> {
    if !(MIN_INTERVAL_SECONDS..=MAX_INTERVAL_SECONDS).contains(&seconds) {
        return Err(Error::bad_request(format!(
            "intervalSeconds must be between {MIN_INTERVAL_SECONDS} and {MAX_INTERVAL_SECONDS}"
        )));
    }
    Ok(())
}

pub fn check_threshold(threshold: f64) -> Result<()> {
    if !threshold.is_finite() {
        return Err(Error::bad_request("threshold must be a finite number"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_and_no_data() {
        assert!(Comparison::Above.breached(Some(2.0), 1.0));
        assert!(!Comparison::Above.breached(Some(1.0), 1.0));
        assert!(Comparison::AtLeast.breached(Some(1.0), 1.0));
        assert!(Comparison::Below.breached(Some(0.0), 1.0));
        assert!(Comparison::AtMost.breached(Some(1.0), 1.0));
        assert!(!Comparison::Below.breached(None, 1.0), "no data never breaches");
        assert_eq!(Comparison::parse(">="), Some(Comparison::AtLeast));
        let parsed: Comparison = serde_json::from_value(json!("<")).unwrap();
        assert_eq!(parsed, Comparison::Below);
        assert!(serde_json::from_value::<Comparison>(json!("==")).is_err());
    }

    fn query(measure: &str, aggregation: &str) -> MonitorQuery {
        MonitorQuery {
            view: "observations".into(),
            measure: measure.into(),
            aggregation: aggregation.into(),
            filters: vec![],
        }
    }

    #[test]
    fn queries_are_checked_by_the_metrics_compiler() {
        assert!(query("count", "count").check(Version::V2).is_ok());
        let error = query("vibes", "sum").check(Version::V2).unwrap_err().to_string();
        assert!(error.contains("Invalid metric vibes"), "{error}");
        let error = query("latency", "histogram").check(Version::V2).unwrap_err().to_string();
        assert!(error.contains("one number"), "{error}");
        let mut filtered = query("count", "count");
        filtered.filters =
            vec![json!({"column": "level", "operator": "=", "value": "ERROR", "type": "string"})];
        assert!(filtered.check(Version::V2).is_ok());
        filtered.filters = vec![json!({"column": "nope", "operator": "=", "value": "x", "type": "string"})];
        assert!(filtered.check(Version::V2).is_err());
        assert_eq!(query("latency", "p95").value_key(), "p95_latency");
    }

    #[test]
    fn bounds() {
        assert!(check_name(" ").is_err());
        assert!(check_name(&"x".repeat(201)).is_err());
        assert_eq!(check_name(" errors ").unwrap(), "errors");
        assert!(check_window(59).is_err() && check_window(60).is_ok());
        assert!(check_interval(9).is_err() && check_interval(86_400).is_ok());
        assert!(check_threshold(f64::NAN).is_err() && check_threshold(-1.5).is_ok());
        assert_eq!(version_for(WriteMode::EventsOnly), Version::V2);
        assert_eq!(version_for(WriteMode::Dual), Version::V1);
    }
}
