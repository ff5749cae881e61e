#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw figures of bench.sh into one table and build/bench.csv.

Usage: bench_table.py RAW CSV

RAW lines: arch, tree (pristine|patched), run tag, metric, value (tabs).
Each cell is the median of its runs; the spread is (max - min) / median
over those runs, in percent.  Ratio is patched / pristine.

Derived rows (patched column only), so that a workload's saving can be
checked against the microbenchmark:
  pair_saving_per_sem_op_ns   (pristine - patched) of down_up_pair_ns / 2
  W_saving_per_sem_op_ns      (pristine - patched) of W_ns_per_X divided
                              by W_sem_ops_per_X (patched), for each
                              workload W (workload.sh)
"""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    raw, out = sys.argv[1], sys.argv[2]
    vals = defaultdict(list)
    order = []
    with open(raw) as f:
        for line in f:
            arch, tree, _tag, metric, value = line.rstrip('\n').split('\t')
            if (arch, metric) not in order:
                order.append((arch, metric))
            vals[(arch, tree, metric)].append(float(value))

    def cell(arch, tree, metric):
        v = vals.get((arch, tree, metric))
        if not v:
            return None, None
        med = statistics.median(v)
        spread = (max(v) - min(v)) / med * 100 if med else 0.0
        return med, (spread, len(v))

    rows = []
    for arch, metric in order:
        p, ps = cell(arch, 'pristine', metric)
        q, qs = cell(arch, 'patched', metric)
        ratio = q / p if p and q is not None else None
        rows.append((arch, metric, p, ps, q, qs, ratio))

    derived = []
    for arch, metric, p, _, q, _, _ in rows:
        if p is None or q is None:
            continue
        if metric == 'down_up_pair_ns':
            derived.append((arch, 'pair_saving_per_sem_op_ns', None, None,
                            (p - q) / 2, (0.0, 1), None))
        elif '_ns_per_' in metric:
            work, unit = metric.split('_ns_per_', 1)
            ops, _ = cell(arch, 'patched', f'{work}_sem_ops_per_{unit}')
            if ops:
                derived.append((arch, f'{work}_saving_per_sem_op_ns', None,
                                None, (p - q) / ops, (0.0, 1), None))
    rows += derived

    def fmt(v, s):
        if v is None:
            return '-'
        return f'{v:.2f} (±{s[0]:.1f}%, n={s[1]})'

    w = max(len(r[1]) for r in rows) if rows else 10
    print(f'{"arch":8} {"metric":{w}} {"pristine":>26} {"patched":>26} {"ratio":>6}')
    for arch, metric, p, ps, q, qs, ratio in rows:
        r = f'{ratio:.3f}' if ratio is not None else '-'
        print(f'{arch:8} {metric:{w}} {fmt(p, ps):>26} {fmt(q, qs):>26} {r:>6}')
    with open(out, 'w', newline='') as f:
        wr = csv.writer(f, lineterminator='\n')
        wr.writerow(['arch', 'metric', 'pristine', 'patched', 'ratio'])
        for arch, metric, p, _, q, _, ratio in rows:
            wr.writerow([arch, metric,
                         '' if p is None else f'{p:.2f}',
                         '' if q is None else f'{q:.2f}',
                         '' if ratio is None else f'{ratio:.3f}'])
    return 0 if rows else 1


if __name__ == '__main__':
    sys.exit(main())
