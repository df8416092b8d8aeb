//! The worker's scheduled exports. Every poll it claims the most overdue enabled integration (a
//! lease in PostgreSQL, so two workers never write the same window), plans its window
//! ([`crate::schedule`]), writes it down, streams each file of the source to the bucket and only
//! then records the window as done. A crash anywhere before that record leaves the planned window
//! in place: the next run (after the lease runs out) writes the same window under the same object
//! names again, and an upload never completed leaves no object — no gap, no duplicate.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use domain::config::WriteMode;
use domain::outbound::OutboundPolicy;
use domain::secrets::EncryptionKey;
use object_store::ObjectStore;
use sqlx::PgPool;
use storage::clickhouse::ClickHouse;
use tokio_util::sync::CancellationToken;

use crate::format::FileWriter;
use crate::model::{FieldGroup, FileType, Frequency, Source, TargetType};
use crate::schedule::{self, Plan};
use crate::source::{CHUNK_ROWS, Part, Reader};
use crate::store::{self, IntegrationRow};
use crate::target::{self, TargetSettings, Upload};
use crate::{Error, Result};

/// A failed run is tried again after this.
const RETRY_AFTER: chrono::Duration = chrono::Duration::minutes(5);
/// A source the write mode cannot serve is looked at again after this (the mode only changes
/// with a restart, and the operator sees the error meanwhile).
const UNSERVED_RETRY: chrono::Duration = chrono::Duration::hours(1);
const RENEW_EVERY: Duration = Duration::from_secs(30);

/// Where a test makes a run stop as a crash would: nothing recorded after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashAt {
    /// After this many chunks of the window's first file were uploaded as parts.
    AfterChunks(usize),
    /// After every file of the window was completed, before the window is recorded as done.
    BeforeCompletion,
}

#[derive(Clone)]
pub struct ScheduledExports {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub encryption_key: Option<EncryptionKey>,
    pub write_mode: WriteMode,
    /// Which endpoints the targets may reach (`LANGFUSE_OUTBOUND_ALLOWED_HOSTS`), checked at each
    /// run: a saved endpoint whose name now resolves to a refused address fails the run.
    pub policy: OutboundPolicy,
    /// This worker's name in leases.
    pub holder: String,
    /// How often it looks for due integrations when none was.
    pub poll: Duration,
    pub chunk_rows: i64,
    /// Tests only: stop there, as a crash would.
    pub crash: Option<CrashAt>,
}

/// What one turn did.
#[derive(Debug, PartialEq, Eq)]
pub enum Turn {
    Idle,
    /// A window exported: the project and how many rows.
    Exported {
        project_id: String,
        rows: u64,
    },
    Postponed,
    Failed(String),
}

impl ScheduledExports {
    pub fn new(postgres: PgPool, clickhouse: ClickHouse, holder: String) -> Self {
        Self {
            postgres,
            clickhouse,
            encryption_key: None,
            write_mode: WriteMode::Legacy,
            policy: OutboundPolicy::default(),
            holder,
            poll: Duration::from_secs(10),
            chunk_rows: CHUNK_ROWS,
            crash: None,
        }
    }

