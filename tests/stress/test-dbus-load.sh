#!/bin/bash
# SPDX-License-Identifier: MIT
# D-Bus load: many clients, each on its own connection, read every property (GetAll) in a loop while
# the fabric link drifts back and forth (verify mode: Health, Summary and Checks change and are
# announced several times a second). No call may fail, halod's memory must not grow (within 64 KiB
# after a warm-up round of the same load), and the p99 reply time is recorded.
# Short: 10 clients for 5 s; long: 50 clients for 30 s.
. "$SOURCE_DIR/tests/stress/stress-lib.sh"

harness_init st
require_root
require_tools ip busctl dbus-daemon python3
require_build_file daemon/halod tests/st-bus

CLIENTS=$(st_pick 10 50)
SECONDS_LOAD=$(st_pick 5 30)

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
st_write_profile "$PROFILE" enforce "$IF_A" "$IF_B"
st_start_halod "$NS_A" a "$PROFILE" netlink
wait_notify "$NOTIFY_OUT" 'READY=1'
dm_wait_prop Health healthy
# From here on the drift must stay visible: verify mode, so nothing is put back.
st_write_profile "$PROFILE" verify "$IF_A" "$IF_B"
busctl call "${HALOD_BUS[@]}" Reload >/dev/null
dm_wait_prop Mode verify

drift() { # SECONDS: flip the MTU every 100 ms
        local i
        for i in $(seq $(($1 * 10))); do
                ip -n "$NS_A" link set "$IF_A" mtu $(((i % 2) ? 1500 : 9000))
                sleep 0.1
        done
        ip -n "$NS_A" link set "$IF_A" mtu 9000
}

# The warm-up is a round of the same load, as long: the allocator's high-water marks (the worker
# thread's arena, sd-bus's buffers for the larger replies) are reached before the first measure.
log "warm-up: $CLIENTS clients for $SECONDS_LOAD s with drift"
drift "$SECONDS_LOAD" &
DRIFT_PID=$!
track_pid "$DRIFT_PID"
"$ST_BUS" getall "$CLIENTS" "$SECONDS_LOAD" >"$TEST_DIR/warmup.out" || fail "GetAll failed during the warm-up: $(cat "$TEST_DIR/warmup.out")"
wait "$DRIFT_PID"
dm_wait_prop Health healthy
rss_start=$(st_rss "$HALOD_PID")
fds_start=$(st_fds "$HALOD_PID")

log "load: $CLIENTS clients for $SECONDS_LOAD s with drift"
drift "$SECONDS_LOAD" &
DRIFT_PID=$!
track_pid "$DRIFT_PID"
"$ST_BUS" getall "$CLIENTS" "$SECONDS_LOAD" >"$TEST_DIR/load.out" 2>"$TEST_DIR/logs/load.log" ||
        fail "GetAll failed under load: $(head -n 5 "$TEST_DIR/logs/load.log")"
wait "$DRIFT_PID"
dm_wait_prop Health healthy
st_halod_alive
rss_end=$(st_rss "$HALOD_PID")
fds_end=$(st_fds "$HALOD_PID")
cat "$TEST_DIR/load.out" >&2
drifts=$(grep -c "Drift detected on link fab0" "$HALOD_LOG" || true)

st_record dbus_clients "$CLIENTS"
st_record dbus_seconds "$SECONDS_LOAD"
st_record dbus_calls "$(st_kv calls "$TEST_DIR/load.out")"
st_record dbus_errors "$(st_kv errors "$TEST_DIR/load.out")"
st_record dbus_p50_us "$(st_kv p50_us "$TEST_DIR/load.out")"
st_record dbus_p99_us "$(st_kv p99_us "$TEST_DIR/load.out")"
st_record dbus_max_us "$(st_kv max_us "$TEST_DIR/load.out")"
st_record dbus_drifts "$drifts"
st_record dbus_rss_start_kib "$rss_start"
st_record dbus_rss_end_kib "$rss_end"
assert_eq "$(st_kv errors "$TEST_DIR/load.out")" 0 "GetAll errors"
[ "$drifts" -ge 2 ] || fail "only $drifts drifts were seen during the load; the test did not exercise what it should"
[ "$fds_end" -eq "$fds_start" ] || fail "open fds went from $fds_start to $fds_end under load"
growth=$((rss_end - rss_start))
if grep -q __asan_init "$BUILD_DIR/daemon/halod"; then
        log "sanitizer build: RSS not compared (AddressSanitizer's quarantine keeps freed memory)"
else
        [ "${growth#-}" -le 64 ] || fail "RSS moved by ${growth} KiB under load (from $rss_start to $rss_end KiB)"
fi
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 10
assert_eq "$EXIT_RC" 0 "halod's exit status after the load"
pass
