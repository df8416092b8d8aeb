//! `inputPrice`, `outputPrice` and `totalPrice` of an observation: the prices of the model
//! definition the worker matched (its id is stored with the row; the prices live in PostgreSQL).

use std::collections::{BTreeMap, HashMap};

/// An observation body that carries the id of the model it was priced with and its prices.
pub trait Priced {
    fn model_id(&self) -> Option<&str>;
    fn set_prices(&mut self, prices: Prices);
}

/// A model's price per unit of each usage type the API shows; `None` when it has none.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub total: Option<f64>,
}

fn model_id<T: Priced>(row: &T) -> Option<&str> {
    row.model_id().filter(|id| !id.is_empty())
}

/// The distinct model ids the rows were priced with.
pub fn model_ids<'a, T: Priced + 'a>(rows: impl IntoIterator<Item = &'a T>) -> Vec<String> {
    let mut ids: Vec<String> = rows.into_iter().filter_map(|row| model_id(row).map(str::to_owned)).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Fills the prices of every row whose model has prices; rows without keep `null`.
pub fn attach<'a, T: Priced + 'a>(
    rows: impl IntoIterator<Item = &'a mut T>,
    prices: &HashMap<String, BTreeMap<String, f64>>,
) {
    for row in rows {
        let Some(model_prices) = model_id(row).and_then(|id| prices.get(id)) else { continue };
        let price = |usage: &str| model_prices.get(usage).copied();
        let filled = Prices { input: price("input"), output: price("output"), total: price("total") };
        row.set_prices(filled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Row {
        model: Option<String>,
        prices: Prices,
    }

    impl Priced for Row {
        fn model_id(&self) -> Option<&str> {
            self.model.as_deref()
        }
        fn set_prices(&mut self, prices: Prices) {
            self.prices = prices;
        }
    }

    #[test]
    fn fills_prices_of_priced_rows() {
        let prices = HashMap::from([(
            "m".to_owned(),
            BTreeMap::from([("input".to_owned(), 1e-6), ("output".to_owned(), 2e-6)]),
        )]);
        let mut rows = vec![Row { model: Some("m".into()), ..Row::default() }, Row::default()];
        assert_eq!(model_ids(&rows), vec!["m".to_owned()]);
        attach(&mut rows, &prices);
        assert_eq!(rows[0].prices, Prices { input: Some(1e-6), output: Some(2e-6), total: None });
        assert_eq!(rows[1].prices, Prices::default());
    }
}
