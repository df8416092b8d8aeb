//! Whole month partitions dropped without losing a row written into the month meanwhile.
//!
//! Between the check that every project in a partition lets it go and the drop, a project that
//! keeps its data may write a row backdated into that month (a late SDK flush, an import). So the
//! partition is not dropped where it lies: it is moved (`MOVE PARTITION … TO TABLE`, its parts at
//! once) into the table's holding table, looked at again there, the rows of any project that keeps
//! them copied back, and only then dropped. A row written before the move is seen by that second
//! look; a row written after it lands in a new part of the table and is never touched.
//!
//! A drop that stopped half-way (crash, lost lease) leaves its partition in the holding table; the
//! next pass settles it the same way before anything else, so nothing waits there for good.

use chrono::{DateTime, Utc};

use storage::clickhouse::retention as ch;

use super::plan::{self, Cutoffs, droppable};
use super::{Dropped, PassReport, Retention, count};

impl Retention {
    /// Drops the month partitions of `table` that no project keeps; per project, the rows and
    /// partitions that went. A failure is logged and counted: the rows are then removed by the
    /// lightweight deletes that follow.
    pub(super) async fn drop_partitions(
        &self,
        table: &'static str,
        cutoffs: &Cutoffs,
        now: DateTime<Utc>,
        report: &mut PassReport,
    ) -> Dropped {
        let mut dropped = Dropped::new();
        let outcome: storage::Result<()> = async {
            for held in ch::held_partitions(&self.clickhouse, table).await? {
                tracing::info!(table, partition = %held.partition_id, "retention settles a partition a stopped pass left held");
                self.settle(table, &held.partition_id, cutoffs, now, &mut dropped, report).await?;
            }
            let mut holding_ready = false;
            for partition in ch::partitions(&self.clickhouse, table).await? {
                if !plan::old_enough(&partition.partition_id, now) {
                    continue;
                }
                let rows = ch::partition_projects(&self.clickhouse, table, &partition.partition_id).await?;
                let projects: Vec<String> = rows.iter().map(|r| r.project_id.clone()).collect();
                if !droppable(&partition.partition_id, &projects, cutoffs, now) {
                    continue;
                }
                if !holding_ready {
                    ch::create_holding_table(&self.clickhouse, table).await?;
                    holding_ready = true;
                }
                if let Some(hook) = &self.before_move {
                    hook(table, partition.partition_id.clone()).await;
                }
                ch::move_to_holding(&self.clickhouse, table, &partition.partition_id).await?;
                self.settle(table, &partition.partition_id, cutoffs, now, &mut dropped, report).await?;
                tokio::time::sleep(self.settings.pause).await;
            }
            Ok(())
        }
        .await;
        if let Err(error) = outcome {
            report.errors += 1;
            tracing::warn!(table, %error, "retention could not drop partitions; deleting rows instead");
        }
        dropped
    }

    /// A held partition: the rows of projects that keep them go back into `table`, the rest is
    /// dropped with the partition.
    async fn settle(
        &self,
        table: &'static str,
        partition_id: &str,
        cutoffs: &Cutoffs,
        now: DateTime<Utc>,
        dropped: &mut Dropped,
        report: &mut PassReport,
    ) -> storage::Result<()> {
        let held = ch::held_projects(&self.clickhouse, table, partition_id).await?;
        let (gone, kept): (Vec<_>, Vec<_>) = held
            .into_iter()
            .partition(|row| droppable(partition_id, std::slice::from_ref(&row.project_id), cutoffs, now));
        if !kept.is_empty() {
            let projects: Vec<String> = kept.iter().map(|r| r.project_id.clone()).collect();
            tracing::info!(table, partition = partition_id, projects = ?projects,
                "retention copies back rows written into a month while it was being dropped");
            ch::copy_back(&self.clickhouse, table, partition_id, &projects).await?;
        }
        ch::drop_held(&self.clickhouse, table, partition_id).await?;
        let rows: u64 = gone.iter().map(|r| r.rows).sum();
        tracing::info!(table, partition = partition_id, projects = ?gone.iter().map(|r| &r.project_id).collect::<Vec<_>>(),
            rows, "retention dropped a month partition");
        report.partitions_dropped += 1;
        for row in gone {
            let entry = dropped.entry(row.project_id).or_default();
            entry.0 += count(row.rows);
            entry.1 += 1;
        }
        Ok(())
    }
}
