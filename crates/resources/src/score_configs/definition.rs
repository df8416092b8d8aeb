//! The rules a score config must satisfy, on create and after every PATCH alike.

use std::collections::HashSet;

use super::{Category, DataType};
use crate::{Error, Result};

/// Python SDK 5.0.4 documents the name as at most 35 characters.
const MAX_NAME_CHARS: usize = 35;

/// Everything of a config a client sets, as given (categories of a BOOLEAN config included, so
/// that passing them can be refused).
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    pub name: String,
    pub data_type: DataType,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub categories: Option<Vec<Category>>,
    pub description: Option<String>,
}

pub fn data_type(raw: &str) -> Result<DataType> {
    DataType::parse(raw).ok_or_else(|| {
        let all: Vec<&str> = DataType::ALL.iter().map(|data_type| data_type.as_str()).collect();
        Error::bad_request(format!("`dataType` must be one of {}, got `{raw}`", all.join(", ")))
    })
}

/// The definition as stored, or the first rule it breaks. BOOLEAN configs get the categories
/// `True` (1) and `False` (0); an empty category list of a non-categorical config counts as none.
pub fn validate(mut definition: Definition) -> Result<Definition> {
    name(&definition.name)?;
    let kind = definition.data_type.as_str();
    // SDKs may send `[]` for "no categories"; only a CATEGORICAL config must have some.
    if definition.data_type != DataType::Categorical
        && definition.categories.as_ref().is_some_and(Vec::is_empty)
    {
        definition.categories = None;
    }
    let has_range = definition.min_value.is_some() || definition.max_value.is_some();
    match definition.data_type {
        DataType::Numeric => {
            if let (Some(min), Some(max)) = (definition.min_value, definition.max_value)
                && min > max
            {
                return Err(Error::bad_request(format!(
                    "`minValue` ({min}) must not be greater than `maxValue` ({max})"
                )));
            }
            if definition.categories.is_some() {
                return Err(Error::bad_request("`categories` are only for CATEGORICAL score configs"));
            }
        }
        DataType::Categorical => {
            if has_range {
                return Err(Error::bad_request(
                    "`minValue` and `maxValue` are only for NUMERIC score configs",
                ));
            }
            categories(definition.categories.as_deref())?;
        }
        DataType::Boolean | DataType::Text => {
            if has_range {
                return Err(Error::bad_request(
                    "`minValue` and `maxValue` are only for NUMERIC score configs",
                ));
            }
            if definition.categories.is_some() {
                let why = if definition.data_type == DataType::Boolean {
                    "BOOLEAN score configs get the categories True (1) and False (0) from the server"
                } else {
                    "`categories` are only for CATEGORICAL score configs"
                };
                return Err(Error::bad_request(format!(
                    "{why}; do not pass `categories` for a {kind} config"
                )));
            }
            if definition.data_type == DataType::Boolean {
                definition.categories = Some(vec![
                    Category { label: "True".to_owned(), value: 1.0 },
                    Category { label: "False".to_owned(), value: 0.0 },
                ]);
            }
        }
    }
    Ok(definition)
}

/// 1 to 35 letters, digits, spaces, and `_ - . ( )` (the SDK's documented rule).
fn name(name: &str) -> Result<()> {
    let length = name.chars().count();
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '(' | ')' | ' ');
    if name.trim().is_empty() || length > MAX_NAME_CHARS || !name.chars().all(allowed) {
        return Err(Error::bad_request(format!(
            "Invalid score config name `{name}`: 1 to {MAX_NAME_CHARS} letters, digits, spaces, underscores, \
             hyphens, periods or parentheses"
        )));
    }
    Ok(())
}

