//! The configuration's sources as figment layers, lowest first: the catalogue's built-in defaults,
//! the optional TOML file named by `LANGFUSE_CONFIG_FILE`, the environment.
//!
//! Figment layers the sources and remembers where each value came from. It does not do the checks
//! operators rely on: its `Env` provider matches names without regard to case and guesses value
//! types, and an extraction stops at the first value it cannot convert. So each source is vetted
//! here before it is layered — every name against the catalogue (a near miss is named with the
//! setting probably meant and the source it was found in), every file value for its shape — and
//! only known names with their text reach figment. The one extraction then cannot fail, and the
//! rules in `settings.rs` judge a value's text the same way whichever source it came from.
//!
//! No I/O here: the environment arrives as a map, and the file through the caller's reader.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use figment::providers::{Format, Toml};
use figment::value::magic::Tagged;
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};

use super::catalog::{CONFIG_FILE, SETTINGS};
use super::names::{self, UnknownName};
use super::vars::{Origin, Problems, Vars};

/// Every source vetted and layered.
pub(super) struct Layered {
    pub vars: Vars,
    /// Problems with names and with the file; the values' problems come later, from the rules.
    pub problems: Problems,
    pub warnings: Vec<String>,
    /// False when the file named could not be read or parsed: the rules would then judge a
    /// configuration missing whatever the file holds, and report settings as missing that it sets.
    pub complete: bool,
}

const DEFAULTS: &str = "built-in defaults";
const FILE: &str = "configuration file";
const ENVIRONMENT: &str = "environment";

pub(super) fn layer(
    env: BTreeMap<String, String>,
    read_file: impl FnOnce(&str) -> io::Result<String>,
) -> Layered {
    let mut layered = Layered {
        vars: Vars::default(),
        problems: Problems::default(),
        warnings: Vec::new(),
        complete: true,
    };
    // Empty means unset in every source, so `FOO=` in a compose file lets the file's value through.
    let env: BTreeMap<String, String> = env.into_iter().filter(|(_, v)| !v.trim().is_empty()).collect();
    let env_dict: Dict = env
        .iter()
        .filter(|(name, _)| layered.vet_name(name, None))
        .map(|(name, value)| (name.clone(), Value::from(value.clone())))
        .collect();

    let defaults =
        SETTINGS.iter().filter(|s| s.built_in).map(|s| (s.name.to_owned(), Value::from(s.default)));
    let mut figment = Figment::from(Layer { metadata: Metadata::named(DEFAULTS), dict: defaults.collect() });
    let path = env.get(CONFIG_FILE).map(|p| p.trim());
    if let Some(path) = path {
        match layered.file_layer(path, read_file) {
            Some(file) => figment = figment.merge(file),
            None => layered.complete = false,
        }
    }
    figment = figment.merge(Layer { metadata: Metadata::named(ENVIRONMENT), dict: env_dict });

    // The one typed extraction: every layered setting with the tag of the source that won.
    match figment.extract::<BTreeMap<String, Tagged<String>>>() {
        Ok(values) => {
            let origin = |tag| match figment.get_metadata(tag) {
                Some(metadata) if metadata.name == FILE => Origin::File(path.unwrap_or_default().to_owned()),
                Some(metadata) if metadata.name == ENVIRONMENT => Origin::Environment,
                _ => Origin::Default,
            };
            layered.vars = Vars::from_layers(values.into_iter().map(|(name, value)| {
                let origin = origin(value.tag());
                (name, value.into_inner(), origin)
            }));
        }
        // Only vetted names with text values are layered, so this would be a bug here; still
        // reported rather than unwrapped, each error with the key figment names.
        Err(errors) => {
            for error in errors {
                layered.problems.push_from(&error.path.join("."), None, error.to_string());
            }
            layered.complete = false;
        }
    }
    layered
}

