//! How busy the whole machine was during a phase, and who kept it busy: web, worker, this bench,
//! and the rest (on a machine running the whole stack, the stores). An acknowledgement p99 measured
//! while every core is busy says more about the machine than about web, so `ingest` prints this
//! beside it. Linux only (`/proc`); elsewhere the line is left out.

use crate::processes::{USER_HZ, cpu_seconds_of};

/// CPU time so far: the machine's busy time over all cores, and that of the processes we name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuSnapshot {
    /// Busy seconds summed over every core since boot.
    machine: f64,
    cores: usize,
    web: f64,
    worker: f64,
    bench: f64,
}

impl CpuSnapshot {
    /// Now, for `web` and `worker` (their pids); `None` where `/proc` cannot say.
    pub fn take(web: Option<u32>, worker: Option<u32>) -> Option<Self> {
        let (machine, cores) = machine_busy_seconds(&std::fs::read_to_string("/proc/stat").ok()?)?;
        Some(Self {
            machine,
            cores,
            web: cpu_seconds_of(web?)?,
            worker: cpu_seconds_of(worker?)?,
            bench: cpu_seconds_of(std::process::id())?,
        })
    }

    /// The cores each used on average over `seconds` since `earlier`, as one line.
    pub fn describe_since(&self, earlier: &CpuSnapshot, seconds: f64) -> String {
        let cores = |now: f64, then: f64| (now - then) / seconds;
        let busy = cores(self.machine, earlier.machine);
        let (web, worker, bench) = (
            cores(self.web, earlier.web),
            cores(self.worker, earlier.worker),
            cores(self.bench, earlier.bench),
        );
        format!(
            "machine           busy {busy:.2} of {} cores: web {web:.2}, worker {worker:.2}, this bench {bench:.2}, the rest {:.2} (the stores)",
            self.cores,
            (busy - web - worker - bench).max(0.0)
        )
    }
}

/// Busy seconds over all cores and the number of cores, from the text of `/proc/stat`: the
/// `cpu` line's user, nice, system, irq, softirq and steal ticks (idle and iowait are not busy).
fn machine_busy_seconds(stat: &str) -> Option<(f64, usize)> {
    let total = stat.lines().find(|line| line.starts_with("cpu "))?;
    let ticks: Vec<f64> = total.split_whitespace().skip(1).map(|t| t.parse().ok()).collect::<Option<_>>()?;
    let busy = [0, 1, 2, 5, 6, 7].iter().map(|&i| ticks.get(i).copied().unwrap_or(0.0)).sum::<f64>();
    let cores = stat.lines().filter(|line| line.starts_with("cpu") && !line.starts_with("cpu ")).count();
    Some((busy / USER_HZ, cores))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const STAT: &str = "\
cpu  100 20 30 5000 40 6 7 8 0 0
cpu0 50 10 15 2500 20 3 4 4 0 0
cpu1 50 10 15 2500 20 3 3 4 0 0
intr 12345
ctxt 678
";

    #[test]
    fn busy_time_leaves_out_idle_and_iowait_and_counts_the_cores() {
        // user 100 + nice 20 + system 30 + irq 6 + softirq 7 + steal 8 = 171 ticks.
        assert_eq!(machine_busy_seconds(STAT), Some((1.71, 2)));
        assert_eq!(machine_busy_seconds("intr 1\n"), None);
    }

    #[test]
    fn a_phase_is_split_between_web_worker_the_bench_and_the_rest() {
        let before = CpuSnapshot { machine: 10.0, cores: 2, web: 1.0, worker: 2.0, bench: 0.5 };
        let after = CpuSnapshot { machine: 19.5, cores: 2, web: 2.25, worker: 3.0, bench: 1.15 };
        assert_eq!(
            after.describe_since(&before, 5.0),
            "machine           busy 1.90 of 2 cores: web 0.25, worker 0.20, this bench 0.13, the rest 1.32 (the stores)"
        );
    }
}
