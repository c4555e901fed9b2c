#!/bin/sh
# Replay speed: writes a synthetic MSR Cambridge trace of N records (default 10 M; 4-64 KiB,
# 30% reads, random 4 KiB-aligned offsets over 16 GiB, 10 us apart), replays it closed loop at
# QD32 on generic-tlc and prints records per wall second and the peak RSS (GNU time).
# Usage: scripts/bench-replay.sh [N] [extra replay flags...]   (needs a release build)
set -eu
n=${1:-10000000}
[ $# -gt 0 ] && shift
bin=${SSDLAB:-target/release/ssdlab}
dir=${TMPDIR:-/tmp}/ssdlab-bench-replay
mkdir -p "$dir"
trace="$dir/msr-$n.csv"
if [ ! -s "$trace" ]; then
    awk -v n="$n" 'BEGIN {
        srand(42); t = 128166372000000000;
        for (i = 0; i < n; i++) {
            op = (rand() < 0.3) ? "Read" : "Write";
            off = int(rand() * 4194304) * 4096;
            size = 4096 * (1 + int(rand() * rand() * 16));
            printf "%.0f,bench,0,%s,%.0f,%d,100\n", t + i * 100, op, off, size;
        }
    }' > "$trace"
fi
start=$(date +%s.%N)
/usr/bin/time -f "peak RSS %M KiB, wall %e s, user %U s, sys %S s" "$bin" replay "$trace" --format msr --drive generic-tlc --scale 1/1024 \
    --mode closed --qd 32 --output-format json --output "$dir/result.json" "$@"
end=$(date +%s.%N)
awk -v n="$n" -v a="$start" -v b="$end" 'BEGIN { printf "%d records in %.2f s: %.2f M records per wall second\n", n, b - a, n / (b - a) / 1e6 }'
