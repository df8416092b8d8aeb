//! The public shapes of `/api/public/integrations/blob-storage`, as the Python SDK 5 client
//! (`langfuse/api/blob_storage_integrations/types`) spells them: enum values, field names, which
//! fields are optional.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }
    };
}

wire_enum!(
    /// Where files go. `GOOGLE_CLOUD_STORAGE` is in the SDK's enum but not served here (400).
    TargetType {
        S3 = "S3",
        S3Compatible = "S3_COMPATIBLE",
        AzureBlobStorage = "AZURE_BLOB_STORAGE",
        GoogleCloudStorage = "GOOGLE_CLOUD_STORAGE",
    }
);

wire_enum!(
    Frequency { Every20Minutes = "every_20_minutes", Hourly = "hourly", Daily = "daily", Weekly = "weekly" }
);

wire_enum!(FileType { Json = "JSON", Csv = "CSV", Jsonl = "JSONL", Parquet = "PARQUET" });

wire_enum!(Mode { FullHistory = "FULL_HISTORY", FromToday = "FROM_TODAY", FromCustomDate = "FROM_CUSTOM_DATE" });

wire_enum!(
    /// What is exported; which sources a write mode serves is [`Source::served_in`].
    Source {
        LegacyTracesObservations = "LEGACY_TRACES_OBSERVATIONS",
        ObservationsV2 = "OBSERVATIONS_V2",
        LegacyTracesAndEnrichedObservations = "LEGACY_TRACES_AND_ENRICHED_OBSERVATIONS",
    }
);

wire_enum!(
    /// Column groups of an exported observation row; `core` is always included.
    FieldGroup {
        Core = "core",
        Basic = "basic",
        Time = "time",
        Io = "io",
        Metadata = "metadata",
        Model = "model",
        Usage = "usage",
        Prompt = "prompt",
        Metrics = "metrics",
        Tools = "tools",
        TraceContext = "trace_context",
    }
);

wire_enum!(
    SyncStatus {
        Idle = "idle",
        Running = "running",
        Queued = "queued",
        UpToDate = "up_to_date",
        Disabled = "disabled",
        Error = "error",
    }
);

impl Frequency {
    pub fn period(self) -> Duration {
        match self {
            Self::Every20Minutes => Duration::minutes(20),
            Self::Hourly => Duration::hours(1),
            Self::Daily => Duration::days(1),
            Self::Weekly => Duration::weeks(1),
        }
    }
}

impl FileType {
    /// The file name's extension, before `.gz`.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Csv => "csv",
            Self::Jsonl => "jsonl",
            Self::Parquet => "parquet",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::Json => "application/json",
            Self::Csv => "text/csv",
            Self::Jsonl => "application/x-ndjson",
            Self::Parquet => "application/vnd.apache.parquet",
        }
    }

    /// Parquet compresses its own pages; gzip applies to the text formats only.
    pub fn gzipped(self, compressed: bool) -> bool {
        compressed && self != Self::Parquet
    }
}

impl Source {
    /// Whether a deployment in `mode` fills every table this source reads: the legacy portion
    /// needs the v3 tables (`legacy`, `dual`), the enriched one the events (`dual`,
    /// `events_only`). A source that is not served is refused, never exported empty.
    pub fn served_in(self, mode: domain::config::WriteMode) -> bool {
        let legacy = mode.writes_legacy_tables();
        let events = mode.writes_events_tables();
        match self {
            Self::LegacyTracesObservations => legacy,
            Self::ObservationsV2 => events,
            Self::LegacyTracesAndEnrichedObservations => legacy && events,
        }
    }

    /// The default on create: the legacy source where the v3 tables are written, else v2.
    pub fn default_for(mode: domain::config::WriteMode) -> Self {
        if mode.writes_legacy_tables() { Self::LegacyTracesObservations } else { Self::ObservationsV2 }
    }
}

/// `PUT /api/public/integrations/blob-storage` (`CreateBlobStorageIntegrationRequest`).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpsertRequest {
    pub project_id: String,
    #[serde(rename = "type")]
    pub kind: TargetType,
    pub bucket_name: String,
    #[serde(default)]
    pub endpoint: Option<String>,
    pub region: String,
    #[serde(default)]
    pub access_key_id: Option<String>,
    #[serde(default)]
    pub secret_access_key: Option<String>,
    #[serde(default)]
    pub prefix: Option<String>,
    pub export_frequency: Frequency,
    pub enabled: bool,
    pub force_path_style: bool,
    pub file_type: FileType,
    pub export_mode: Mode,
    #[serde(default)]
    pub export_start_date: Option<DateTime<Utc>>,
    #[serde(default)]
    pub compressed: Option<bool>,
    #[serde(default)]
    pub export_source: Option<Source>,
    #[serde(default)]
    pub export_field_groups: Option<Vec<FieldGroup>>,
}

/// `BlobStorageIntegrationResponse`. The secret is never answered.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationBody {
    /// The project id: a project has at most one integration.
    pub id: String,
    pub project_id: String,
    #[serde(rename = "type")]
    pub kind: TargetType,
    pub bucket_name: String,
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: Option<String>,
    pub prefix: String,
    pub export_frequency: Frequency,
    pub enabled: bool,
    pub force_path_style: bool,
    pub file_type: FileType,
    pub export_mode: Mode,
    pub export_start_date: Option<DateTime<Utc>>,
    pub compressed: bool,
    pub export_source: Source,
    pub export_field_groups: Vec<FieldGroup>,
    pub next_sync_at: Option<DateTime<Utc>>,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `BlobStorageIntegrationsResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct IntegrationsBody {
    pub data: Vec<IntegrationBody>,
}

/// `BlobStorageIntegrationStatusResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusBody {
    pub id: String,
    pub project_id: String,
    pub sync_status: SyncStatus,
    pub enabled: bool,
    /// End of the last window exported (exclusive).
    pub last_sync_at: Option<DateTime<Utc>>,
    pub next_sync_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
}

/// `BlobStorageIntegrationDeletionResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletionBody {
    pub message: String,
}
