//! Model prices and the cost of a generation (issue 7): a generation that reports usage but no cost
//! is priced with the model definition its model name matches. Provided cost always wins.
//!
//! Matching follows the public API's documented order: a project's own definitions before the
//! built-in ones, then the newest `start_date` that is not after the generation's start.

use std::collections::{BTreeMap, HashMap};

use regex::Regex;

use crate::event::{Decimal12, Event, Micros};
use crate::v3::ObservationRecord;

/// One model definition with its prices per usage type (`input`, `output`, `input_cached_tokens`, …),
/// each the USD price of one unit.
#[derive(Debug, Clone)]
pub struct ModelPrice {
    pub id: String,
    /// `None` for the built-in definitions every project shares.
    pub project_id: Option<String>,
    pub model_name: String,
    pub pattern: Regex,
    pub start_date: Option<Micros>,
    pub prices: BTreeMap<String, Decimal12>,
}

/// Every model definition the worker knows, in no particular order.
#[derive(Debug, Clone, Default)]
pub struct PriceBook {
    models: Vec<ModelPrice>,
}

/// A match pattern as stored; the API refuses what does not compile, so a failure here means a row
/// written by something else.
pub fn compile_pattern(pattern: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| format!("`{pattern}` is not a valid regular expression: {e}"))
}

impl PriceBook {
    pub fn new(models: Vec<ModelPrice>) -> Self {
        Self { models }
    }

    pub fn len(&self) -> usize {
        self.models.len()
    }

    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
}

/// The cost of `usage` at `prices`, as upstream's `calculateUsageCosts` computes it: one entry per
/// usage key the model has a price for (any key, custom ones too), and `total`: the priced `total`
/// when the model prices it, the sum of the other entries otherwise.
pub fn cost(
    usage: &BTreeMap<String, u64>,
    prices: &BTreeMap<String, Decimal12>,
) -> BTreeMap<String, Decimal12> {
    let priced = |units: u64, price: Decimal12| {
        i64::try_from(units).ok().and_then(|units| units.checked_mul(price.0)).map(Decimal12)
    };
    // Inserted one by one rather than collected: collecting a handful of entries into a BTreeMap
    // goes through a sorted vector first, which cost more than the pricing itself (it runs for
    // every generation).
    let mut costs = BTreeMap::new();
    let mut total = Some(0i64);
    for (kind, units) in usage {
        if let Some(cost) = prices.get(kind).and_then(|price| priced(*units, *price)) {
            total = total.and_then(|sum| sum.checked_add(cost.0));
            costs.insert(kind.clone(), cost);
        }
    }
    if !costs.is_empty() && !costs.contains_key("total") {
        costs.extend(total.map(|t| ("total".to_owned(), Decimal12(t))));
    }
    costs
}

/// Prices many rows with one book, remembering which definitions match each (project, model
/// name) so a batch of thousands of generations runs the patterns once per distinct model.
pub struct Pricer<'a> {
    book: &'a PriceBook,
    /// By project, then model name: looked up with borrowed keys, so a row whose model was seen
    /// before costs no allocation.
    matches: HashMap<String, HashMap<String, Vec<&'a ModelPrice>>>,
}

impl<'a> Pricer<'a> {
    pub fn new(book: &'a PriceBook) -> Self {
        Self { book, matches: HashMap::new() }
    }

    fn find(&mut self, project: &str, model_name: &str, at: Micros) -> Option<&'a ModelPrice> {
        if model_name.is_empty() || self.book.is_empty() {
            return None;
        }
        if let Some(candidates) = self.matches.get(project).and_then(|by_name| by_name.get(model_name)) {
            return newest(candidates, at);
        }
        let matching: Vec<&'a ModelPrice> = self
            .book
            .models
            .iter()
            .filter(|m| m.project_id.as_deref().is_none_or(|owner| owner == project))
            .filter(|m| m.pattern.is_match(model_name))
            .collect();
        let chosen = newest(&matching, at);
        self.matches.entry(project.to_owned()).or_default().insert(model_name.to_owned(), matching);
        chosen
    }

    /// Sets the matched model and, unless the SDK sent a cost, the computed cost of a v4 event.
    pub fn price_event(&mut self, event: &mut Event) {
        let Some(model) = self.find(&event.project_id, &event.provided_model_name, event.start_time) else {
            return;
        };
        event.model_id.clone_from(&model.id);
        if event.provided_cost_details.is_empty() && !event.usage_details.is_empty() {
            event.cost_details = cost(&event.usage_details, &model.prices);
        }
    }

    /// The same for a v3 observation (after its updates are merged, so the usage is complete).
    pub fn price_observation(&mut self, record: &mut ObservationRecord) {
        let model_name = record.provided_model_name.as_deref().unwrap_or_default();
        let Some(model) = self.find(&record.project_id, model_name, record.start_time.saturating_mul(1000))
        else {
            return;
        };
        record.internal_model_id = Some(model.id.clone());
        if record.provided_cost_details.is_empty() && !record.usage_details.is_empty() {
            record.cost_details = cost(&record.usage_details, &model.prices);
            record.total_cost = record.cost_details.get("total").copied();
        }
    }
}

