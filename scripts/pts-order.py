#!/usr/bin/env python3
"""PTS-E IOPS order check (issue 13): at each block size up to 128 KiB, IOPS must not rise by
more than 3% from one R/W mix to the next (100/0 ... 0/100), and 512 B random writes must not be
faster than 4 KiB ones.

Usage: scripts/pts-order.py DIR [...]   (DIR from `ssdlab pts iops --drive D --out DIR`)
"""
import csv, sys
def size(b):
    return int(b[:-1])*1024 if b.endswith('k') else int(b)
for d in sys.argv[1:]:
    rows = list(csv.DictReader(open(f'{d}/iops-table.csv')))
    mixes = [k for k in rows[0].keys() if k != 'bs']
    bad = []
    for r in rows:
        if size(r['bs']) > 128*1024: continue
        v = [float(r[m]) for m in mixes]
        for i in range(1, len(v)):
            if v[i] > v[i-1]*1.03:
                bad.append(f"{r['bs']} {mixes[i]} {v[i]:,.0f} > {mixes[i-1]} {v[i-1]:,.0f} (+{(v[i]/v[i-1]-1)*100:.1f}%)")
    w = {r['bs']: float(r['0/100']) for r in rows}
    rmw = f"512B/4k writes {w['512']/w['4k']:.2f}x"
    print(f"{d}: {'in order' if not bad else 'OUT: ' + '; '.join(bad)}; {rmw}")
