//! Dataset run links from experiment spans (see `resources::datasets::link_experiment_items`): an
//! item's root span names the dataset item it ran and the run it belongs to.

use chrono::DateTime;
use serde_json::{Map, Value};

use domain::event::{Event, Experiment};
use domain::experiment::ExperimentLink;
use storage::dead_letters::without_nul;

/// The link an event stands for: only the root span of a dataset item's run carries one (the
/// item's other spans repeat the attributes, and local-data experiments name no dataset item).
pub fn link_of(event: &Event) -> Option<ExperimentLink> {
    let span = SpanRef {
        project_id: &event.project_id,
        trace_id: &event.trace_id,
        span_id: &event.span_id,
        start_time: event.start_time,
    };
    link(span, event.experiment.as_ref()?)
}

/// What a link takes from the span itself.
struct SpanRef<'a> {
    project_id: &'a str,
    trace_id: &'a str,
    span_id: &'a str,
    start_time: i64,
}

fn link(event: SpanRef<'_>, experiment: &Experiment) -> Option<ExperimentLink> {
    let is_item_root = !event.span_id.is_empty() && experiment.item_root_span_id == event.span_id;
    if !is_item_root
        || experiment.dataset_id.is_empty()
        || experiment.item_id.is_empty()
        || experiment.name.is_empty()
    {
        return None;
    }
    // Links are kept in PostgreSQL, whose text and jsonb cannot hold NUL: a client's NUL would
    // make the store refuse the whole payload, so it becomes U+FFFD here, as in the dead letters.
    Some(ExperimentLink {
        project_id: event.project_id.to_owned(),
        run_name: without_nul(&experiment.name),
        description: Some(without_nul(&experiment.description)).filter(|d| !d.is_empty()),
        metadata: run_metadata(experiment),
        dataset_item_id: without_nul(&experiment.item_id),
        item_version: experiment.item_version.and_then(DateTime::from_timestamp_micros),
        trace_id: event.trace_id.to_owned(),
        observation_id: event.span_id.to_owned(),
        created_at: DateTime::from_timestamp_micros(event.start_time).unwrap_or_default(),
    })
}

/// The flattened experiment metadata back as an object: JSON leaves parsed, text kept as text.
fn run_metadata(experiment: &Experiment) -> Map<String, Value> {
    experiment
        .metadata
        .iter()
        .map(|(key, raw)| {
            let mut value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()));
            replace_nul(&mut value);
            (without_nul(key), value)
        })
        .collect()
}

/// NUL replaced in every string and key of a value, iteratively (the value came from the client).
fn replace_nul(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) if text.contains('\0') => *text = without_nul(text),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                if map.keys().any(|k| k.contains('\0')) {
                    *map = std::mem::take(map).into_iter().map(|(k, v)| (without_nul(&k), v)).collect();
                }
                stack.extend(map.values_mut());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPAN: SpanRef<'static> =
        SpanRef { project_id: "p", trace_id: "t", span_id: "s", start_time: 1_700_000_000_000_000 };

    fn experiment() -> Experiment {
        Experiment {
            id: "e".into(),
            name: "nightly".into(),
            description: "desc".into(),
            metadata: [("model".to_owned(), "\"gpt\"".to_owned()), ("k".to_owned(), "3".to_owned())].into(),
            dataset_id: "d".into(),
            item_id: "i".into(),
            item_root_span_id: "s".into(),
            ..Experiment::default()
        }
    }

    #[test]
    fn the_item_root_span_links_its_trace_and_itself() {
        let link = link(SPAN, &experiment()).expect("a link");
        assert_eq!(link.run_name, "nightly");
        assert_eq!(link.dataset_item_id, "i");
        assert_eq!((link.trace_id.as_str(), link.observation_id.as_str()), ("t", "s"));
        assert_eq!(link.description.as_deref(), Some("desc"));
        assert_eq!(link.metadata["model"], "gpt");
        assert_eq!(link.metadata["k"], 3);
        assert_eq!(link.created_at.timestamp(), 1_700_000_000);
    }

    /// PostgreSQL refuses NUL in text and jsonb; a link never carries one.
    #[test]
    fn nul_characters_never_reach_postgres() {
        let nul = Experiment {
            name: "run\0name".into(),
            description: "d\0".into(),
            metadata: [("k\0".to_owned(), r#"{"a": ["x\u0000"]}"#.to_owned())].into(),
            item_id: "i\0".into(),
            ..experiment()
        };
        let link = link(SPAN, &nul).expect("a link");
        let texts = [&link.run_name, link.description.as_ref().unwrap(), &link.dataset_item_id];
        assert!(texts.iter().all(|t| !t.contains('\0')), "{texts:?}");
        let metadata = serde_json::to_string(&link.metadata).unwrap();
        assert!(!metadata.contains("\\u0000"), "{metadata}");
        assert_eq!(link.run_name, "run\u{FFFD}name");
        assert_eq!(link.metadata["k\u{FFFD}"]["a"][0], "x\u{FFFD}");
    }

    #[test]
    fn other_spans_and_local_data_link_nothing() {
        assert_eq!(link(SpanRef { span_id: "child", ..SPAN }, &experiment()), None);
        let local = Experiment { dataset_id: String::new(), ..experiment() };
        assert_eq!(link(SPAN, &local), None);
        let unnamed = Experiment { name: String::new(), ..experiment() };
        assert_eq!(link(SPAN, &unnamed), None);
    }
}
