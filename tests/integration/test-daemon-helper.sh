#!/bin/bash
# SPDX-License-Identifier: MIT
# The helper check, from halod's hosts job (daemon/halod/manager-job-hosts.c): halod may not write the CDI
# spec in /run/cdi (here a read-only bind, as ReadOnlyPaths= would), so it asks halod-helper.service
# and reports the helper check. It is in the Checks before READY=1; the helper's result stamp re-runs
# it; a Verify() answers with it (the reply's Summary names it), and a re-check of a link after an
# address event keeps it. What the helper would do, the test does: it writes the spec that
# `haloctl env --cdi` prints through a writable view of the same tmpfs, then its stamps.
#
# halod runs in a mount namespace of its own with a tmpfs on /run (this host's /run is left alone), in a
# network namespace with the netlink backend, on a private bus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dh
require_root
require_tools ip busctl dbus-daemon python3 unshare nsenter mount
require_build_file daemon/halod
require_build_file daemon/haloctl

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" enforce 10.79.0.1/30 10.79.0.2/30

in_halod_mounts() {
        nsenter -t "$HALOD_PID" -m "$@"
}

log "halod may not write /run/cdi: it asks the helper, and the helper check is in before READY=1"
# The runtime directory is there before halod starts, as systemd's RuntimeDirectory= makes it: the
# request goes there, and the first one is written before the first export would make the directory.
mkdir -p "$TEST_DIR/run-a"
# The last --cdi-dir wins: the default, /run/cdi, which only the helper writes.
# shellcheck disable=SC2016 # for the inner sh
dm_start_halod "$NS_A" a "$PROFILE" unshare --mount --propagation private sh -c '
        mount -t tmpfs -o mode=0755 halod-test-run /run &&
        mkdir /run/cdi /run/cdi-rw &&
        mount --bind /run/cdi-rw /run/cdi &&
        mount -o remount,bind,ro /run/cdi &&
        exec "$@" --cdi-dir /run/cdi' sh
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_eq "$(dm_check_outcome helper)" warn "the helper check at READY=1"
assert_eq "$(dm_prop Health)" degraded "Health while the spec is asked for"
assert_contains "$(cat "$TEST_DIR/run-a/request")" "there is no CDI spec /run/cdi/halod.json" "the request"
assert_contains "$(cat "$HALOD_LOG")" "Asked halod-helper.service to write what halod may not" "halod's log"

log "the helper writes the spec and its stamps: the helper check passes"
# It exits 1 on a veth: no RDMA device, which it says on stderr; the spec is on stdout all the same.
ip netns exec "$NS_A" "$BUILD_DIR/daemon/haloctl" --node a env --cdi "$PROFILE" >"$TEST_DIR/spec.json" \
        2>"$TEST_DIR/logs/env-cdi.log" || true
grep -q '"kind"' "$TEST_DIR/spec.json" || fail "haloctl env --cdi printed no spec: $(cat "$TEST_DIR/logs/env-cdi.log")"
in_halod_mounts sh -c "cat >/run/cdi-rw/halod.json" <"$TEST_DIR/spec.json"
in_halod_mounts sh -c 'mkdir -m 0755 /run/halod-helper && touch /run/halod-helper/started &&
        echo "exit status 0" >/run/halod-helper/result.new && mv /run/halod-helper/result.new /run/halod-helper/result'
wait_until 20 dm_check_is helper pass
dm_wait_prop Health healthy 20

log "a link's re-check after an address event keeps the helper check"
before=$(dm_prop LastVerifyUSec)
ip -n "$NS_A" addr del 10.79.0.1/30 dev "$IF_A"
wait_until 20 sh -c "[ \"\$(busctl get-property ${HALOD_BUS[*]} LastVerifyUSec)\" != 't $before' ]"
assert_eq "$(dm_check_outcome helper)" pass "the helper check after a link's re-check"
wait_until 20 dm_check_is link.fab0.address pass

log "Verify() answers with the helper check of its own verify"
in_halod_mounts rm /run/cdi-rw/halod.json
run_rc 0 busctl --timeout=60 call "${HALOD_BUS[@]}" Verify
log "Verify(): $OUT"
assert_contains "$OUT" "degraded: helper: " "Verify()'s Summary with the spec gone"
assert_eq "$(dm_check_outcome helper)" warn "the helper check after Verify()"

log "rdma.limits: manage: halod asks the helper for the memlock drop-ins, which it never writes itself"
# The files would go to this machine's /etc: the test reads the request and leaves /etc alone.
printf 'rdma: { required: false, memlock: unlimited, limits: manage }\nnic: { driver: ice }\n' >>"$PROFILE"
kill -HUP "$HALOD_PID"
wait_until 30 grep -qF "limits: write /etc/systemd/system.conf.d/90-halod-memlock.conf (DefaultLimitMEMLOCK=infinity)" \
        "$TEST_DIR/run-a/request"
assert_contains "$(cat "$TEST_DIR/run-a/request")" \
        "limits: write /etc/security/limits.d/90-halod-memlock.conf (* and root - memlock unlimited): for login sessions opened from now on" \
        "the request for rdma.limits: manage"
wait_until 20 dm_check_is helper warn

log "SIGTERM: halod exits 0"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 60
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
pass
