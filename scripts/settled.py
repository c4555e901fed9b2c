#!/usr/bin/env python3
"""Settled figures of one job's time series: the rows after a number of drive writes.

Usage: scripts/settled.py RUN.json TS.JOB.csv [--after DRIVE_WRITES] [--last-fraction F]

RUN.json is the run's `--output-format json` (its simulated user capacity turns the series' write
bandwidth into drive writes); TS.JOB.csv is the job's `--timeseries` file. Rows are device seconds
at any scale. A trailing partial row (shorter than half the one before) is dropped. With
`--last-fraction F` the last F of the rows are used instead of a drive-write threshold (for a
time-based job such as a mix). Prints the rows used, mean IOPS (reads + writes), the per-row CoV,
the lowest row, mean WA, the median per-row p99 of writes and reads, and the zero-IOPS rows.
docs/scale.md, "Full-scale check, 2026-12-05", was computed with it.
"""
import argparse
import csv
import json
import statistics as st
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_json")
    ap.add_argument("series_csv")
    ap.add_argument("--after", type=float, default=0.6, help="drive writes before the settled part")
    ap.add_argument("--last-fraction", type=float, help="use the last fraction of the rows instead")
    a = ap.parse_args()
    user = json.load(open(a.run_json))["ssdlab"]["scale"]["user_capacity_bytes_simulated"]
    rows = list(csv.DictReader(open(a.series_csv)))
    t = [float(r["time_s"]) for r in rows]
    if len(rows) > 2 and (t[-1] - t[-2]) < 0.5 * (t[-2] - t[-3]):
        rows, t = rows[:-1], t[:-1]
    if a.last_fraction is not None:
        seg = rows[int(len(rows) * (1.0 - a.last_fraction)):]
        label = f"last {a.last_fraction:g} of the rows"
    else:
        seg, written, prev = [], 0.0, 0.0
        for r, end in zip(rows, t):
            if written / user >= a.after:
                seg.append(r)
            written += float(r["write_bw_mbps"]) * 1e6 * (end - prev)
            prev = end
        label = f"after {a.after:g} drive writes"
    if not seg:
        print(f"{a.series_csv}: no rows {label}", file=sys.stderr)
        return 2
    iops = [float(r["read_iops"]) + float(r["write_iops"]) for r in seg]
    mean = st.mean(iops)
    cov = st.pstdev(iops) / mean * 100 if mean else float("nan")
    med = lambda k: st.median(float(r[k]) for r in seg)
    print(
        f"{a.series_csv}, {label}: {len(seg)} rows, IOPS {mean:,.0f} (reads {st.mean(float(r['read_iops']) for r in seg):,.0f}), "
        f"CoV {cov:.2f}%, lowest {min(iops):,.0f}, WA {st.mean(float(r['wa']) for r in seg):.3f}, "
        f"median p99 write {med('write_lat_p99_us'):.0f} us / read {med('read_lat_p99_us'):.0f} us, "
        f"zero-IOPS rows {sum(1 for x in iops if x == 0)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
