#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The map from the rst's promises to the KUnit cases, checked.

Documentation/locking/semaphore.rst has a "Lifetimes" table (owner action,
what the owner must do) and names no test.  The map lives in the tests:
every case of the semaphore suites has a comment "/* Rule: ... */" right
above it, and a case that checks a row of the table names it in brackets:
"/* Rule: [free after cancel] a cancelled request never runs ... */".

Checked: every row has at least one case, every bracket names a row, every
case of a suite (KUNIT_CASE, KUNIT_CASE_PARAM) has its Rule comment.  Then
a self-test: with the tags of one row taken away, the check must fail.

Usage: rulemap.py TREE   (prints PASS/FAIL lines; exit 1 on a failure)
"""
import glob
import os
import re
import sys


def table_rows(rst):
    """The first column of the Lifetimes table, one name per row."""
    lines = open(rst).read().split("\n")
    try:
        start = lines.index("Lifetimes")
    except ValueError:
        sys.exit(f"{rst}: no Lifetimes section")
    rules = [i for i in range(start, len(lines))
             if re.match(r"^=+ +=+$", lines[i])][:3]
    if len(rules) < 3:
        sys.exit(f"{rst}: no simple table in the Lifetimes section")
    width = len(lines[rules[0]].split()[0])
    rows = []
    for line in lines[rules[1] + 1:rules[2]]:
        name = line[:width].strip()
        if name and not line[:1].isspace():
            rows.append(name)
    return rows


def cases(sources):
    """{case: [tags]} of every case listed in a suite, None if no Rule."""
    found = {}
    for path in sources:
        text = open(path).read()
        listed = re.findall(r"KUNIT_CASE(?:_PARAM)?\((\w+)", text)
        for name in listed:
            m = re.search(r"/\* Rule: ((?:(?!\*/).)*) \*/\nstatic void " + name + r"\(",
                          text, re.S)
            found[f"{os.path.basename(path)}:{name}"] = (
                re.findall(r"\[([^]]+)\]", m.group(1)) if m else None)
    return found


def check(rows, found):
    errors = []
    for case, tags in sorted(found.items()):
        if tags is None:
            errors.append(f"{case} has no /* Rule: ... */ comment above it")
            continue
        for tag in tags:
            if tag not in rows:
                errors.append(f"{case} names [{tag}], not a row of the Lifetimes table")
    for row in rows:
        if not any(row in (tags or []) for tags in found.values()):
            errors.append(f"Lifetimes row '{row}' has no case")
    return errors


def main():
    tree = sys.argv[1]
    rows = table_rows(os.path.join(tree, "Documentation/locking/semaphore.rst"))
    sources = sorted(glob.glob(os.path.join(tree, "lib/tests/semaphore*_kunit.c")) +
                     glob.glob(os.path.join(tree, "samples/semaphore/*kunit*.c")))
    found = cases(sources)
    tagged = sum(1 for t in found.values() if t)
    errors = check(rows, found)
    ok = True
    if errors:
        ok = False
        print(f"FAIL\trulemap/lifetimes\t{len(errors)} problems: " + "; ".join(errors))
    else:
        print(f"PASS\trulemap/lifetimes\t{len(rows)} rows, {len(found)} cases "
              f"with a rule, {tagged} naming rows")
    # The check must catch a row that loses its cases.
    lost = rows[0]
    stripped = {c: [t for t in (tags or []) if t != lost] for c, tags in found.items()}
    if any(f"'{lost}' has no case" in e for e in check(rows, stripped)):
        print(f"PASS\trulemap/self-test\twithout its tags, row '{lost}' is reported")
    else:
        ok = False
        print(f"FAIL\trulemap/self-test\trow '{lost}' without tags went unreported")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
