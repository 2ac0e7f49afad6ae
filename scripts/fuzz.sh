#!/usr/bin/env bash
# Runs every libFuzzer target named on the command line (fuzz_NAME, built
# in build-fuzz/tests) from its seed corpus tests/corpus/NAME, for
# FUZZ_SECONDS in all, shared out evenly. New inputs go to
# build-fuzz/corpus/NAME. A crash, sanitizer report, leak, time-out or
# memory blow-up stops that target with a non-zero exit; the script then
# fails after running the rest. Prints a line per target and the total of
# executions last.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/fuzz.sh NAME..." >&2; exit 2; }
seconds=${FUZZ_SECONDS:-210}
each=$(( seconds / $# ))
[ "$each" -ge 1 ] || each=1
status=0
total=0
for name in "$@"; do
    bin=build-fuzz/tests/fuzz_$name
    work=build-fuzz/corpus/$name
    log=build-fuzz/fuzz_$name.log
    mkdir -p "$work" "build-fuzz/artifacts/$name"
    "$bin" -max_total_time="$each" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="build-fuzz/artifacts/$name/" "$work" "tests/corpus/$name" > "$log" 2>&1
    rc=$?
    runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -n 1)
    runs=${runs:-0}
    total=$(( total + runs ))
    if [ $rc -eq 0 ]; then
        printf 'fuzz_%-12s %10d executions in %ds: no failure\n' "$name" "$runs" "$each"
    else
        status=1
        printf 'fuzz_%-12s FAILED (exit %d) after %d executions; its log, %s, ends:\n' "$name" "$rc" "$runs" "$log"
        tail -n 30 "$log"
    fi
done
printf 'fuzzing: %d executions over %d targets\n' "$total" "$#"
exit $status