/// The definition that applies at `at`: a project's own before the built-in ones, then the newest
/// start date not after it.
fn newest<'a>(candidates: &[&'a ModelPrice], at: Micros) -> Option<&'a ModelPrice> {
    candidates
        .iter()
        .copied()
        .filter(|m| m.start_date.is_none_or(|start| start <= at))
        .max_by_key(|m| (m.project_id.is_some(), m.start_date.unwrap_or(Micros::MIN)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(
        id: &str,
        project: Option<&str>,
        pattern: &str,
        start: Option<Micros>,
        input: f64,
    ) -> ModelPrice {
        ModelPrice {
            id: id.into(),
            project_id: project.map(Into::into),
            model_name: id.into(),
            pattern: compile_pattern(pattern).unwrap(),
            start_date: start,
            prices: BTreeMap::from([("input".to_owned(), Decimal12::from_f64(input).unwrap())]),
        }
    }

    #[test]
    fn own_definitions_win_then_the_newest_that_has_started() {
        let book = PriceBook::new(vec![
            model("builtin-old", None, "(?i)^gpt-4o$", None, 1.0),
            model("builtin-new", None, "(?i)^gpt-4o$", Some(1_000), 2.0),
            model("own", Some("p1"), "(?i)^gpt-4o$", None, 3.0),
        ]);
        let mut pricer = Pricer::new(&book);
        assert_eq!(pricer.find("p1", "GPT-4o", 5_000).unwrap().id, "own");
        assert_eq!(pricer.find("p2", "gpt-4o", 5_000).unwrap().id, "builtin-new");
        assert_eq!(pricer.find("p2", "gpt-4o", 500).unwrap().id, "builtin-old", "not started yet");
        assert!(pricer.find("p2", "gpt-4o-mini", 5_000).is_none());
        assert!(pricer.find("p2", "", 5_000).is_none());
    }

    #[test]
    fn cost_prices_each_usage_type_and_sums_a_total() {
        let prices = BTreeMap::from([
            ("input".to_owned(), Decimal12::from_f64(0.000_002_5).unwrap()),
            ("output".to_owned(), Decimal12::from_f64(0.000_01).unwrap()),
        ]);
        let usage = BTreeMap::from([
            ("input".to_owned(), 1000),
            ("output".to_owned(), 200),
            ("total".to_owned(), 1200),
        ]);
        let costs = cost(&usage, &prices);
        assert_eq!(costs["input"], Decimal12::from_f64(0.0025).unwrap());
        assert_eq!(costs["output"], Decimal12::from_f64(0.002).unwrap());
        assert_eq!(costs["total"], Decimal12::from_f64(0.0045).unwrap());
        assert!(cost(&BTreeMap::from([("images".to_owned(), 3)]), &prices).is_empty(), "nothing priced");
        let by_total = BTreeMap::from([("total".to_owned(), Decimal12::from_f64(0.001).unwrap())]);
        assert_eq!(
            cost(&usage, &by_total),
            BTreeMap::from([("total".to_owned(), Decimal12::from_f64(1.2).unwrap())])
        );
    }

    /// Keys are priced as sent: a model priced by `prompt_tokens` prices that key, and a key the
    /// model has no price for costs nothing (issue 17).
    #[test]
    fn any_usage_key_is_priced_by_the_price_of_that_key() {
        let prices = BTreeMap::from([
            ("prompt_tokens".to_owned(), Decimal12::from_f64(0.5).unwrap()),
            ("input".to_owned(), Decimal12::from_f64(100.0).unwrap()),
        ]);
        let usage = crate::usage::usage_units(&BTreeMap::from([
            ("prompt_tokens".to_owned(), 10),
            ("completion_tokens".to_owned(), 4),
        ]));
        assert_eq!(usage["total"], 14, "a total is added: the sum of every count sent");
        assert_eq!(
            cost(&usage, &prices),
            BTreeMap::from([
                ("prompt_tokens".to_owned(), Decimal12::from_f64(5.0).unwrap()),
                ("total".to_owned(), Decimal12::from_f64(5.0).unwrap()),
            ])
        );
        // A model that prices `total` too: that is the total cost, not the sum (as upstream).
        let with_total = BTreeMap::from([
            ("prompt_tokens".to_owned(), Decimal12::from_f64(0.5).unwrap()),
            ("total".to_owned(), Decimal12::from_f64(1.0).unwrap()),
        ]);
        assert_eq!(cost(&usage, &with_total)["total"], Decimal12::from_f64(14.0).unwrap());
    }

    #[test]
    fn observations_get_the_model_and_a_cost_unless_one_was_provided() {
        let book = PriceBook::new(vec![model("m", None, "^m$", None, 0.5)]);
        let mut pricer = Pricer::new(&book);
        let mut usage_only = ObservationRecord {
            project_id: "p".into(),
            provided_model_name: Some("m".into()),
            usage_details: BTreeMap::from([("input".to_owned(), 4)]),
            ..ObservationRecord::default()
        };
        pricer.price_observation(&mut usage_only);
        assert_eq!(usage_only.internal_model_id.as_deref(), Some("m"));
        assert_eq!(usage_only.total_cost, Decimal12::from_f64(2.0));
        let provided = BTreeMap::from([("input".to_owned(), Decimal12::from_f64(9.0).unwrap())]);
        let mut with_cost = ObservationRecord {
            provided_cost_details: provided.clone(),
            cost_details: provided.clone(),
            total_cost: Decimal12::from_f64(9.0),
            ..usage_only.clone()
        };
        pricer.price_observation(&mut with_cost);
        assert_eq!((with_cost.cost_details, with_cost.total_cost), (provided, Decimal12::from_f64(9.0)));
    }
}
