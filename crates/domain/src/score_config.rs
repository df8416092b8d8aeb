//! Score configs as rules: the schema of a kind of score (its data type, the range of a NUMERIC
//! score, the categories of a CATEGORICAL one) and whether a score fits the config it names,
//! applied at ingestion before a score is accepted (every score with a `configId`, in
//! `POST /scores` and in batches).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Numeric,
    Categorical,
    Boolean,
    Text,
}

impl DataType {
    pub const ALL: [Self; 4] = [Self::Numeric, Self::Categorical, Self::Boolean, Self::Text];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Numeric => "NUMERIC",
            Self::Categorical => "CATEGORICAL",
            Self::Boolean => "BOOLEAN",
            Self::Text => "TEXT",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|data_type| data_type.as_str() == raw)
    }
}

/// One category of a CATEGORICAL (or BOOLEAN) config: scores carry the label, analyses the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Category {
    pub label: String,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScoreConfig {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub data_type: DataType,
    pub is_archived: bool,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub categories: Option<Vec<Category>>,
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The rules, in the order they are checked: the config is not archived, the score's `dataType`
/// (when it has one) is the config's, and the value fits the data type — a number within
/// `[minValue, maxValue]` for NUMERIC; a category label (string) or a category value (number) for
/// CATEGORICAL; 0 or 1 for BOOLEAN; a string for TEXT.
///
/// Returns the value to store: the category's label for a CATEGORICAL score given by value (scores
/// of categorical data carry the label), the value itself otherwise.
pub fn check(config: &ScoreConfig, data_type: Option<&str>, value: &Value) -> Result<Value, String> {
    let name = &config.name;
    if config.is_archived {
        return Err(format!(
            "Score config '{name}' is archived and cannot be used for new scores; restore it first"
        ));
    }
    let expected = config.data_type.as_str();
    if let Some(given) = data_type
        && given != expected
    {
        return Err(format!(
            "Data type mismatch based on score config '{name}': expected {expected}, got {given}"
        ));
    }
    let refused = |rule: &str| format!("Score config '{name}' is {expected}: {rule}, got {}", shown(value));
    match (config.data_type, value) {
        (DataType::Numeric, Value::Number(number)) => {
            let number = number.as_f64().unwrap_or_default();
            if let Some(min) = config.min_value.filter(|min| number < *min) {
                return Err(format!("Value {number} is below the minimum {min} of score config '{name}'"));
            }
            if let Some(max) = config.max_value.filter(|max| number > *max) {
                return Err(format!("Value {number} is above the maximum {max} of score config '{name}'"));
            }
            Ok(value.clone())
        }
        (DataType::Numeric, _) => Err(refused("the value must be a number")),
        (DataType::Boolean, Value::Number(number)) if matches!(number.as_f64(), Some(v) if v == 0.0 || v == 1.0) => {
            Ok(value.clone())
        }
        (DataType::Boolean, _) => Err(refused("the value must be 0 or 1")),
        (DataType::Categorical, Value::String(label)) => {
            match categories(config).iter().find(|category| category.label == *label) {
                Some(_) => Ok(value.clone()),
                None => Err(format!(
                    "Value '{label}' is not a category of score config '{name}': expected one of {}",
                    listed(config)
                )),
            }
        }
        (DataType::Categorical, Value::Number(number)) => {
            let number = number.as_f64().unwrap_or_default();
            match categories(config).iter().find(|category| category.value == number) {
                Some(category) => Ok(Value::String(category.label.clone())),
                None => Err(format!(
                    "Value {number} is not a category value of score config '{name}': expected one of {}",
                    listed(config)
                )),
            }
        }
        (DataType::Categorical, _) => Err(refused("the value must be a category label or value")),
        (DataType::Text, Value::String(_)) => Ok(value.clone()),
        (DataType::Text, _) => Err(refused("the value must be a string")),
    }
}

/// Where [`fit`] leaves the numeric value of a CATEGORICAL score's category in the stored body: the
/// worker parses the body web accepted and reads it there, and only for scores with a `configId`
/// (whose bodies [`fit`] always rewrote), so a client cannot set it.
pub const CATEGORY_VALUE_KEY: &str = "configCategoryValue";

/// Checks a score body (`dataType`, `value` as sent) against `config` and rewrites it as it is to
/// be stored: the config's name and data type (a score of a config is that config's score, as
/// upstream names it at ingestion), and the value [`check`] returns. So a `value: 1` sent without
/// `dataType` under a BOOLEAN config is stored as BOOLEAN `True`, not as a NUMERIC 1.
pub fn fit(config: &ScoreConfig, score: &mut Map<String, Value>) -> Result<(), String> {
    let data_type = match score.get("dataType") {
        None | Some(Value::Null) => None,
        Some(Value::String(given)) => Some(given.as_str()),
        Some(other) => return Err(format!("dataType: expected a string, got {}", shown(other))),
    };
    let stored = check(config, data_type, score.get("value").unwrap_or(&Value::Null))?;
    // Whatever the client put under this key is replaced: only the config decides it.
    score.remove(CATEGORY_VALUE_KEY);
    if config.data_type == DataType::Categorical
        && let Value::String(label) = &stored
        && let Some(category) = categories(config).iter().find(|category| category.label == *label)
    {
        score.insert(CATEGORY_VALUE_KEY.to_owned(), Value::from(category.value));
    }
    score.insert("name".to_owned(), Value::String(config.name.clone()));
    score.insert("dataType".to_owned(), Value::String(config.data_type.as_str().to_owned()));
    score.insert("value".to_owned(), stored);
    Ok(())
}

fn categories(config: &ScoreConfig) -> &[Category] {
    config.categories.as_deref().unwrap_or_default()
}

/// `'good' (1), 'bad' (0)`.
fn listed(config: &ScoreConfig) -> String {
    let all: Vec<String> = categories(config)
        .iter()
        .map(|category| format!("'{}' ({})", category.label, category.value))
        .collect();
    all.join(", ")
}

fn shown(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        other => other.to_string(),
    }
}