    pub async fn run(self, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            let idle = match self.run_once().await {
                Ok(Turn::Idle) => true,
                Ok(_) => false,
                Err(error) => {
                    tracing::warn!(%error, "scheduled export");
                    true
                }
            };
            if idle {
                tokio::select! {
                    () = shutdown.cancelled() => {}
                    () = tokio::time::sleep(self.poll) => {}
                }
            }
        }
    }

    /// Claims one due integration and exports its next window (or postpones it).
    pub async fn run_once(&self) -> Result<Turn> {
        let Some(row) = store::claim_due(&self.postgres, &self.holder).await? else {
            return Ok(Turn::Idle);
        };
        match self.export(&row).await {
            Ok(turn) => Ok(turn),
            Err(Error::Internal(message)) if message == CRASHED => Err(Error::Internal(message)),
            Err(error) => {
                let message = error.to_string();
                let retry = if matches!(error, Error::BadRequest(_)) { UNSERVED_RETRY } else { RETRY_AFTER };
                tracing::warn!(project_id = %row.project_id, %message, "scheduled export failed");
                store::fail(&self.postgres, &row.project_id, &self.holder, &message, Utc::now() + retry)
                    .await?;
                Ok(Turn::Failed(message))
            }
        }
    }

    async fn export(&self, row: &IntegrationRow) -> Result<Turn> {
        let bad = |what: &str, value: &str| Error::Internal(format!("stored {what} {value:?} is unknown"));
        let source = Source::parse(&row.export_source).ok_or_else(|| bad("source", &row.export_source))?;
        let frequency =
            Frequency::parse(&row.export_frequency).ok_or_else(|| bad("frequency", &row.export_frequency))?;
        let file_type = FileType::parse(&row.file_type).ok_or_else(|| bad("file type", &row.file_type))?;
        let kind = TargetType::parse(&row.kind).ok_or_else(|| bad("type", &row.kind))?;
        let groups: Vec<FieldGroup> =
            row.export_field_groups.iter().filter_map(|g| FieldGroup::parse(g)).collect();
        if !source.served_in(self.write_mode) {
            return Err(Error::bad_request(unserved_message(source, self.write_mode)));
        }
        let now = Utc::now();
        let period = frequency.period();
        let (from, end) =
            match schedule::plan(row.start_at, row.last_sync_at, row.pending_window_end, period, now) {
                Plan::Wait(at) => {
                    store::postpone(&self.postgres, &row.project_id, &self.holder, at).await?;
                    return Ok(Turn::Postponed);
                }
                Plan::Window { from, end } => (from, end),
            };
        let secret = match (&row.secret_access_key, &self.encryption_key) {
            (None, _) => None,
            (Some(stored), Some(key)) => {
                Some(key.decrypt(stored).map_err(|e| Error::Internal(format!("the stored secret: {e}")))?)
            }
            (Some(_), None) => {
                return Err(Error::Internal(
                    "ENCRYPTION_KEY is not set: the integration's secret cannot be decrypted".into(),
                ));
            }
        };
        let store = target::connect(
            &TargetSettings {
                kind,
                bucket: row.bucket_name.clone(),
                endpoint: row.endpoint.clone(),
                region: row.region.clone(),
                access_key_id: row.access_key_id.clone(),
                secret,
                force_path_style: row.force_path_style,
            },
            &self.policy,
        )?;
        if !store::plan_window(&self.postgres, &row.project_id, &self.holder, end).await? {
            return Ok(Turn::Postponed);
        }
        let gzip = file_type.gzipped(row.compressed);
        let mut renewed = Instant::now();
        let mut rows = 0;
        for (index, part) in Part::of(source).iter().enumerate() {
            let name =
                schedule::object_name(&row.prefix, &row.project_id, part.kind(), from, end, file_type, gzip);
            let file = File { store: &store, name: &name, part: *part, file_type, gzip, groups: &groups };
            rows += self.write_file(&row.project_id, file, (from, end), index == 0, &mut renewed).await?;
        }
        if self.crash == Some(CrashAt::BeforeCompletion) {
            return Err(Error::Internal(CRASHED.into()));
        }
        let next = schedule::next_after(end, period, Utc::now());
        store::complete_window(&self.postgres, &row.project_id, &self.holder, end, next).await?;
        tracing::info!(project_id = %row.project_id, %from, %end, rows, "exported a window");
        Ok(Turn::Exported { project_id: row.project_id.clone(), rows })
    }

    async fn write_file(
        &self,
        project_id: &str,
        file: File<'_>,
        window: (chrono::DateTime<Utc>, chrono::DateTime<Utc>),
        first: bool,
        renewed: &mut Instant,
    ) -> Result<u64> {
        let mut upload = Upload::start(file.store.as_ref(), file.name, file.file_type.content_type()).await?;
        let mut reader = Reader::new(&self.clickhouse, project_id, file.part, window, file.groups);
        reader.chunk_rows = self.chunk_rows;
        let written = async {
            let mut writer = FileWriter::new(file.file_type, file.gzip, file.part.columns(file.groups))?;
            let mut chunks = 0;
            while let Some(rows) = reader.next_chunk().await? {
                writer.write_rows(&rows)?;
                upload.write(&writer.take_bytes()).await?;
                chunks += 1;
                if first && self.crash == Some(CrashAt::AfterChunks(chunks)) {
                    return Err(Error::Internal(CRASHED.into()));
                }
                if renewed.elapsed() > RENEW_EVERY {
                    if !store::renew(&self.postgres, project_id, &self.holder).await? {
                        return Err(Error::Internal("the export's lease was lost".into()));
                    }
                    *renewed = Instant::now();
                }
            }
            let rows = writer.rows();
            upload.write(&writer.finish()?).await?;
            Ok(rows)
        }
        .await;
        match written {
            Ok(rows) => {
                upload.finish().await?;
                Ok(rows)
            }
            // A crash leaves the upload as it is; an error cleans it up.
            Err(Error::Internal(message)) if message == CRASHED => Err(Error::Internal(message)),
            Err(error) => {
                upload.abort().await;
                Err(error)
            }
        }
    }
}

const CRASHED: &str = "stopped by the test's crash point";

struct File<'a> {
    store: &'a Arc<dyn ObjectStore>,
    name: &'a str,
    part: Part,
    file_type: FileType,
    gzip: bool,
    groups: &'a [FieldGroup],
}

/// Why a source is refused in a write mode (the API's 400 and the worker's recorded error).
pub fn unserved_message(source: Source, mode: WriteMode) -> String {
    let needs = match source {
        Source::LegacyTracesObservations => "the legacy traces and observations tables",
        Source::ObservationsV2 => "the enriched observations (events) tables",
        Source::LegacyTracesAndEnrichedObservations => "both the legacy tables and the events tables",
    };
    format!(
        "exportSource {} cannot be served: it reads {needs}, which this deployment does not populate in \
         write mode {}. See https://langfuse.com/docs/v4",
        source.as_str(),
        mode.as_str()
    )
}
