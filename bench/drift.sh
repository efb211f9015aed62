#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: the drift reaction of two halod binaries in one run, so that both see the same machine
# and the same load: RTM_DELADDR → the PropertiesChanged signal announcing Health=degraded, and the
# re-add → Health=healthy (tests/halod-probe drift; verify mode, netlink backend, one veth link in a
# namespace pair, a private system bus: the harness of tests/integration/lib.sh).
#
# The two binaries take turns, ROUNDS times each (REPETITIONS drifts a turn), so that a load that
# comes and goes falls on both; the summary is the median over all of each binary's drifts.
#
# Usage (root): BUILD_DIR=build BEFORE=/path/to/old/halod bench/drift.sh [REPETITIONS] [ROUNDS]
#   (default 30 and 3; BEFORE defaults to the build's own halod, a run against itself: the noise)
# Use plain builds, not sanitizer ones.
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

reps=${1:-30}
rounds=${2:-3}
harness_init dft
require_root
require_tools ip dbus-daemon busctl
require_build_file daemon/halod tests/halod-probe
AFTER=$BUILD_DIR/daemon/halod
BEFORE=${BEFORE:-$AFTER}
PROBE=$BUILD_DIR/tests/halod-probe

start_dbus
dm_install_bus_policy
netns_pair
P=$TEST_DIR/halod.yaml
dm_write_profile "$P" verify 10.77.0.1/30 10.77.0.2/30
ip -n "$NS_A" addr add 10.77.0.1/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" mtu 9000 up
ip -n "$NS_B" addr add 10.77.0.2/30 dev "$IF_B"
ip -n "$NS_B" link set "$IF_B" mtu 9000 up

# run_turn TAG HALOD: start HALOD as node a until Health=healthy, drift REPETITIONS times, stop it;
# appends the probe's per-drift figures (µs) to $TEST_DIR/TAG.down and TAG.up.
run_turn() {
        local tag=$1 halod=$2 pid
        NOTIFY_OUT=$TEST_DIR/notify-$tag.out
        rm -f "$NOTIFY_OUT"
        start_notify_receiver "$TEST_DIR/notify-$tag.sock" "$NOTIFY_OUT"
        ip netns exec "$NS_A" env NOTIFY_SOCKET="$TEST_DIR/notify-$tag.sock" "$halod" --profile "$P" --node a \
                --backend netlink --runtime-dir "$TEST_DIR/run-$tag" --cdi-dir "$TEST_DIR/cdi-$tag" \
                >>"$TEST_DIR/logs/halod-$tag.log" 2>&1 </dev/null &
        pid=$!
        track_pid "$pid"
        wait_notify "$NOTIFY_OUT" 'READY=1' 60
        dm_wait_prop Health healthy
        in_ns "$NS_A" env HALOD_PROBE_RAW="$TEST_DIR/$tag" "$PROBE" drift "$reps" "$IF_A" 10.77.0.1/30 |
                sed "s/^/  $tag: /"
        kill -TERM "$pid"
        dm_wait_exit "$pid" 10
}

echo "before: $BEFORE ($("$BEFORE" --version | cut -d' ' -f2))"
echo "after:  $AFTER ($("$AFTER" --version | cut -d' ' -f2))"
echo "kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "repetitions: $reps a turn, $rounds turns each"
for r in $(seq "$rounds"); do
        echo "== turn $r"
        run_turn before "$BEFORE"
        run_turn after "$AFTER"
done

median() {
        sort -n "$1" | awk '{a[NR]=$1} END{printf "median %.2f ms (min %.2f, max %.2f, n=%d)", a[int((NR+1)/2)]/1000, a[1]/1000, a[NR]/1000, NR}'
}
echo
echo "== all turns"
for tag in before after; do
        echo "$tag: drift (RTM_DELADDR → Health=degraded) $(median "$TEST_DIR/$tag.down")"
        echo "$tag: repair seen (RTM_NEWADDR → Health=healthy) $(median "$TEST_DIR/$tag.up")"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