impl Layered {
    /// Reads and vets the file at `path`; `None` when it cannot be used at all.
    fn file_layer(
        &mut self,
        path: &str,
        read_file: impl FnOnce(&str) -> io::Result<String>,
    ) -> Option<Layer> {
        let text = match read_file(path) {
            Ok(text) => text,
            Err(error) => {
                self.problems.push_from(CONFIG_FILE, None, format!("cannot read {path}: {error}"));
                return None;
            }
        };
        let data = match Toml::string(&text).data() {
            Ok(data) => data,
            Err(error) => {
                let error = error.to_string();
                let error = error.trim_end();
                self.problems.push_from(CONFIG_FILE, None, format!("{path} is not valid TOML: {error}"));
                return None;
            }
        };
        let mut dict = Dict::new();
        for (key, value) in data.into_values().flatten() {
            if key == CONFIG_FILE {
                self.problems.push_from(
                    &key,
                    Some(path),
                    "is read from the environment only: it names this file, so set it there",
                );
                continue;
            }
            let text = match scalar_text(&value) {
                Ok(text) => text,
                Err(complaint) => {
                    self.problems.push_from(&key, Some(path), complaint);
                    continue;
                }
            };
            if self.vet_name(&key, Some(path)) && !text.trim().is_empty() {
                dict.insert(key, Value::from(text));
            }
        }
        Some(Layer { metadata: Metadata::from(FILE, Path::new(path)), dict })
    }

    /// Whether `name` is a setting to layer. Near misses of a setting are problems, names Loupe
    /// accepts but does not use are warnings; in the environment, names of other programs are
    /// none of our business, but a file holds only settings, so there an unknown name is refused.
    fn vet_name(&mut self, name: &str, file: Option<&str>) -> bool {
        let problems = &mut self.problems;
        match names::classify(name) {
            None if SETTINGS.iter().any(|s| s.name == name) => return true,
            None if file.is_some() => problems.push_from(name, file, "not a Loupe setting"),
            None => {}
            Some(UnknownName::Misspelled { suggestion, wrong_case: true, .. }) => problems.push_from(
                name,
                file,
                format!("not a known setting (names are case-sensitive); did you mean {suggestion}?"),
            ),
            Some(UnknownName::Misspelled { suggestion, wrong_case: false, .. }) => {
                problems.push_from(name, file, format!("not a known setting; did you mean {suggestion}?"))
            }
            Some(UnknownName::UnknownMigrationSetting { nearest, .. }) => problems.push_from(
                name,
                file,
                format!("looks like a migration setting but is not one; the closest known name is {nearest}"),
            ),
            Some(UnknownName::Ignored { .. }) => {
                let place = file.map(|f| format!(" (in {f})")).unwrap_or_default();
                self.warnings.push(format!("{name}{place} is not a Loupe setting and has no effect"));
            }
        }
        false
    }
}

/// The text an environment variable would hold for a file value, so one set of rules judges both.
fn scalar_text(value: &Value) -> Result<String, &'static str> {
    match value {
        Value::String(_, text) => Ok(text.clone()),
        Value::Bool(_, flag) => Ok(flag.to_string()),
        Value::Num(_, number) => {
            number.to_i128().map(|n| n.to_string()).ok_or("must be a string, integer or boolean, not a float")
        }
        // TOML dates reach figment as a table holding the date's text under a private key.
        Value::Dict(_, dict) if dict.keys().any(|k| k.starts_with("$__toml_private")) => {
            Err("must be a string, integer or boolean, not a date")
        }
        Value::Dict(..) => Err("is a table, but the file is flat: each setting sits at the top level \
                                under its environment variable's name"),
        Value::Array(..) => Err("is an array; a setting is a string, integer or boolean"),
        Value::Char(..) | Value::Empty(..) => Err("must be a string, integer or boolean"),
    }
}

/// One vetted source for figment: its values and the metadata that names it.
struct Layer {
    metadata: Metadata,
    dict: Dict,
}

impl Provider for Layer {
    fn metadata(&self) -> Metadata {
        self.metadata.clone()
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        Ok(Profile::Default.collect(self.dict.clone()))
    }
}
