//! Reading typed values out of the layered settings while collecting every problem, so an operator
//! fixes a broken deployment in one round instead of one variable per restart.

use std::collections::BTreeMap;
use std::fmt;

/// Where a setting's value came from, for the startup log and for problem messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The catalogue's built-in default.
    Default,
    /// The TOML file named by `LANGFUSE_CONFIG_FILE`; holds its path.
    File(String),
    Environment,
}

/// The settings as Loupe sees them after layering: each known name with its text and origin.
/// Empty values count as unset (as upstream does), so `FOO=` in a compose file means "use the
/// default" — or the file's value, which an empty variable therefore does not hide.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: BTreeMap<String, (String, Origin)>,
}

impl Vars {
    pub(super) fn from_layers(values: impl IntoIterator<Item = (String, String, Origin)>) -> Self {
        let values = values
            .into_iter()
            .filter(|(_, v, _)| !v.trim().is_empty())
            .map(|(k, v, origin)| (k, (v, origin)))
            .collect();
        Self { values }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(|(v, _)| v.trim())
    }

    pub fn origin(&self, name: &str) -> Option<&Origin> {
        self.values.get(name).map(|(_, origin)| origin)
    }

    /// The value, or empty when unset (never, for a setting with a built-in default).
    pub fn string(&self, name: &str) -> String {
        self.get(name).unwrap_or_default().to_owned()
    }

    pub fn required(&self, name: &'static str, problems: &mut Problems) -> Option<String> {
        let value = self.get(name).map(str::to_owned);
        if value.is_none() {
            problems.push(name, "is required but not set");
        }
        value
    }

    /// `Some(None)` when unset, `None` when set to something invalid (the problem is recorded).
    fn parsed<T>(
        &self,
        name: &'static str,
        problems: &mut Problems,
        parse: impl FnOnce(&str) -> Option<T>,
        complaint: impl FnOnce(&str) -> String,
    ) -> Option<Option<T>> {
        let Some(raw) = self.get(name) else {
            return Some(None);
        };
        match parse(raw) {
            Some(value) => Some(Some(value)),
            None => {
                problems.push(name, complaint(raw));
                None
            }
        }
    }

    pub fn optional_choice<T: Copy>(
        &self,
        name: &'static str,
        all: &[T],
        label: fn(T) -> &'static str,
        problems: &mut Problems,
    ) -> Option<Option<T>> {
        let parse = |raw: &str| all.iter().copied().find(|v| label(*v) == raw);
        self.parsed(name, problems, parse, |raw| {
            let expected: Vec<_> = all.iter().map(|v| label(*v)).collect();
            format!("unknown value {raw:?}; expected one of {}", expected.join(", "))
        })
    }

    pub fn optional_bool(&self, name: &'static str, problems: &mut Problems) -> Option<Option<bool>> {
        let parse = |raw: &str| match raw.to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        };
        self.parsed(name, problems, parse, |raw| format!("unknown value {raw:?}; expected true or false"))
    }

    pub fn optional_port(&self, name: &'static str, problems: &mut Problems) -> Option<Option<u16>> {
        let parse = |raw: &str| raw.parse::<u16>().ok().filter(|v| *v > 0);
        self.parsed(name, problems, parse, |raw| {
            format!("must be a port number between 1 and 65535, got {raw:?}")
        })
    }

    // The getters below read settings with a built-in default: the defaults layer always supplies
    // a value, so "not set" can only mean the catalogue lacks the default, reported as such.

    pub fn choice<T: Copy>(
        &self,
        name: &'static str,
        all: &[T],
        label: fn(T) -> &'static str,
        problems: &mut Problems,
    ) -> Option<T> {
        with_default(name, self.optional_choice(name, all, label, problems), problems)
    }

    pub fn bool(&self, name: &'static str, problems: &mut Problems) -> Option<bool> {
        with_default(name, self.optional_bool(name, problems), problems)
    }

    pub fn port(&self, name: &'static str, problems: &mut Problems) -> Option<u16> {
        with_default(name, self.optional_port(name, problems), problems)
    }

    pub fn positive_integer(&self, name: &'static str, problems: &mut Problems) -> Option<u64> {
        let parse = |raw: &str| raw.parse::<u64>().ok().filter(|v| *v > 0);
        let value =
            self.parsed(name, problems, parse, |raw| format!("must be a positive integer, got {raw:?}"));
        with_default(name, value, problems)
    }

    pub fn non_negative_integer(&self, name: &'static str, problems: &mut Problems) -> Option<u64> {
        let parse = |raw: &str| raw.parse::<u64>().ok();
        let value =
            self.parsed(name, problems, parse, |raw| format!("must be a non-negative integer, got {raw:?}"));
        with_default(name, value, problems)
    }
}

/// A setting with a built-in default read as unset: the catalogue lacks the default.
fn with_default<T>(name: &'static str, value: Option<Option<T>>, problems: &mut Problems) -> Option<T> {
    match value {
        Some(None) => {
            problems.push(name, "is required but not set");
            None
        }
        Some(Some(value)) => Some(value),
        None => None,
    }
}

/// One thing wrong with the configuration, naming the variable(s) responsible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub variables: Vec<String>,
    /// For each of `variables`, the configuration file its value came from; `None` when it came
    /// from the environment or a default, or is unset.
    pub files: Vec<Option<String>>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named: Vec<String> = self
            .variables
            .iter()
            .zip(&self.files)
            .map(|(variable, file)| match file {
                Some(file) => format!("{variable} (from {file})"),
                None => variable.clone(),
            })
            .collect();
        write!(f, "{}: {}", named.join(" + "), self.message)
    }
}

#[derive(Debug, Default)]
pub struct Problems {
    list: Vec<Problem>,
    /// The settings whose value came from the configuration file, and its path, so a problem
    /// with a value says where to fix it.
    files: BTreeMap<String, String>,
}

impl Problems {
    /// Problems about the values of `vars`, each naming the file a value came from.
    pub fn attributed_to(vars: &Vars) -> Self {
        let files = vars
            .values
            .iter()
            .filter_map(|(name, (_, origin))| match origin {
                Origin::File(path) => Some((name.clone(), path.clone())),
                _ => None,
            })
            .collect();
        Self { list: Vec::new(), files }
    }

    pub fn push(&mut self, variable: impl Into<String>, message: impl Into<String>) {
        let variable = variable.into();
        let file = self.files.get(&variable).cloned();
        self.list.push(Problem { variables: vec![variable], files: vec![file], message: message.into() });
    }

    /// A problem whose origin is known by the caller: a name found in one particular source.
    pub fn push_from(&mut self, variable: &str, file: Option<&str>, message: impl Into<String>) {
        self.list.push(Problem {
            variables: vec![variable.to_owned()],
            files: vec![file.map(str::to_owned)],
            message: message.into(),
        });
    }

    pub fn combination(&mut self, variables: &[&str], message: &str) {
        let files = variables.iter().map(|v| self.files.get(*v).cloned()).collect();
        let variables = variables.iter().map(|v| (*v).to_owned()).collect();
        self.list.push(Problem { variables, files, message: message.to_owned() });
    }

    pub fn extend(&mut self, other: Problems) {
        self.list.extend(other.list);
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn into_vec(self) -> Vec<Problem> {
        self.list
    }
}
