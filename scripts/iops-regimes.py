#!/usr/bin/env python3
"""Spread of an IOPS log in short windows, per second, and the time spent in a fast regime.

Usage: scripts/iops-regimes.py [--fast PCT] LOG [LOG...]
LOG: fio iops logs (`write_iops_log` with `log_avg_msec`; lines "msec, iops, direction, ...").
Read and write lines of one window, and the same window of several logs, are summed. Prints
the window length, the mean IOPS, the CoV per window and per whole second (the windows of each
second averaged), and the share of windows more than PCT% (default 25) above the mean with the
mean length of their runs: a drive that alternates between two regimes (e.g. GC idle and GC
busy) shows a bimodal window series, which per-second averaging hides when the regimes are
short.
"""
import collections
import statistics as st
import sys

args = sys.argv[1:]
fast_pct = 25.0
if args[:1] == ["--fast"]:
    fast_pct, args = float(args[1]), args[2:]
if not args:
    sys.exit(__doc__)
iops = collections.defaultdict(float)
for path in args:
    for line in open(path):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) >= 3:
            iops[int(fields[0])] += float(fields[1])
times = sorted(iops)
if len(times) < 2:
    sys.exit("fewer than two windows in the log")
window_ms = times[1] - times[0]
x = [iops[t] for t in times]
mean = st.mean(x)
per_s = collections.defaultdict(list)
for t, v in zip(times, x):
    per_s[(t - 1) // 1000].append(v)
seconds = [st.mean(v) for k, v in sorted(per_s.items()) if len(v) * window_ms >= 1000]
fast = [v > mean * (1 + fast_pct / 100) for v in x]
runs, n = [], 0
for f in fast + [False]:
    if f:
        n += 1
    elif n:
        runs.append(n)
        n = 0
print(f"{len(x)} windows of {window_ms} ms: mean {mean:,.0f} IOPS, CoV per window {st.pstdev(x) / mean * 100:.1f}%")
if len(seconds) >= 2:
    print(f"{len(seconds)} whole seconds: CoV per second {st.pstdev(seconds) / st.mean(seconds) * 100:.2f}%, "
          f"min {min(seconds):,.0f}, max {max(seconds):,.0f}")
share = sum(fast) / len(fast) * 100
if runs:
    fast_mean = st.mean(v for v, f in zip(x, fast) if f)
    print(f"windows > {fast_pct:g}% above the mean: {share:.1f}% of the time, mean {fast_mean:,.0f} IOPS, "
          f"{len(runs)} runs of {st.mean(runs) * window_ms:.0f} ms on average")
else:
    print(f"no window > {fast_pct:g}% above the mean")
