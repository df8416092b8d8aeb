//! `inputPrice`, `outputPrice` and `totalPrice` of an observation: the prices of the model
//! definition the worker matched (its id is stored with the row; the prices live in PostgreSQL).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::render::rows_mut;

const MODEL_ID_KEYS: [&str; 2] = ["internalModelId", "modelId"];
const PRICE_KEYS: [(&str, &str); 3] =
    [("inputPrice", "input"), ("outputPrice", "output"), ("totalPrice", "total")];

fn model_id(row: &serde_json::Map<String, Value>) -> Option<&str> {
    MODEL_ID_KEYS.iter().find_map(|key| row.get(*key)?.as_str()).filter(|id| !id.is_empty())
}

/// The distinct model ids the body's rows were priced with.
pub fn model_ids(body: &mut Value) -> Vec<String> {
    let mut ids: Vec<String> =
        rows_mut(body).into_iter().filter_map(|row| model_id(row).map(str::to_owned)).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Fills the price keys of every row whose model has prices; rows without stay `null`.
pub fn attach(body: &mut Value, prices: &HashMap<String, BTreeMap<String, f64>>) {
    for row in rows_mut(body) {
        let Some(model_prices) = model_id(row).and_then(|id| prices.get(id)) else { continue };
        let filled: Vec<(&str, Value)> = PRICE_KEYS
            .iter()
            .map(|(key, usage)| (*key, model_prices.get(*usage).map_or(Value::Null, |p| Value::from(*p))))
            .collect();
        for (key, value) in filled {
            row.insert(key.to_owned(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fills_prices_of_priced_rows_in_lists_and_single_objects() {
        let prices = HashMap::from([(
            "m".to_owned(),
            BTreeMap::from([("input".to_owned(), 1e-6), ("output".to_owned(), 2e-6)]),
        )]);
        let mut list = json!({"data": [{"internalModelId": "m", "inputPrice": null}, {"modelId": null, "inputPrice": null}]});
        assert_eq!(model_ids(&mut list), vec!["m".to_owned()]);
        attach(&mut list, &prices);
        assert_eq!(list["data"][0]["inputPrice"], 1e-6);
        assert_eq!(list["data"][0]["outputPrice"], 2e-6);
        assert_eq!(list["data"][0]["totalPrice"], Value::Null);
        assert_eq!(list["data"][1]["inputPrice"], Value::Null);
        let mut single = json!({"modelId": "m", "inputPrice": null});
        attach(&mut single, &prices);
        assert_eq!(single["outputPrice"], 2e-6);
    }
}
