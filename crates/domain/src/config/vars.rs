//! Reading typed values out of the environment while collecting every problem, so an operator
//! fixes a broken deployment in one round instead of one variable per restart.

use std::collections::BTreeMap;
use std::fmt;

/// The environment as Loupe sees it: empty values count as unset (as upstream does), so
/// `FOO=` in a compose file means "use the default".
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: BTreeMap<String, String>,
}

impl Vars {
    pub fn new<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Self {
        let values = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .filter(|(_, v)| !v.trim().is_empty())
            .collect();
        Self { values }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(|v| v.trim())
    }

    pub fn string(&self, name: &str, default: &str) -> String {
        self.get(name).unwrap_or(default).to_owned()
    }

    pub fn required(&self, name: &'static str, problems: &mut Problems) -> Option<String> {
        let value = self.get(name).map(str::to_owned);
        if value.is_none() {
            problems.push(name, "is required but not set");
        }
        value
    }

    /// `Some(None)` when unset, `None` when set to something invalid (the problem is recorded).
    pub fn optional_choice<T: Copy>(
        &self,
        name: &'static str,
        all: &[T],
        label: fn(T) -> &'static str,
        problems: &mut Problems,
    ) -> Option<Option<T>> {
        let Some(raw) = self.get(name) else {
            return Some(None);
        };
        match all.iter().copied().find(|v| label(*v) == raw) {
            Some(v) => Some(Some(v)),
            None => {
                let expected: Vec<_> = all.iter().map(|v| label(*v)).collect();
                problems
                    .push(name, format!("unknown value {raw:?}; expected one of {}", expected.join(", ")));
                None
            }
        }
    }

    pub fn optional_bool(&self, name: &'static str, problems: &mut Problems) -> Option<Option<bool>> {
        let Some(raw) = self.get(name) else {
            return Some(None);
        };
        match raw.to_ascii_lowercase().as_str() {
            "true" => Some(Some(true)),
            "false" => Some(Some(false)),
            _ => {
                problems.push(name, format!("unknown value {raw:?}; expected true or false"));
                None
            }
        }
    }

    pub fn bool(&self, name: &'static str, default: bool, problems: &mut Problems) -> Option<bool> {
        self.optional_bool(name, problems).map(|v| v.unwrap_or(default))
    }

    pub fn positive_integer(&self, name: &'static str, default: u64, problems: &mut Problems) -> Option<u64> {
        let Some(raw) = self.get(name) else {
            return Some(default);
        };
        match raw.parse::<u64>() {
            Ok(v) if v > 0 => Some(v),
            _ => {
                problems.push(name, format!("must be a positive integer, got {raw:?}"));
                None
            }
        }
    }

    pub fn non_negative_integer(
        &self,
        name: &'static str,
        default: u64,
        problems: &mut Problems,
    ) -> Option<u64> {
        let Some(raw) = self.get(name) else {
            return Some(default);
        };
        match raw.parse::<u64>() {
            Ok(v) => Some(v),
            Err(_) => {
                problems.push(name, format!("must be a non-negative integer, got {raw:?}"));
                None
            }
        }
    }

    pub fn port(&self, name: &'static str, default: u16, problems: &mut Problems) -> Option<u16> {
        let Some(raw) = self.get(name) else {
            return Some(default);
        };
        match raw.parse::<u16>() {
            Ok(v) if v > 0 => Some(v),
            _ => {
                problems.push(name, format!("must be a port number between 1 and 65535, got {raw:?}"));
                None
            }
        }
    }
}

/// One thing wrong with the configuration, naming the variable(s) responsible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub variables: Vec<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.variables.join(" + "), self.message)
    }
}

#[derive(Debug, Default)]
pub struct Problems(Vec<Problem>);

impl Problems {
    pub fn push(&mut self, variable: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem { variables: vec![variable.into()], message: message.into() });
    }

    pub fn combination(&mut self, variables: &[&str], message: &str) {
        let variables = variables.iter().map(|v| (*v).to_owned()).collect();
        self.0.push(Problem { variables, message: message.to_owned() });
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }
}