/// The configs a set of scores names, looked up once for the whole request, so that a batch of
/// scores costs one query however many it holds. Not cached: an archived or edited config takes
/// effect on the next score.
#[derive(Debug, Default)]
pub struct ScoreConfigs {
    by_id: HashMap<String, ScoreConfig>,
}

impl ScoreConfigs {
    pub fn new(configs: impl IntoIterator<Item = ScoreConfig>) -> Self {
        Self { by_id: configs.into_iter().map(|config| (config.id.clone(), config)).collect() }
    }

    /// Checks a score body against the config its `configId` names and rewrites it as it is to be
    /// stored (see [`fit`]); a body without a `configId` is left alone. The error says which
    /// rule the score broke.
    pub fn fit(&self, score: &mut Map<String, Value>) -> Result<(), Misfit> {
        let Some(id) = config_id(score) else { return Ok(()) };
        let config = self.by_id.get(id).ok_or_else(|| {
            Misfit::UnknownConfig(format!("configId `{id}` does not match a score config of this project"))
        })?;
        fit(config, score).map_err(Misfit::BrokenRule)
    }
}

/// Why a score was refused: a config the project does not have (a 404, as upstream answers), or a
/// rule of its config that the score breaks (a 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misfit {
    UnknownConfig(String),
    BrokenRule(String),
}

impl Misfit {
    pub fn message(&self) -> &str {
        match self {
            Misfit::UnknownConfig(message) | Misfit::BrokenRule(message) => message,
        }
    }
}

