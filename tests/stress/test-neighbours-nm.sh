#!/bin/bash
# SPDX-License-Identifier: MIT
# NetworkManager failing under halod's NetworkManager backend (enforce mode, health.interval 300s, so
# that only events drive halod: rtnetlink, and NetworkManager leaving and joining the bus): a
# drift makes halod apply through NetworkManager, which is killed (SIGKILL) at halod's first call to
# it, while that apply waits for it. halod must not crash, must stay on the bus, must log the failed apply once,
# and, once NetworkManager runs again, must put the link back well before health.interval (bounded at
# 30 s; how soon is a figure), without being restarted.
# Short: once; long: three times.
. "$SOURCE_DIR/tests/stress/stress-lib.sh"

harness_init st
require_root
require_tools ip busctl dbus-daemon python3 jq NetworkManager nmcli nm-online
require_build_file daemon/halod
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
[ -f "$HALOD_MODULE_DIR/halod-backend-nm.so" ] || skip "$HALOD_MODULE_DIR/halod-backend-nm.so not built; run ninja -C $BUILD_DIR"

REPEAT=$(st_pick 1 3)
SURVIVED=0

start_dbus
dm_install_bus_policy
netns_pair
start_networkmanager "$NS_A" "$IF_A"
PROFILE=$TEST_DIR/halod.yaml
st_write_profile "$PROFILE" enforce "$IF_A" "$IF_B" 300s

st_start_halod "$NS_A" a "$PROFILE" networkmanager
wait_notify "$NOTIFY_OUT" 'READY=1' 60
dm_wait_prop Health healthy 30
assert_eq "$(dm_prop Backend)" networkmanager Backend
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU applied through NetworkManager"

FAILED_APPLIES=0
HEAL_MS=0
max() { if [ "$1" -gt "$2" ]; then echo "$1"; else echo "$2"; fi; }
count() { grep -c "$1" "$HALOD_LOG" || true; }
apply_ended() { # APPLIED_BEFORE FAILED_BEFORE
        [ "$(count "Applied through networkmanager")" -gt "$1" ] ||
                [ "$(count "Failed to apply the profile through networkmanager")" -gt "$2" ]
}
for round in $(seq "$REPEAT"); do
        applies=$(count "Applied through networkmanager")
        failures=$(count "Failed to apply the profile through networkmanager")
        log "[$round/$REPEAT] a drift, and NetworkManager killed as soon as halod calls it to apply"
        busctl monitor --json=short org.freedesktop.NetworkManager >"$TEST_DIR/nm-calls.json" \
                2>"$TEST_DIR/logs/nm-monitor.log" &
        MON_PID=$!
        track_pid "$MON_PID"
        wait_until 10 grep -q "Monitoring bus message stream" "$TEST_DIR/logs/nm-monitor.log"
        ip -n "$NS_A" link set "$IF_A" mtu 1500
        wait_until 10 grep -q '"type":"method_call"' "$TEST_DIR/nm-calls.json"
        kill -KILL "$NM_PID"
        stop_pid "$MON_PID"
        log "killed NetworkManager at halod's call: $(grep -m1 '"type":"method_call"' "$TEST_DIR/nm-calls.json" | jq -r .member)()"
        dm_wait_exit "$NM_PID" 10
        # The apply under way ends either way (NetworkManager may have done its part before dying);
        # what matters is that halod ends it, says how, and stays.
        wait_until 60 apply_ended "$applies" "$failures"
        st_halod_alive
        if [ "$(count "Failed to apply the profile through networkmanager")" -gt "$failures" ]; then
                FAILED_APPLIES=$((FAILED_APPLIES + 1))
        fi

        log "[$round/$REPEAT] another drift while NetworkManager is gone: the apply fails, the checks say so"
        ip -n "$NS_A" link set "$IF_A" mtu 1400
        wait_until 30 st_check_is link.fab0.mtu fail
        sleep 1 # NetworkManager's departure re-checked (and tried to re-apply) meanwhile
        assert_contains "$(cat "$HALOD_LOG")" "org.freedesktop.NetworkManager left the system bus" "halod's log"
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1400 "MTU while NetworkManager is gone"
        assert_eq "$(dm_prop Health)" degraded "Health while NetworkManager is gone"
        # Logged once per reason, not on every attempt.
        [ "$(count "Failed to apply the profile through networkmanager")" -ge 1 ] ||
                fail "no failed apply logged while NetworkManager is gone"
        st_halod_alive

        log "[$round/$REPEAT] NetworkManager back: halod re-applies at once (not at health.interval), healthy"
        start_networkmanager "$NS_A" "$IF_A"
        t0=$(date +%s%N)
        dm_wait_prop Health healthy 30 # a progress bound, a tenth of the 300 s health.interval
        HEAL_MS=$(max "$HEAL_MS" $((($(date +%s%N) - t0) / 1000000)))
        assert_contains "$(cat "$HALOD_LOG")" "org.freedesktop.NetworkManager appeared on the system bus" "halod's log"
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU re-applied once NetworkManager is back"
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 10.78.0.1/30 "address once NetworkManager is back"
        st_halod_alive
        SURVIVED=$((SURVIVED + 1))
done

kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 30
assert_eq "$EXIT_RC" 0 "halod's exit status"
st_record nm_restarts_survived "$SURVIVED"
st_record nm_applies_cut_off "$FAILED_APPLIES"
st_record nm_healthy_after_startup_ms_max "$HEAL_MS"
pass
