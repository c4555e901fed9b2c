#!/usr/bin/env python3
"""Steady-state spread of a FOB curve: per-second and per-minute IOPS CoV after 1 drive write.

Usage: scripts/fob-cov.py [--windows] DIR/fob.csv [...]   (from `ssdlab fob --out DIR`)
Prints, for the part of the curve after 1 drive write: mean IOPS, population CoV of the
per-second write IOPS, zero-IOPS seconds, min/max, the CoV of whole-minute means and, at reduced
scale, the CoV per device second (the `write_iops_device_second` column: one value per span of
rows; spans that start before 1 drive write are left out).
"""
import csv
import statistics as st
import sys

args = sys.argv[1:]
windows = "--windows" in args
for path in (a for a in args if a != "--windows"):
    rows = [r for r in csv.DictReader(open(path)) if float(r["drive_writes"]) > 1.0]
    x = [float(r["write_iops"]) for r in rows]
    if len(x) < 120:
        sys.exit(f"{path}: fewer than 120 seconds after 1 drive write")
    mean = st.mean(x)
    minutes = [st.mean(x[i:i + 60]) for i in range(0, len(x) - 59, 60)]
    print(f"{path}: {len(x)} s after 1 drive write: mean {mean:,.0f} IOPS, "
          f"CoV per second {st.pstdev(x) / mean * 100:.1f}%, zero-IOPS seconds {sum(v == 0 for v in x)}, "
          f"min {min(x):,.0f}, max {max(x):,.0f}, CoV per minute {st.pstdev(minutes) / st.mean(minutes) * 100:.2f}%")
    col = "write_iops_device_second"
    if col in rows[0]:
        first = float(rows[0][col] or "nan")
        spans = []
        for r in rows:
            v = r[col]
            if v and float(v) != first and (not spans or spans[-1] != float(v)):
                spans.append(float(v))
        if len(spans) >= 2:
            print(f"  per device second: {len(spans)} spans, CoV {st.pstdev(spans) / st.mean(spans) * 100:.2f}%")
    if windows:
        cells = []
        for k in [1, 2, 4, 8, 16, 32, 64, 128]:
            w = [st.mean(x[i:i + k]) for i in range(0, len(x) - k + 1, k)]
            if len(w) >= 8:
                cells.append(f"k={k}: {st.pstdev(w) / st.mean(w) * 100:.2f}%")
        print("  CoV of k-second means: " + ", ".join(cells))
