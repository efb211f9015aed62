#!/bin/bash
# SPDX-License-Identifier: MIT
# Hands a textfile with every metric family halod exports (tests/unit/metrics-sample.c) to
# `promtool check metrics`, Prometheus' own parser and linter: it must accept it without a remark.
# Usage: test-metrics-promtool.sh METRICS_SAMPLE
set -euo pipefail

sample=$1
if ! command -v promtool >/dev/null 2>&1; then
        if [ "${CI:-}" = true ]; then
                echo "FAIL (CI=true, prerequisite missing): promtool not found; install it with tools/deps test (Debian: prometheus)" >&2
                exit 1
        fi
        echo "SKIP: promtool not found; install it with tools/deps test (Debian: prometheus)" >&2
        exit 77
fi

dir=$(mktemp -d /tmp/halod-test-mx-XXXXXX)
trap 'rm -rf "$dir"' EXIT

"$sample" "$dir/halod.prom"
cat "$dir/halod.prom"
rc=0
out=$(promtool check metrics <"$dir/halod.prom" 2>&1) || rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
        echo "FAIL: promtool check metrics (exit $rc) on $dir/halod.prom:" >&2
        echo "$out" >&2
        exit 1
fi
# The escaped label values survived as promtool's parser reads them.
grep -qF 'peer="odd \"name\" with \\ and\nnewline"' "$dir/halod.prom"
grep -qF 'firmware="16.35.2000 (MT_?\"12)"' "$dir/halod.prom"
echo "promtool check metrics: no remarks"
