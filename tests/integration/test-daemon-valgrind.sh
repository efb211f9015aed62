#!/bin/bash
# SPDX-License-Identifier: MIT
# halod's whole life under a memory checker: start (apply, verify), Verify(), a drift and its
# re-apply, a good and a broken reload, a denied (polkit-path) call, SIGTERM. valgrind
# (--leak-check=full) on a plain build; on a sanitizer build AddressSanitizer/LeakSanitizer already
# watch every access and a leak makes the exit status non-zero.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dm
require_root
require_tools ip busctl dbus-daemon python3 setpriv
require_build_file daemon/halod

if grep -q __asan_init "$BUILD_DIR/daemon/halod"; then
        log "sanitizer build: running halod under AddressSanitizer instead of valgrind"
        WRAPPER=()
else
        require_tools valgrind
        WRAPPER=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible
                --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 --track-fds=no)
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

kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 60
[ "$EXIT_RC" -eq 0 ] || fail "halod exited $EXIT_RC under ${WRAPPER[0]:-AddressSanitizer}: $(cat "$HALOD_LOG")"
if grep -Eq '==[0-9]+==|ERROR: (Address|Leak)Sanitizer' "$HALOD_LOG"; then
        fail "memory checker reported: $(cat "$HALOD_LOG")"
fi
pass
