#!/bin/bash
# SPDX-License-Identifier: MIT
# The exports borrow one verify's facts: after a Verify() of a head with health.peers and a Prometheus
# textfile, the export that follows the verify and the one that follows its peer round (each a job
# thread of its own, seen under strace as the thread that renames the textfile into place) look up
# the RDMA devices at most once between them, and the peer round's reads nothing below
# /sys/class/infiniband: its GID figures are those the verify's export derived
# (daemon/halod/manager-export.c). Before, each export after the first forgot the devices and looked them
# up again (rdma_device_find()'s access("/sys/class/infiniband")).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init deb
require_root
require_tools ip busctl dbus-daemon strace
require_build_file daemon/halod

dm_head_worker 10.79.0
mkdir -p "$TEST_DIR/prom"
PROM=$TEST_DIR/prom/head.prom
dm_head_worker_profile "$TEST_DIR/head.yaml" deb-test 600s "prometheus-textfile: $PROM"
dm_head_worker_profile "$TEST_DIR/worker.yaml" deb-test 600s
dm_two_buses

on worker dm_start_halod "$NS_B" worker "$TEST_DIR/worker.yaml"
wait_notify "$NOTIFY_OUT" 'READY=1'
STRACE_LOG=$TEST_DIR/strace-head.log
on head dm_start_halod "$NS_A" head "$TEST_DIR/head.yaml" \
        strace -f -qq -e trace=openat,access,faccessat,faccessat2,rename,renameat,renameat2 -e signal=none -o "$STRACE_LOG"
STRACE_PID=$HALOD_PID
wait_notify "$NOTIFY_OUT" 'READY=1'
# halod itself: strace's first traced process (strace passes its exit status on).
HEAD_PID=$(awk 'NR == 1 {print $1}' "$STRACE_LOG")
# The start's verify, its peer round and their exports: the peer's row is in the textfile.
wait_until 30 grep -q '^halod_peer_reachable{peer="worker"' "$PROM"
sleep 1

# export_threads LOG: the threads that renamed the textfile into place, in order, one a line.
export_threads() {
        grep -E "^[0-9]+ +rename(at2?)?\(.*\"$PROM\"" "$1" | awk '{print $1}' || true
}
# rdma_looks LOG TID: how often thread TID looked at the RDMA devices (any read below
# /sys/class/infiniband); rdma_finds LOG TID: how often it looked them up to open them
# (rdma_device_find()'s access(2) probe; the CDI spec's own listing of the class is not one).
rdma_looks() {
        grep -cE "^$2 +(openat|access|faccessat2?)\(.*/sys/class/infiniband\"" "$1" || true
}
rdma_finds() {
        grep -cE "^$2 +(access|faccessat2?)\(.*/sys/class/infiniband\"" "$1" || true
}

# A Verify() and its peer round; the two exports may fold into one when the second is asked for
# before the first starts (manager_export()): then once more.
for attempt in 1 2 3; do
        before=$(wc -l <"$STRACE_LOG")
        on head busctl call "${HALOD_BUS[@]}" Verify >/dev/null
        WINDOW=$TEST_DIR/verify-$attempt.log
        for i in $(seq 100); do
                tail -n +"$((before + 1))" "$STRACE_LOG" >"$WINDOW"
                [ "$(export_threads "$WINDOW" | wc -l)" -ge 2 ] && break
                sleep 0.1
        done
        [ "$(export_threads "$WINDOW" | wc -l)" -ge 2 ] && break
done
mapfile -t threads < <(export_threads "$WINDOW")
[ "${#threads[@]}" -ge 2 ] || fail "no two exports after Verify() in 3 tries (saw ${#threads[@]}): see $WINDOW"

total=0
for t in "${threads[@]}"; do
        total=$((total + $(rdma_finds "$WINDOW" "$t")))
done
last=${threads[-1]}
assert_eq "$(rdma_looks "$WINDOW" "$last")" 0 "RDMA device lookups by the peer round's export (thread $last)"
[ "$total" -le 1 ] || fail "the exports of one verify looked up the RDMA devices $total times, expected at most once"
# What the peer round's export wrote is whole: the verify's checks and the peer's row.
assert_contains "$(cat "$PROM")" 'halod_peer_reachable{peer="worker"' "the textfile after the peer round"
assert_contains "$(cat "$PROM")" 'halod_check_status{check="link.fab0.mtu",outcome="pass"} 1' "the textfile after the peer round"

# The same life without strace (LeakSanitizer does not work under ptrace): a start, its verify and
# peer round, a reload, which drops the facts the exports borrow (they were read for the old
# profile), a Verify() and its exports, then SIGTERM. On a sanitizer build a reference left, or
# dropped twice, shows in halod's exit status or its log.
kill -TERM "$HEAD_PID"
dm_wait_exit "$STRACE_PID" 60
rm -f "$PROM"
on head dm_start_halod "$NS_A" head "$TEST_DIR/head.yaml"
wait_notify "$NOTIFY_OUT" 'READY=1'
wait_until 30 grep -q '^halod_peer_reachable{peer="worker"' "$PROM"
kill -HUP "$HALOD_PID"
wait_until 30 grep -q reloaded "$HALOD_LOG"
rm -f "$PROM"
on head busctl call "${HALOD_BUS[@]}" Verify >/dev/null
wait_until 30 grep -q '^halod_peer_reachable{peer="worker"' "$PROM"
kill -TERM "$HALOD_PID"
checker="a plain build"
grep -q __asan_init "$BUILD_DIR/daemon/halod" && checker=AddressSanitizer
dm_expect_clean_exit "$HALOD_PID" "$checker"
pass
