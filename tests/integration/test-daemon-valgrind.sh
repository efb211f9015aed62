#!/bin/bash
# SPDX-License-Identifier: MIT
# halod's whole life under a memory checker: start (apply, verify), Verify(), a drift and its
# re-apply, a good and a broken reload, a denied (polkit-path) call, the peer channel (responder,
# bulk sink, the peer checks' worker thread, a silent peer), SIGTERM during a peer run. valgrind
# (--leak-check=full) on a plain build; on a sanitizer build AddressSanitizer/LeakSanitizer already
# watch every access and a leak makes the exit status non-zero.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dm
require_root
require_tools ip busctl dbus-daemon python3 setpriv
require_build_file daemon/halod daemon/haloctl tests/peer-responder tests/peer-check

if grep -q __asan_init "$BUILD_DIR/daemon/halod"; then
        log "sanitizer build: running halod under AddressSanitizer instead of valgrind"
        WRAPPER=()
else
        require_tools valgrind
        # The throughput sink discards TCP payload in the kernel: recv(fd, NULL, n, MSG_TRUNC) copies
        # nothing, which valgrind's check of the buffer argument does not know.
        cat >"$TEST_DIR/halod.supp" <<'EOF'
{
   tcp-recv-with-msg-trunc-copies-nothing
   Memcheck:Param
   socketcall.recvfrom(buf)
   ...
   fun:read_transfer
}
EOF
        WRAPPER=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible
                --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 --track-fds=no
                --suppressions="$TEST_DIR/halod.supp")
fi

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" enforce 10.77.0.1/30 10.77.0.2/30

dm_start_halod "$NS_A" a "$PROFILE" "${WRAPPER[@]}"
wait_notify "$NOTIFY_OUT" 'READY=1' 60
dm_wait_prop Health healthy 30

busctl call "${HALOD_BUS[@]}" Verify >/dev/null
ip -n "$NS_A" addr del 10.77.0.1/30 dev "$IF_A"
wait_until 30 grep -q "Drift detected" "$HALOD_LOG"
wait_until 30 grep -q "recovered" "$HALOD_LOG"
dm_wait_prop Health healthy 30

kill -HUP "$HALOD_PID"
wait_until 30 grep -q reloaded "$HALOD_LOG"
cp "$PROFILE" "$TEST_DIR/good.yaml"
printf 'cluster: dm-test\nmode: never\n' >"$PROFILE"
run_rc 1 busctl call "${HALOD_BUS[@]}" Reload
cp "$TEST_DIR/good.yaml" "$PROFILE"
run_rc 1 setpriv --reuid=65534 --regid=65534 --clear-groups busctl call "${HALOD_BUS[@]}" Apply
assert_eq "$(dm_prop Health)" healthy Health

# The peer channel: node b (a stand-in responder and the peer-check prober in the other namespace)
# probes halod's responder and bulk sink, halod probes b from its worker thread; then b goes silent
# and halod is stopped while a peer run may still be probing.
ip -n "$NS_B" link set "$IF_B" mtu 9000
ip -n "$NS_B" addr add 10.77.0.2/30 dev "$IF_B"
dm_write_profile "$PROFILE" enforce 10.77.0.1/30 10.77.0.2/30 true
reloads() { [ "$(grep -c reloaded "$HALOD_LOG")" -ge "$1" ]; }
kill -HUP "$HALOD_PID"
wait_until 30 reloads 2
ip netns exec "$NS_B" "$BUILD_DIR/tests/peer-responder" "$PROFILE" b --ready "$TEST_DIR/b.ready" \
        >"$TEST_DIR/logs/responder.log" 2>&1 &
RESPONDER_PID=$!
track_pid "$RESPONDER_PID"
wait_until 10 test -e "$TEST_DIR/b.ready"
run_rc 0 ip netns exec "$NS_B" "$BUILD_DIR/tests/peer-check" "$PROFILE" b
assert_contains "$OUT" "pass peer.a.reachable "
run_rc 0 ip netns exec "$NS_B" "$BUILD_DIR/daemon/haloctl" --node b probe a "$PROFILE"
assert_contains "$OUT" " Gbit/s ("
run_rc 0 busctl call "${HALOD_BUS[@]}" Verify
assert_contains "$(busctl --json=short get-property "${HALOD_BUS[@]}" Checks)" '"peer.b.reachable","pass"' Checks
assert_contains "$(busctl get-property "${HALOD_BUS[@]}" Peers)" '"b" "10.77.0.2" true' Peers
stop_pid "$RESPONDER_PID"
# b goes silent (no address: nothing answers, not even ICMP), so that a peer run takes a second or
# so; a reload comes while one reads the profile, and SIGTERM while another probes.
ip -n "$NS_B" addr del 10.77.0.2/30 dev "$IF_B"
busctl call "${HALOD_BUS[@]}" Verify >"$TEST_DIR/verify.out" 2>&1 &
VERIFY_PID=$!
sleep 0.3
kill -HUP "$HALOD_PID"
wait "$VERIFY_PID" || fail "Verify() during a reload failed: $(cat "$TEST_DIR/verify.out")"
wait_until 30 reloads 3
wait_until 30 grep -q "Check peer.b.reachable failed" "$HALOD_LOG"
busctl call "${HALOD_BUS[@]}" Verify >/dev/null 2>&1 &
sleep 0.3

kill -TERM "$HALOD_PID"
dm_expect_clean_exit "$HALOD_PID" "${WRAPPER[0]:-AddressSanitizer}"
pass
