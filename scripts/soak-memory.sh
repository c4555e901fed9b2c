#!/usr/bin/env bash
# Memory soak: long simulated runs at iodepth=1 (the drive drains after every command) must keep
# RSS flat. Runs QD1 4 KiB random read and random write for SIM_TIME of simulated time each,
# samples the process RSS every few wall seconds, and prints first/last/max RSS per run.
#
# Usage: scripts/soak-memory.sh [DRIVE] [SIM_TIME] [SAMPLE_SECONDS]
#   DRIVE           profile (default tiny: the fastest to simulate)
#   SIM_TIME        fio runtime (default 1h)
#   SAMPLE_SECONDS  RSS sampling period, wall seconds (default 5)
# Not part of CI: it takes minutes. Build first: cargo build --release.
set -euo pipefail

DRIVE=${1:-tiny}
SIM=${2:-1h}
EVERY=${3:-5}
BIN=${SSDLAB:-$(dirname "$0")/../target/release/ssdlab}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for rw in randread randwrite; do
    printf '[soak]\nrw=%s\nbs=4k\niodepth=1\ntime_based\nruntime=%s\n' "$rw" "$SIM" > "$WORK/$rw.fio"
    start=$(date +%s)
    "$BIN" run "$WORK/$rw.fio" --drive "$DRIVE" --output-format json --output "$WORK/$rw.json" &
    pid=$!
    rss=()
    while kill -0 "$pid" 2>/dev/null; do
        kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$kb" ] && rss+=("$kb")
        sleep "$EVERY"
    done
    wait "$pid"
    wall=$(( $(date +%s) - start ))
    ios=$(grep -o '"total_ios": [0-9]*' "$WORK/$rw.json" | awk '{s += $2} END {print s}')
    max=0
    for r in "${rss[@]}"; do (( r > max )) && max=$r; done
    echo "$rw QD1 on $DRIVE, $SIM simulated: $ios I/Os in ${wall} s wall; RSS first ${rss[0]:-?} KiB, last ${rss[-1]:-?} KiB, max ${max} KiB over ${#rss[@]} samples"
done
