#!/usr/bin/env bash
# Compares fio (ioengine=io_uring, direct=1) with ssdlab's RealTarget on the same file:
# 4 KiB randread and randwrite at iodepth 32 over a 2 GiB file, time-based.
#
# Usage: scripts/compare-fio.sh [DIR] [SECONDS] [ROUNDS]
#   DIR      where the test file goes (default /tmp); must support O_DIRECT
#   SECONDS  per run (default 20)
#   ROUNDS   fio/ours pairs per workload, alternated to even out a noisy host (default 1)
set -euo pipefail

DIR=${1:-/tmp}
SECS=${2:-20}
ROUNDS=${3:-1}
SIZE=2g
BS=4k
QD=32
FILE="$DIR/ssdlab-compare-fio.$$.img"

if ! command -v fio >/dev/null; then
    echo "fio is not installed (apt-get install -y fio); nothing to compare" >&2
    exit 2
fi
trap 'rm -f "$FILE"' EXIT
cd "$(dirname "$0")/.."

cargo build --release -q -p host-bench --example real_randio

# Lay the file out once so both sides read and overwrite allocated blocks.
fio --name=layout --filename="$FILE" --size=$SIZE --rw=write --bs=1m --direct=1 \
    --ioengine=io_uring --iodepth=8 --output-format=terse >/dev/null

fio_iops() { # rw -> IOPS (terse v3: field 8 read IOPS, field 49 write IOPS)
    local field=8
    [ "$1" = randwrite ] && field=49
    fio --name=cmp --filename="$FILE" --ioengine=io_uring --direct=1 --rw="$1" --bs=$BS \
        --iodepth=$QD --size=$SIZE --time_based --runtime="$SECS" --norandommap \
        --randrepeat=0 --output-format=terse --terse-version=3 | cut -d';' -f$field
}

our_iops() { # rw -> IOPS
    cargo run --release -q -p host-bench --example real_randio -- \
        "$FILE" "$1" $BS $QD $SIZE "$SECS" | sed -n 's/.*iops=\([0-9]*\).*/\1/p'
}

printf '%-10s %5s %12s %12s %7s\n' rw round fio_iops ours_iops ratio
for rw in randread randwrite; do
    for round in $(seq 1 "$ROUNDS"); do
        f=$(fio_iops "$rw")
        o=$(our_iops "$rw")
        printf '%-10s %5s %12.0f %12.0f %7.3f\n' "$rw" "$round" "$f" "$o" \
            "$(awk -v o="$o" -v f="$f" 'BEGIN { print (f > 0 ? o / f : 0) }')"
    done
done
