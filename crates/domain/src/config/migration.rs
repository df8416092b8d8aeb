//! The v3 → v4 migration switches (spec/v4-migration-spec.md §3.1, §3.2, §9.5) and the rules that tie them together.

use std::fmt;
use std::time::Duration;

use super::catalog::{
    ALLOW_PREVIEW_OPT_IN, DROP_PID_TID_SORTING_TABLES, ENABLE_HISTORIC_BACKFILL, NATIVE_OTEL_BEHAVIOUR,
    STUCK_THRESHOLD_MINUTES, WRITE_MODE,
};
use super::vars::{Problems, Vars};

/// Which tables ingestion writes (spec/v4-migration-spec.md §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// v3 tables only; the v4 tables are not written.
    Legacy,
    /// v3 tables and v4 tables.
    Dual,
    /// v4 tables only; deprecated endpoints answer 404.
    EventsOnly,
}

impl WriteMode {
    pub const ALL: [WriteMode; 3] = [WriteMode::Legacy, WriteMode::Dual, WriteMode::EventsOnly];

    pub fn as_str(self) -> &'static str {
        match self {
            WriteMode::Legacy => "legacy",
            WriteMode::Dual => "dual",
            WriteMode::EventsOnly => "events_only",
        }
    }

    pub fn writes_legacy_tables(self) -> bool {
        self != WriteMode::EventsOnly
    }

    pub fn writes_events_tables(self) -> bool {
        self != WriteMode::Legacy
    }
}

/// How OTel spans without `x-langfuse-ingestion-version: 4` reach the v4 tables (spec/v4-migration-spec.md §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtelBehaviour {
    /// Through the staging table and the propagation job (server-side trace attributes).
    DualWrite,
    /// Straight into `events_full`; the client propagates trace attributes.
    Direct,
}

impl OtelBehaviour {
    pub const ALL: [OtelBehaviour; 2] = [OtelBehaviour::DualWrite, OtelBehaviour::Direct];

    pub fn as_str(self) -> &'static str {
        match self {
            OtelBehaviour::DualWrite => "dual_write",
            OtelBehaviour::Direct => "direct",
        }
    }
}

impl fmt::Display for WriteMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for OtelBehaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationSettings {
    pub write_mode: WriteMode,
    pub otel_behaviour: OtelBehaviour,
    pub allow_preview_opt_in: bool,
    pub enable_historic_backfill: bool,
    pub drop_pid_tid_sorting_tables: bool,
    pub propagation_stuck_threshold: Duration,
}

impl MigrationSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let write_mode = vars.choice(WRITE_MODE, &WriteMode::ALL, WriteMode::as_str, problems);
        let otel =
            vars.optional_choice(NATIVE_OTEL_BEHAVIOUR, &OtelBehaviour::ALL, OtelBehaviour::as_str, problems);
        let allow_preview_opt_in = vars.bool(ALLOW_PREVIEW_OPT_IN, problems);
        let backfill = vars.optional_bool(ENABLE_HISTORIC_BACKFILL, problems);
        let drop_pid_tid_sorting_tables = vars.bool(DROP_PID_TID_SORTING_TABLES, problems);
        let threshold = vars.positive_integer(STUCK_THRESHOLD_MINUTES, problems);
        let (write_mode, otel, allow_preview_opt_in, backfill, drop_pid_tid_sorting_tables, threshold) =
            (write_mode?, otel?, allow_preview_opt_in?, backfill?, drop_pid_tid_sorting_tables?, threshold?);

        let before = problems.len();
        if write_mode == WriteMode::Legacy && otel == Some(OtelBehaviour::Direct) {
            problems.combination(
                &[WRITE_MODE, NATIVE_OTEL_BEHAVIOUR],
                "`direct` writes OTel spans to events_full, which legacy mode neither writes nor reads; \
                 use `dual_write` (the legacy default) or switch to `dual`",
            );
        }
        if write_mode == WriteMode::Legacy && backfill == Some(true) {
            problems.combination(
                &[WRITE_MODE, ENABLE_HISTORIC_BACKFILL],
                "the historic backfill must be disabled in legacy mode (spec §3.1); \
                 enable it after switching to `dual` and confirming dual write is healthy",
            );
        }
        if write_mode == WriteMode::EventsOnly && otel == Some(OtelBehaviour::DualWrite) {
            problems.combination(
                &[WRITE_MODE, NATIVE_OTEL_BEHAVIOUR],
                "`dual_write` stages spans for the legacy tables, which events_only no longer writes; use `direct`",
            );
        }
        if write_mode == WriteMode::EventsOnly && !allow_preview_opt_in {
            problems.combination(
                &[WRITE_MODE, ALLOW_PREVIEW_OPT_IN],
                "events_only serves reads only from the v4 APIs, which the opt-in flag would disable; set it to `true`",
            );
        }
        if problems.len() > before {
            return None;
        }

        let legacy = write_mode == WriteMode::Legacy;
        Some(Self {
            write_mode,
            otel_behaviour: otel.unwrap_or(if legacy {
                OtelBehaviour::DualWrite
            } else {
                OtelBehaviour::Direct
            }),
            allow_preview_opt_in,
            enable_historic_backfill: backfill.unwrap_or(!legacy),
            drop_pid_tid_sorting_tables,
            propagation_stuck_threshold: Duration::from_secs(threshold * 60),
        })
    }
}
