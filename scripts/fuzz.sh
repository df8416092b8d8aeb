#!/usr/bin/env bash
# Fuzzes the ingestion decoders and conversion (fuzz/: cargo-fuzz + libFuzzer) on the stable
# toolchain, one target after another, each for SECONDS; a crash, a panic, a stack overflow, an
# input slower than 10 s or over 2 GB of memory fails the run with the input saved under
# fuzz/artifacts/<target>/ (replay it with `cargo fuzz run --sanitizer none <target> <file>`).
#
#   scripts/fuzz.sh [all|TARGET] [SECONDS] [libFuzzer args...]
#
# Corpora live in fuzz/corpus/<target>/ (not committed), seeded from the SDK captures.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(otlp_protobuf otlp_json batch convert)
target="${1:-all}"
seconds="${2:-60}"
shift $(($# < 2 ? $# : 2))
if [ "$target" != all ]; then
    [[ " ${targets[*]} " == *" $target "* ]] || { echo "unknown fuzz target $target (${targets[*]})" >&2; exit 2; }
    targets=("$target")
fi

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# Its own build directory: the instrumented build shares no artifact with the normal one.
target_dir="${CARGO_TARGET_DIR:-$PWD/target}/fuzz"
# No sanitizer: the code under test is safe Rust, and without one cargo-fuzz passes rustc only
# stable flags, so this runs where only the stable toolchain is installed (CI).
fuzz=(cargo fuzz run --fuzz-dir fuzz --sanitizer none --target-dir "$target_dir")

captures=../shared/fixtures/sdk-captures
if [ -d "$captures" ]; then
    python3 scripts/fuzz_seeds.py "$captures" fuzz/corpus
else
    echo "no SDK captures at $captures: fuzzing from empty corpora" >&2
fi

for name in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$name"
    dict=()
    case "$name" in
        otlp_*) dict=(-dict="$PWD/fuzz/dict/otlp.dict") ;;
        batch) dict=(-dict="$PWD/fuzz/dict/batch.dict") ;;
    esac
    echo "== fuzz $name for ${seconds}s"
    "${fuzz[@]}" "$name" "fuzz/corpus/$name" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" "$@"
done
