//! Which client sent a request, and what that means for where its data is written (spec/v4-migration-spec.md §4.2, §9.2).
//!
//! The compatibility matrix is data (`REAL_TIME_MINIMUMS`) so the migration status screen and the
//! ingestion router read the same table.

use std::cmp::Ordering;
use std::fmt;

use crate::config::OtelBehaviour;

/// The SDK families Langfuse clients report, normalised from the many names they use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SdkFamily {
    Python,
    JavaScript,
    Other(String),
}

impl SdkFamily {
    /// `python`, `langfuse-python` → Python; `javascript`, `js`, `typescript`, `langfuse-js`,
    /// `@langfuse/…` → JavaScript; anything else is kept as sent (lowercased).
    pub fn from_header(name: &str) -> Self {
        let name = name.trim().to_ascii_lowercase();
        match name.as_str() {
            "python" | "langfuse-python" | "langfuse_python" => Self::Python,
            "javascript" | "js" | "typescript" | "ts" | "langfuse-js" | "langfuse-javascript" => {
                Self::JavaScript
            }
            n if n.starts_with("@langfuse/") => Self::JavaScript,
            _ => Self::Other(name),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Python => "python",
            Self::JavaScript => "javascript",
            Self::Other(name) => name,
        }
    }
}

/// A release number; pre-release and build suffixes (`-rc.1`, `b1`, `+local`) are dropped before
/// comparing, as upstream does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Self { major, minor, patch }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim().trim_start_matches('v');
        let mut parts = raw.splitn(3, '.');
        let number = |part: Option<&str>| -> Option<u32> {
            let digits: String = part?.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        };
        let major = number(parts.next())?;
        let minor = number(parts.next()).unwrap_or(0);
        let patch = number(parts.next()).unwrap_or(0);
        Some(Self { major, minor, patch })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The highest `x-langfuse-ingestion-version` this server understands.
pub const MAX_INGESTION_VERSION: u32 = 4;

/// The first SDK releases that propagate trace attributes client-side, so their spans can be
/// written straight to the v4 tables and read in real time (spec/v4-migration-spec.md §4.2, §9.2).
pub const REAL_TIME_MINIMUMS: &[(SdkFamily, Version)] =
    &[(SdkFamily::Python, Version::new(4, 7, 0)), (SdkFamily::JavaScript, Version::new(5, 4, 0))];

/// What the headers of one request say about its sender.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SdkInfo {
    pub name: Option<String>,
    pub version: Option<String>,
    pub ingestion_version: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unsupported x-langfuse-ingestion-version: {value:?}. Maximum supported: \"4\".")]
pub struct UnsupportedIngestionVersion {
    pub value: String,
}

impl SdkInfo {
    /// Builds from raw header values; an ingestion version that is not an integer or is above
    /// [`MAX_INGESTION_VERSION`] is refused (HTTP 400 upstream and here).
    pub fn from_headers(
        name: Option<&str>,
        version: Option<&str>,
        ingestion_version: Option<&str>,
    ) -> Result<Self, UnsupportedIngestionVersion> {
        let ingestion_version = match ingestion_version.map(str::trim) {
            None | Some("") => None,
            Some(raw) => match raw.parse::<u32>() {
                Ok(v) if v <= MAX_INGESTION_VERSION => Some(v),
                _ => {
                    return Err(UnsupportedIngestionVersion { value: raw.to_owned() });
                }
            },
        };
        let clean = |v: Option<&str>| v.map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        Ok(Self { name: clean(name), version: clean(version), ingestion_version })
    }

    pub fn family(&self) -> Option<SdkFamily> {
        self.name.as_deref().map(SdkFamily::from_header)
    }

    /// Whether this sender's spans may go straight to the v4 tables with real-time reads: the
    /// header says version 4, or the SDK is at least the real-time minimum of its family.
    pub fn propagates_trace_attributes(&self) -> bool {
        if self.ingestion_version == Some(MAX_INGESTION_VERSION) {
            return true;
        }
        let (Some(family), Some(version)) = (self.family(), self.version.as_deref().and_then(Version::parse))
        else {
            return false;
        };
        REAL_TIME_MINIMUMS.iter().any(|(f, minimum)| *f == family && version.cmp(minimum) != Ordering::Less)
    }

    /// Direct v4 write for OTel spans: a compatible producer, or the server told to trust every
    /// producer (`NATIVE_OTEL_BEHAVIOUR=direct`).
    pub fn otel_direct_write(&self, behaviour: OtelBehaviour) -> bool {
        behaviour == OtelBehaviour::Direct || self.propagates_trace_attributes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sdk(name: &str, version: &str) -> SdkInfo {
        SdkInfo::from_headers(Some(name), Some(version), None).unwrap()
    }

    #[test]
    fn versions_parse_with_suffixes() {
        assert_eq!(Version::parse("4.7.0"), Some(Version::new(4, 7, 0)));
        assert_eq!(Version::parse("5.4.0-rc.1"), Some(Version::new(5, 4, 0)));
        assert_eq!(Version::parse("4.7.0b1"), Some(Version::new(4, 7, 0)));
        assert_eq!(Version::parse("v3"), Some(Version::new(3, 0, 0)));
        assert_eq!(Version::parse("latest"), None);
    }

    #[test]
    fn names_normalise_to_families() {
        assert_eq!(SdkFamily::from_header("Python"), SdkFamily::Python);
        assert_eq!(SdkFamily::from_header("langfuse-js"), SdkFamily::JavaScript);
        assert_eq!(SdkFamily::from_header("@langfuse/otel"), SdkFamily::JavaScript);
        assert_eq!(SdkFamily::from_header("ruby"), SdkFamily::Other("ruby".into()));
    }

    #[test]
    fn real_time_matrix_follows_the_spec() {
        for (name, version, expected) in [
            ("python", "4.7.0", true),
            ("python", "5.0.4", true),
            ("python", "4.6.9", false),
            ("python", "3.15.0", false),
            ("python", "2.60.10", false),
            ("javascript", "5.4.0", true),
            ("javascript", "5.11.1", true),
            ("javascript", "5.3.9", false),
            ("javascript", "4.6.0", false),
            ("langfuse-js", "3.39.2", false),
            ("ruby", "9.9.9", false),
        ] {
            assert_eq!(sdk(name, version).propagates_trace_attributes(), expected, "{name} {version}");
        }
    }

    #[test]
    fn ingestion_version_header() {
        let v4 = SdkInfo::from_headers(None, None, Some("4")).unwrap();
        assert!(v4.propagates_trace_attributes());
        let v3 = SdkInfo::from_headers(None, None, Some("3")).unwrap();
        assert!(!v3.propagates_trace_attributes());
        assert!(SdkInfo::from_headers(None, None, Some("5")).is_err());
        let err = SdkInfo::from_headers(None, None, Some("four")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Unsupported x-langfuse-ingestion-version: \"four\". Maximum supported: \"4\"."
        );
    }

    #[test]
    fn direct_behaviour_trusts_every_producer() {
        let old = sdk("python", "3.15.0");
        assert!(old.otel_direct_write(OtelBehaviour::Direct));
        assert!(!old.otel_direct_write(OtelBehaviour::DualWrite));
        assert!(sdk("python", "5.0.4").otel_direct_write(OtelBehaviour::DualWrite));
    }
}