/// At least one category; labels non-empty and unique, values unique — a score's label must name
/// exactly one category, and a value must map back to exactly one label.
fn categories(categories: Option<&[Category]>) -> Result<()> {
    let categories = categories.unwrap_or_default();
    if categories.is_empty() {
        return Err(Error::bad_request(
            "CATEGORICAL score configs need `categories`: a non-empty list of {label, value}",
        ));
    }
    let (mut labels, mut values) = (HashSet::new(), Vec::<f64>::new());
    for category in categories {
        if category.label.trim().is_empty() {
            return Err(Error::bad_request("Category labels must not be empty"));
        }
        if !labels.insert(category.label.as_str()) {
            return Err(Error::bad_request(format!("Category label '{}' is used twice", category.label)));
        }
        if values.contains(&category.value) {
            return Err(Error::bad_request(format!("Category value {} is used twice", category.value)));
        }
        values.push(category.value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(data_type: DataType) -> Definition {
        Definition {
            name: "answer quality (v2)".into(),
            data_type,
            min_value: None,
            max_value: None,
            categories: None,
            description: Some("how good".into()),
        }
    }

    fn category(label: &str, value: f64) -> Category {
        Category { label: label.into(), value }
    }

    fn refusal(definition: Definition) -> String {
        validate(definition).unwrap_err().to_string()
    }

    #[test]
    fn numeric_ranges_must_be_ordered_and_belong_to_numeric_configs() {
        let numeric =
            Definition { min_value: Some(0.0), max_value: Some(1.0), ..definition(DataType::Numeric) };
        assert_eq!(validate(numeric.clone()).unwrap(), numeric);
        let point =
            Definition { min_value: Some(1.0), max_value: Some(1.0), ..definition(DataType::Numeric) };
        assert!(validate(point).is_ok(), "min = max is a range of one value");
        let reversed =
            Definition { min_value: Some(2.0), max_value: Some(1.0), ..definition(DataType::Numeric) };
        assert!(refusal(reversed).contains("must not be greater than `maxValue`"));
        let ranged = Definition { max_value: Some(1.0), ..definition(DataType::Categorical) };
        assert!(refusal(ranged).contains("only for NUMERIC"));
        let listed =
            Definition { categories: Some(vec![category("a", 1.0)]), ..definition(DataType::Numeric) };
        assert!(refusal(listed).contains("only for CATEGORICAL"));
        let empty = Definition { categories: Some(vec![]), ..definition(DataType::Numeric) };
        assert_eq!(validate(empty).unwrap().categories, None, "an empty list is no list");
    }

    #[test]
    fn categories_are_required_and_unique_by_label_and_value() {
        let good = vec![category("good", 1.0), category("bad", 0.0)];
        let categorical = Definition { categories: Some(good), ..definition(DataType::Categorical) };
        assert!(validate(categorical).is_ok());
        assert!(refusal(definition(DataType::Categorical)).contains("need `categories`"));
        let none = Definition { categories: Some(vec![]), ..definition(DataType::Categorical) };
        assert!(refusal(none).contains("need `categories`"));
        for (categories, needle) in [
            (vec![category("a", 1.0), category("a", 2.0)], "label 'a' is used twice"),
            (vec![category("a", 1.0), category("b", 1.0)], "value 1 is used twice"),
            (vec![category(" ", 1.0)], "must not be empty"),
        ] {
            let refused =
                refusal(Definition { categories: Some(categories), ..definition(DataType::Categorical) });
            assert!(refused.contains(needle), "{refused}");
        }
    }

    #[test]
    fn boolean_configs_get_their_categories_from_the_server() {
        let boolean = validate(definition(DataType::Boolean)).unwrap();
        assert_eq!(boolean.categories, Some(vec![category("True", 1.0), category("False", 0.0)]));
        let passed =
            Definition { categories: Some(vec![category("yes", 1.0)]), ..definition(DataType::Boolean) };
        assert!(refusal(passed).contains("get the categories True (1) and False (0)"));
        let ranged = Definition { min_value: Some(0.0), ..definition(DataType::Text) };
        assert!(refusal(ranged).contains("only for NUMERIC"));
    }

    #[test]
    fn names_are_short_and_plain() {
        for bad in ["", "   ", "a/b", "quality!", &"x".repeat(36)] {
            let refused = refusal(Definition { name: bad.to_owned(), ..definition(DataType::Text) });
            assert!(refused.contains("Invalid score config name"), "{bad}: {refused}");
        }
        assert!(
            validate(Definition { name: "qualité_2.0-final".into(), ..definition(DataType::Text) }).is_ok()
        );
        assert!(
            data_type("numeric").unwrap_err().to_string().contains("NUMERIC, CATEGORICAL, BOOLEAN, TEXT")
        );
    }
}
