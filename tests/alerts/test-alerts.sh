#!/bin/bash
# SPDX-License-Identifier: MIT
# conf/prometheus/halod-alerts.yml: Prometheus accepts it (promtool check rules), every alert fires and
# stays quiet as tests/alerts/halod-alerts.test.yml says (promtool test rules), and its expressions
# select series that halod writes, with check ids that halod reports (check-rules-series.py against
# a textfile from halod's renderer and the ids of a real `haloctl check --json`).
# Usage: test-alerts.sh SOURCE_DIR HALOCTL METRICS_SAMPLE
set -euo pipefail

src=$1 haloctl=$2 sample=$3
missing=()
command -v promtool >/dev/null 2>&1 || missing+=("promtool (Debian: prometheus)")
python3 -c 'import yaml' 2>/dev/null || missing+=("python3's yaml module (Debian: python3-yaml)")
command -v unshare >/dev/null 2>&1 || missing+=("unshare (util-linux)")
if [ ${#missing[@]} -gt 0 ]; then
        if [ "${CI:-}" = true ]; then
                echo "FAIL (CI=true, prerequisite missing): ${missing[*]}; install with tools/deps test" >&2
                exit 1
        fi
        echo "SKIP: ${missing[*]} not found; install with tools/deps test" >&2
        exit 77
fi

dir=$(mktemp -d /tmp/halod-test-alerts-XXXXXX)
trap 'rm -rf "$dir"' EXIT
rules=$src/conf/prometheus/halod-alerts.yml

promtool check rules "$rules"
(cd "$src/tests/alerts" && promtool test rules halod-alerts.test.yml)

# The ids come from the checks themselves: a network namespace of its own (only lo) makes the peer
# checks fail at once instead of probing the profile's addresses on this host's network.
"$sample" "$dir/halod.prom"
unshare -rn "$haloctl" check --node head --json "$src/tests/alerts/fleet.yaml" >"$dir/check.json" || true
python3 -c 'import json, sys; print("\n".join(c["id"] for c in json.load(open(sys.argv[1]))["checks"]))' \
        "$dir/check.json" >"$dir/ids"
grep -qx 'peer.worker.mtu' "$dir/ids" || { echo "FAIL: haloctl check reported no peer checks:" >&2; cat "$dir/check.json" >&2; exit 1; }
python3 "$src/tests/alerts/check-rules-series.py" "$rules" "$dir/halod.prom" "$dir/ids"

# The drift check itself must notice a metric or a check id that halod does not have.
sed -e 's/halod_peer_reachable == 0/halod_peer_unreachable == 1/' "$rules" >"$dir/drift-metric.yml"
sed -e 's/check="rdma.port"/check="rdma.port.state"/' "$rules" >"$dir/drift-check.yml"
sed -e 's/halod_rdma_gid_index and/halod_rdma_gid_index{gid="3"} and/' "$rules" >"$dir/drift-label.yml"
for bad in drift-metric drift-check drift-label; do
        if python3 "$src/tests/alerts/check-rules-series.py" "$dir/$bad.yml" "$dir/halod.prom" "$dir/ids" 2>"$dir/$bad.err"; then
                echo "FAIL: check-rules-series.py accepted $bad.yml" >&2
                exit 1
        fi
        cat "$dir/$bad.err"
done
echo "alerting rules: valid, tested, and in step with the exporter"
