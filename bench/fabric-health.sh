#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (issue 34 item 6): what the fabric health checks (fabric.<link>.loss, .congestion,
# link.<link>.flaps, nic.<link>.errors) add to a verify of a node with two fabric ports. One network
# namespace holds two veth pairs, the node's two links (fab0, fab1); halod (verify mode,
# health.peers false: no peer round) runs there and Verify() is called N times over D-Bus; its CPU
# (utime + stime of all its threads, /proc/PID/stat) is summed over the calls and divided by N. One
# row per halod binary: this build's and each of BEFORE_HALOD (colon-separated: main's build), their
# turns interleaved in ROUNDS rounds so that the shared machine's load falls on all alike. A veth has
# no RDMA device and no ethtool statistics: this is the sysfs and ioctl part of the read and the
# checks; the RDMA hw_counters' part is measured on the fixture trees by test-check-fabric-health.
# Usage (root): BUILD_DIR=build [BEFORE_HALOD=a/halod:b/halod] [N=400] [ROUNDS=8] bench/fabric-health.sh
set -euo pipefail
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

N=${N:-400}
ROUNDS=${ROUNDS:-8}
harness_init fh
require_root
require_tools ip dbus-daemon busctl
require_build_file daemon/halod
IFS=: read -r -a BEFORE <<<"${BEFORE_HALOD:-}"
HALODS=("$BUILD_DIR/daemon/halod" "${BEFORE[@]}")

cpu_ticks() { # PID: utime + stime of all its threads, in clock ticks
        awk '{ print $14 + $15 }' "/proc/$1/stat"
}

ns=${HARNESS_PREFIX}ns-$$
netns_add "$ns"
profile=$TEST_DIR/halod.yaml
for k in 0 1; do
        ip -n "$ns" link add name "fh$$a$k" type veth peer name "fh$$b$k"
        ip -n "$ns" addr add "10.79.$k.1/24" dev "fh$$a$k"
        ip -n "$ns" link set "fh$$a$k" up
        ip -n "$ns" link set "fh$$b$k" up
done
cat >"$profile" <<EOF
cluster: cost
mode: verify
links: { fab0: { match: { name: fh$$a0 } }, fab1: { match: { name: fh$$a1 } } }
nodes:
  s: { links: { fab0: 10.79.0.1/24, fab1: 10.79.1.1/24 } }
  p: { links: { fab0: 10.79.0.2/24, fab1: 10.79.1.2/24 } }
health: { interval: 3600s, peers: false }
EOF

pids=() buses=()
for i in "${!HALODS[@]}"; do
        start_dbus "h$i"
        dm_install_bus_policy "h$i"
        buses+=("$DBUS_SYSTEM_BUS_ADDRESS")
        ip netns exec "$ns" env HALOD_LOG_LEVEL=info "${HALODS[i]}" --profile "$profile" --node s \
                --backend netlink --runtime-dir "$TEST_DIR/run-$i" --cdi-dir "$TEST_DIR/cdi-$i" \
                >"$TEST_DIR/logs/halod-$i.log" 2>&1 </dev/null &
        pids+=($!)
        track_pid $!
        wait_until 60 busctl --address="${buses[i]}" get-property "${HALOD_BUS[@]}" LastVerifyUSec
        for _ in 1 2 3; do busctl --address="${buses[i]}" call "${HALOD_BUS[@]}" Verify >/dev/null; done
done
ticks=()
for i in "${!HALODS[@]}"; do ticks+=(0); done
log "load average before: $(cut -d' ' -f1-3 /proc/loadavg); N=$N ROUNDS=$ROUNDS"
for _ in $(seq "$ROUNDS"); do
        for i in "${!HALODS[@]}"; do
                t0=$(cpu_ticks "${pids[i]}")
                for _ in $(seq $((N / ROUNDS))); do
                        busctl --address="${buses[i]}" call "${HALOD_BUS[@]}" Verify >/dev/null
                done
                ticks[i]=$((ticks[i] + $(cpu_ticks "${pids[i]}") - t0))
        done
done
log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# what the verify reported, for the record: the four checks' ids in this build's halod
busctl --address="${buses[0]}" get-property "${HALOD_BUS[@]}" Checks | grep -oE '"(fabric|link|nic)\.fab[01]\.(loss|congestion|flaps|errors)" "[a-z]+"' | tr '\n' ' ' >&2 || true
echo >&2
hz=$(getconf CLK_TCK)
calls=$((N / ROUNDS * ROUNDS))
echo "| halod | CPU per Verify() (ms), 2 ports | calls |"
echo "|---|---|---|"
for i in "${!HALODS[@]}"; do
        echo "| ${HALODS[i]} | $(awk -v t="${ticks[i]}" -v hz="$hz" -v n="$calls" 'BEGIN { printf "%.3f", t / hz * 1000 / n }') | $calls |"
done
for i in "${!HALODS[@]}"; do stop_pid "${pids[i]}"; done
pass
