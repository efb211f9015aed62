#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Holds the alerting rules against what halod writes, so that they cannot drift from the exporter:
# every halod_* series selector in an alert's expression must name a metric family of TEXTFILE (a
# textfile halod's renderer wrote), every label it matches on must be one that family carries, and
# at least one series of the file must match it; a matcher on the label check must match a check id
# halod really reports (CHECK_IDS: one id a line, from `haloctl check --json`).
# Usage: check-rules-series.py RULES TEXTFILE CHECK_IDS
import re
import sys

import yaml

SELECTOR = re.compile(r'\b(halod_[a-z0-9_]+)\s*(\{([^}]*)\})?')
MATCHER = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?')
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+\S+$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def unquote(s):
    return re.sub(r'\\(.)', lambda m: {'n': '\n'}.get(m.group(1), m.group(1)), s)


def read_textfile(path):
    families, series = set(), []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('# TYPE '):
                families.add(line.split()[2])
            elif line and not line.startswith('#'):
                m = SAMPLE.match(line)
                if not m:
                    sys.exit(f'{path}: cannot read the sample line {line!r}')
                labels = {k: unquote(v) for k, v in LABEL.findall(m.group(3) or '')}
                series.append((m.group(1), labels))
    return families, series


def matches(op, pattern, value):
    # PromQL regexes are anchored at both ends (RE2; the rules use only what Python's re shares).
    if op == '=':
        return value == pattern
    if op == '!=':
        return value != pattern
    found = re.fullmatch(pattern, value) is not None
    return found if op == '=~' else not found


def main():
    rules_path, textfile, ids_path = sys.argv[1:4]
    families, series = read_textfile(textfile)
    with open(ids_path, encoding='utf-8') as f:
        check_ids = [l.strip() for l in f if l.strip()]
    with open(rules_path, encoding='utf-8') as f:
        rules = yaml.safe_load(f)

    errors, n_selectors = [], 0
    for group in rules['groups']:
        for rule in group['rules']:
            name = rule.get('alert') or rule.get('record')
            for m in SELECTOR.finditer(rule['expr']):
                metric, body = m.group(1), m.group(3) or ''
                n_selectors += 1
                matchers = []
                rest = body
                while rest.strip():
                    mm = MATCHER.match(rest)
                    if not mm:
                        errors.append(f'{name}: cannot read the matchers {body!r}')
                        break
                    matchers.append((mm.group(1), mm.group(2), unquote(mm.group(3))))
                    rest = rest[mm.end():]
                if metric not in families:
                    errors.append(f'{name}: {metric} is no metric halod writes (families: {", ".join(sorted(families))})')
                    continue
                rows = [labels for n, labels in series if n == metric]
                carried = set().union(*(r.keys() for r in rows)) if rows else set()
                for label, op, pattern in matchers:
                    if label not in carried:
                        errors.append(f'{name}: {metric} has no label {label} (it has {", ".join(sorted(carried))})')
                    if label == 'check' and op in ('=', '=~') and \
                            not any(matches(op, pattern, i) for i in check_ids):
                        errors.append(f'{name}: check{op}"{pattern}" matches no check id halod reports')
                if not any(all(matches(op, p, r.get(l, '')) for l, op, p in matchers) for r in rows):
                    errors.append(f'{name}: {m.group(0)} matches no series of {textfile}')
    for e in errors:
        print(f'FAIL: {e}', file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f'{n_selectors} selectors of {rules_path} match series of {textfile} and real check ids')


main()
