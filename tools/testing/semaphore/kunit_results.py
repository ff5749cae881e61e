#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn kunit.py's --json output into results.tsv lines.

Usage: kunit_results.py JSON LABEL REQUIRED_SUITE...

Prints one line per test case (PASS, FAIL or SKIP) and appends the same
to $RESULTS.  A required suite that is missing, or a JSON file that is
missing or empty (the kernel did not build or boot), is a failure.
"""
import json
import os
import sys


def cases(group, prefix=''):
    name = group.get('name', '')
    path = prefix
    if name and name != 'KUnit Test Group':
        path = f'{prefix}{name}.' if prefix else f'{name}.'
    for i, case in enumerate(group.get('test_cases', []), 1):
        # kunit.py gives a case no name when the kernel stopped (crash,
        # hang, timeout) before the case's result line.
        yield path + (case['name'] or f'case{i}-no-result'), case['status']
    for sub in group.get('sub_groups', []):
        yield from cases(sub, path)


def main():
    path, label, required = sys.argv[1], sys.argv[2], sys.argv[3:]
    out = []
    try:
        with open(path) as f:
            data = json.load(f)
        found = list(cases(data))
    except (OSError, ValueError) as err:
        found = []
        out.append(('FAIL', f'kunit/{label}', f'no results: {err}'))
    suites = {name.split('.')[0] for name, _ in found}
    for suite in required:
        if suite not in suites:
            out.append(('FAIL', f'kunit/{label}/{suite}',
                        'suite missing from the results'))
    for name, status in found:
        status = {'PASS': 'PASS', 'SKIP': 'SKIP'}.get(status, 'FAIL')
        out.append((status, f'kunit/{label}/{name}', ''))
    results = os.environ.get('RESULTS')
    with open(results, 'a') if results else open(os.devnull, 'w') as f:
        for status, name, detail in out:
            print(f'{status:4} {name} {detail}'.rstrip())
            f.write(f'{status}\t{name}\t{detail}\n')
    counts = {s: sum(1 for o in out if o[0] == s) for s in ('PASS', 'FAIL', 'SKIP')}
    print(f'kunit {label}: {counts["PASS"]} passed, {counts["FAIL"]} failed, '
          f'{counts["SKIP"]} skipped')
    return 1 if counts['FAIL'] or not found else 0


if __name__ == '__main__':
    sys.exit(main())
