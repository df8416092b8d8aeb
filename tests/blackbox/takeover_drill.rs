//! The takeover drill, small, so that a break in the switch procedure fails CI: `just
//! drill-takeover` runs the same script (`tools/drill/takeover.py`) over thousands of traces. Here,
//! over this test's own databases and a v3 database built from the fixture: 300 historic traces
//! written by a v3 stand-in, v3 stopped, `worker import-langfuse`, Loupe in `dual` under traffic
//! with v3's key (Python SDK and OTLP) while the backfill runs and its worker is SIGKILLed once,
//! `events_only`, `verify-migration` with 0 mismatches, no sent trace missing, the v3 tables'
//! historic rows unchanged, and the history read back with v3's key.

use std::process::Stdio;
use std::time::Duration;

use test_support::{TestClickHouse, TestPostgres, langfuse_v3, stack_env};
use tokio::process::Command;

use crate::apps::{binary, free_port};

/// The script's own limit: at expiry `timeout` sends SIGTERM, on which the drill stops the web and
/// worker it started and exits. Alone the drill takes about 20 s; this leaves room for a loaded CI.
const DRILL_LIMIT_SECONDS: u64 = 200;

#[tokio::test]
async fn a_v3_deployment_is_taken_over_under_traffic_with_nothing_lost() {
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let source = langfuse_v3::source().await;
    let env_file = std::env::temp_dir().join(format!("loupe-takeover-drill-{}.env", ch.database));
    let env: String = stack_env(&pg, &ch).iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    std::fs::write(&env_file, env).unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let bin_dir = binary("worker").parent().unwrap().to_owned();
    let ports = format!("{},{},{}", free_port(), free_port(), free_port());

    let drill = Command::new("timeout")
        .arg(DRILL_LIMIT_SECONDS.to_string())
        .arg(format!("{root}/.local/venv/bin/python"))
        .arg(format!("{root}/tools/drill/takeover.py"))
        .args(["--traces", "300", "--kills", "1", "--given-databases", "--v3-database-url", &source.url])
        .arg("--bin-dir")
        .arg(&bin_dir)
        .arg("--env")
        .arg(&env_file)
        .args(["--ports", &ports])
        .current_dir(root)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(DRILL_LIMIT_SECONDS + 10), drill)
        .await
        .expect("the drill outlived its own limit")
        .expect("`just test` installs the Python venv the drill runs in");
    let _ = std::fs::remove_file(&env_file);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the takeover drill failed ({}):\n{stdout}\n{stderr}", output.status);
    for line in [
        "mismatches: 0",
        "missing from v4: 0 []",
        "worker kills during the backfill: 1",
        "v3 tables' historic rows unchanged: yes",
        "re-run changed nothing",
        "takeover drill: passed",
    ] {
        assert!(stdout.contains(line), "expected {line:?} in the drill's output:\n{stdout}");
    }
    // Every check of verify-migration looked at rows: a drill over empty tables proves nothing.
    let checks: Vec<&str> = stdout.lines().filter(|l| l.contains(" checked ")).collect();
    assert_eq!(checks.len(), 5, "{stdout}");
    for check in checks {
        let checked: u64 =
            check.split(" checked ").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert!(checked > 0, "{check}\n{stdout}");
    }
}
