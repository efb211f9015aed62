#!/bin/bash
# SPDX-License-Identifier: MIT
# halod stops on SIGTERM after its watch on /run did its job. On the first start after boot
# /run/halod-helper does not exist yet, so halod watches /run for it; once the helper made it, halod
# watches the directory instead. The watch on /run must then be gone, not merely switched off: with
# libsystemd before 258 (here Debian 12's 252) a switched-off inotify source keeps its kernel watch,
# and the next entry made in /run (systemd-user-sessions' /run/nologin at every shutdown) makes
# sd_event_wait() spin without end (systemd#38265): halod never read SIGTERM and systemd killed it
# after 90 s (the e2e's "did not go down within 30 s" on debian12-nm).
#
# halod runs in a mount namespace of its own with a tmpfs on /run (this host's /run may hold
# /run/halod-helper already), in a network namespace with the netlink backend, on a private bus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dr
require_root
require_tools ip busctl dbus-daemon python3 unshare nsenter mount stat
require_build_file daemon/halod

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" enforce 10.78.0.1/30 10.78.0.2/30

# in_halod_mounts COMMAND...: COMMAND in halod's mount namespace, where /run is the test's tmpfs.
in_halod_mounts() {
        nsenter -t "$HALOD_PID" -m "$@"
}

# watched_inodes: the inodes (decimal) halod's inotify descriptors watch, one per line, from the
# kernel's own account of them (/proc/PID/fdinfo: "inotify wd:1 ino:1a2 sdev:...").
watched_inodes() {
        local f
        for f in /proc/"$HALOD_PID"/fdinfo/*; do
                sed -n 's/^inotify wd:[0-9a-f]* ino:\([0-9a-f]*\) .*/\1/p' "$f" 2>/dev/null
        done | while read -r hex; do echo $((16#$hex)); done
}

watches() {
        watched_inodes | grep -qx "$1"
}

watches_not() {
        ! watched_inodes | grep -qx "$1"
}

log "halod starts where /run/halod-helper does not exist yet (a fresh boot)"
# halod's pid is the one dm_start_halod records: ip netns exec, env, unshare and sh each exec the next.
# shellcheck disable=SC2016 # for the inner sh
dm_start_halod "$NS_A" a "$PROFILE" unshare --mount --propagation private \
        sh -c 'mount -t tmpfs -o mode=0755 halod-test-run /run && exec "$@"' sh
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_eq "$(in_halod_mounts sh -c 'test -e /run/halod-helper && echo present || echo absent')" absent \
        "/run/halod-helper in halod's mount namespace"
run_ino=$(in_halod_mounts stat -c %i /run)
wait_until 10 watches "$run_ino"

log "the helper makes its directory: halod watches it, and no longer /run"
# What RuntimeDirectory=halod-helper does before the helper's first run.
in_halod_mounts mkdir -m 0755 /run/halod-helper
helper_ino=$(in_halod_mounts stat -c %i /run/halod-helper)
wait_until 10 watches "$helper_ino"
wait_until 10 watches_not "$run_ino"

log "another entry in /run (as /run/nologin at shutdown): halod goes on answering"
in_halod_mounts touch /run/nologin
in_halod_mounts mkdir /run/halod-test-dir
# A hang detector, not a duration limit: busctl's own call timeout, far above any answer's time.
run_rc 0 busctl --timeout=60 get-property "${HALOD_BUS[@]}" Health
assert_eq "$OUT" 's "healthy"' "Health after entries were made in /run"

log "SIGTERM: halod logs it, sends STOPPING=1 and exits 0"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 60
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
assert_contains "$(cat "$HALOD_LOG")" "Received Terminated, stopping." "halod's log"
assert_contains "$(cat "$NOTIFY_OUT")" "STOPPING=1" "the datagrams halod sent"
pass
