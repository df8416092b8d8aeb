//! The JSONPath subset a variable mapping may apply to its source: `$`, then any of `.name`,
//! `['name']` / `["name"]`, `[index]` (negative counts from the end) and the wildcards `.*` / `[*]`.
//! A path that selects one value yields it; a wildcard yields the array of what it selected.
//! Filters and recursive descent are refused when the mapping is saved (docs/evaluators.md).

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
    Wildcard,
}

/// A parsed path.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    steps: Vec<Step>,
}

impl JsonPath {
    pub fn parse(text: &str) -> Result<Self, String> {
        let rest = text.strip_prefix('$').ok_or_else(|| "a JSONPath must start with `$`".to_owned())?;
        let chars: Vec<char> = rest.chars().collect();
        let mut steps = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '.' => {
                    i += 1;
                    if chars.get(i) == Some(&'.') {
                        return Err("recursive descent (`..`) is not supported".to_owned());
                    }
                    let start = i;
                    while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                        i += 1;
                    }
                    let name: String = chars[start..i].iter().collect();
                    match name.as_str() {
                        "" => return Err(format!("an empty name at position {}", start + 1)),
                        "*" => steps.push(Step::Wildcard),
                        _ => steps.push(Step::Key(name)),
                    }
                }
                '[' => {
                    let close = chars[i..]
                        .iter()
                        .position(|c| *c == ']')
                        .map(|p| p + i)
                        .ok_or_else(|| "an unclosed `[`".to_owned())?;
                    let inner: String = chars[i + 1..close].iter().collect();
                    let inner = inner.trim();
                    if inner == "*" {
                        steps.push(Step::Wildcard);
                    } else if let Some(quoted) = quoted(inner) {
                        steps.push(Step::Key(quoted.to_owned()));
                    } else if let Ok(index) = inner.parse::<i64>() {
                        steps.push(Step::Index(index));
                    } else {
                        return Err(format!("`[{inner}]` is not supported (use a name, an index or `*`)"));
                    }
                    i = close + 1;
                }
                other => return Err(format!("unexpected `{other}` at position {}", i + 1)),
            }
        }
        Ok(Self { steps })
    }

    /// What the path selects in `value`: `None` when nothing matches.
    pub fn select(&self, value: &Value) -> Option<Value> {
        let mut current = vec![value.clone()];
        let mut many = false;
        for step in &self.steps {
            let mut next = Vec::new();
            for v in current {
                match (step, v) {
                    (Step::Key(k), Value::Object(mut map)) => next.extend(map.remove(k)),
                    (Step::Index(n), Value::Array(items)) => {
                        let len = items.len() as i64;
                        let at = if *n < 0 { len + n } else { *n };
                        if (0..len).contains(&at) {
                            next.push(items[at as usize].clone());
                        }
                    }
                    (Step::Wildcard, Value::Array(items)) => next.extend(items),
                    (Step::Wildcard, Value::Object(map)) => next.extend(map.into_iter().map(|(_, v)| v)),
                    _ => {}
                }
            }
            many |= matches!(step, Step::Wildcard);
            current = next;
        }
        if many { Some(Value::Array(current)) } else { current.into_iter().next() }
    }
}

fn quoted(inner: &str) -> Option<&str> {
    let bytes = inner.as_bytes();
    if bytes.len() >= 2 && (bytes[0] == b'\'' || bytes[0] == b'"') && bytes[bytes.len() - 1] == bytes[0] {
        Some(&inner[1..inner.len() - 1])
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selects_names_indices_and_wildcards() {
        let doc = json!({"a": {"b": [1, 2, {"c": "x"}]}, "k y": true});
        let at = |p: &str| JsonPath::parse(p).unwrap().select(&doc);
        assert_eq!(at("$"), Some(doc.clone()));
        assert_eq!(at("$.a.b[0]"), Some(json!(1)));
        assert_eq!(at("$.a.b[-1].c"), Some(json!("x")));
        assert_eq!(at("$['k y']"), Some(json!(true)));
        assert_eq!(at("$.a.b[*]"), Some(json!([1, 2, {"c": "x"}])));
        assert_eq!(at("$.missing"), None);
    }

    #[test]
    fn refuses_what_it_does_not_support() {
        for bad in ["a.b", "$..a", "$[?(@.a)]", "$.", "$[1"] {
            assert!(JsonPath::parse(bad).is_err(), "{bad}");
        }
    }
}