/// A score body's `configId` when it is a string; other shapes are the score parser's to refuse.
pub fn config_id(score: &Map<String, Value>) -> Option<&str> {
    score.get("configId").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config(data_type: DataType) -> ScoreConfig {
        let categories = match data_type {
            DataType::Categorical => Some(vec![
                Category { label: "good".into(), value: 1.0 },
                Category { label: "bad".into(), value: 0.0 },
            ]),
            DataType::Boolean => Some(vec![
                Category { label: "True".into(), value: 1.0 },
                Category { label: "False".into(), value: 0.0 },
            ]),
            _ => None,
        };
        let (min_value, max_value) =
            if data_type == DataType::Numeric { (Some(0.0), Some(10.0)) } else { (None, None) };
        ScoreConfig {
            id: "cfg".into(),
            project_id: "p".into(),
            name: "quality".into(),
            data_type,
            is_archived: false,
            min_value,
            max_value,
            categories,
            description: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    fn refusal(config: &ScoreConfig, data_type: Option<&str>, value: Value) -> String {
        check(config, data_type, &value).unwrap_err()
    }

    #[test]
    fn numeric_scores_must_be_numbers_within_the_range() {
        let numeric = config(DataType::Numeric);
        for fits in [json!(0), json!(10), json!(4.5)] {
            assert_eq!(check(&numeric, Some("NUMERIC"), &fits), Ok(fits.clone()));
        }
        assert!(refusal(&numeric, None, json!(10.5)).contains("above the maximum 10"));
        assert!(refusal(&numeric, None, json!(-1)).contains("below the minimum 0"));
        assert!(refusal(&numeric, None, json!("7")).contains("the value must be a number, got \"7\""));
        let unbounded = ScoreConfig { min_value: None, max_value: None, ..numeric };
        assert!(check(&unbounded, None, &json!(-1e9)).is_ok(), "no bound means no limit");
    }

    #[test]
    fn categorical_scores_name_a_category_by_label_or_value() {
        let categorical = config(DataType::Categorical);
        assert_eq!(check(&categorical, Some("CATEGORICAL"), &json!("bad")), Ok(json!("bad")));
        assert_eq!(check(&categorical, None, &json!(1)), Ok(json!("good")), "a value is stored as its label");
        let unknown = refusal(&categorical, None, json!("meh"));
        assert!(
            unknown.contains("'meh' is not a category") && unknown.contains("'good' (1), 'bad' (0)"),
            "{unknown}"
        );
        assert!(refusal(&categorical, None, json!(2)).contains("2 is not a category value"));
        assert!(refusal(&categorical, None, json!(true)).contains("category label or value"));
        assert!(refusal(&categorical, None, json!("Good")).contains("not a category"), "labels are exact");
    }

    #[test]
    fn boolean_scores_are_zero_or_one_and_text_scores_strings() {
        let boolean = config(DataType::Boolean);
        assert!(check(&boolean, Some("BOOLEAN"), &json!(1)).is_ok());
        assert!(check(&boolean, None, &json!(0.0)).is_ok());
        assert!(refusal(&boolean, None, json!(2)).contains("the value must be 0 or 1, got 2"));
        assert!(refusal(&boolean, None, json!("True")).contains("0 or 1"));
        let text = config(DataType::Text);
        assert!(check(&text, None, &json!("fine")).is_ok());
        assert!(refusal(&text, None, json!(3)).contains("must be a string"));
    }

    #[test]
    fn archived_configs_and_other_data_types_are_refused_first() {
        let archived = ScoreConfig { is_archived: true, ..config(DataType::Numeric) };
        assert!(refusal(&archived, None, json!(1)).contains("archived"));
        let mismatch = refusal(&config(DataType::Numeric), Some("CATEGORICAL"), json!(1));
        assert_eq!(
            mismatch,
            "Data type mismatch based on score config 'quality': expected NUMERIC, got CATEGORICAL"
        );
        assert!(refusal(&config(DataType::Numeric), None, Value::Null).contains("got nothing"));
    }

    #[test]
    fn a_fitting_score_takes_the_configs_name_and_data_type() {
        let mut score = json!({"name": "q", "value": 1, "configId": "cfg", "traceId": "t"});
        let body = score.as_object_mut().unwrap();
        fit(&config(DataType::Categorical), body).unwrap();
        assert_eq!(
            score,
            json!({"name": "quality", "value": "good", "dataType": "CATEGORICAL", "configId": "cfg", "traceId": "t",
                   "configCategoryValue": 1.0})
        );
        let mut by_label = json!({"value": "bad", "configId": "cfg", "configCategoryValue": 7});
        fit(&config(DataType::Categorical), by_label.as_object_mut().unwrap()).unwrap();
        assert_eq!(by_label[CATEGORY_VALUE_KEY], 0.0, "the config decides the value, not the client");
        let mut numeric = json!({"value": 3, "configId": "cfg", "configCategoryValue": 7});
        fit(&config(DataType::Numeric), numeric.as_object_mut().unwrap()).unwrap();
        assert_eq!(numeric.get(CATEGORY_VALUE_KEY), None, "only categorical scores carry one");

        let mut refused = json!({"name": "q", "value": 11, "configId": "cfg"});
        let error = fit(&config(DataType::Numeric), refused.as_object_mut().unwrap()).unwrap_err();
        assert!(error.contains("above the maximum"), "{error}");
        assert_eq!(refused["name"], "q", "a refused score is left as it was");
        let mut odd = json!({"value": 1, "dataType": 7});
        assert!(
            fit(&config(DataType::Numeric), odd.as_object_mut().unwrap()).unwrap_err().contains("dataType")
        );
    }
}
