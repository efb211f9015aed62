#!/bin/bash
# SPDX-License-Identifier: MIT
# halod asks the real polkitd, as the shipped unit runs it: halod as the user halod, polkitd with the
# shipped io.halod1.policy and io.halod1.rules plus a test .rules file, on a private system bus. A
# user whom a rule allows io.halod1.manage gets Verify() answered (haloctl verify: exit 0); one whom
# a rule denies gets AccessDenied (exit 77, "polkit denied it"); one without a rule, outside any
# session, gets the policy's auth_admin answer: AccessDenied, "authentication is required", exit 77;
# root needs no polkit. Without polkitd only root may act.
#
# The users halod, halod-pk-yes, halod-pk-no and halod-pk-none exist only for this test: it runs in a
# mount namespace of its own where /etc/passwd, /etc/group and polkit's directories are bind-mounted
# copies, so the host is not changed, and the bus, polkitd and halod all see the same users.
if [ -z "${HALOD_PK_NAMESPACE:-}" ]; then
        command -v unshare >/dev/null || { echo "SKIP: unshare (util-linux) not found" >&2; exit 77; }
        [ "$(id -u)" -eq 0 ] || { echo "SKIP: must run as root" >&2; exit 77; }
        exec unshare --mount --propagation private env HALOD_PK_NAMESPACE=1 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init pk
require_root
require_tools ip busctl dbus-daemon python3 setpriv mount
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
POLKITD=
for p in /usr/lib/polkit-1/polkitd /usr/libexec/polkitd; do
        [ -x "$p" ] && POLKITD=$p && break
done
[ -n "$POLKITD" ] || skip "polkitd not found; install it with tools/deps test (Debian: polkitd)"
getent passwd polkitd >/dev/null || skip "polkitd's system user 'polkitd' is missing (reinstall polkitd)"

log "the test's users, in this mount namespace only"
cp /etc/passwd "$TEST_DIR/passwd"
cp /etc/group "$TEST_DIR/group"
uid=64000 # the first of the uids from 64000 up that nobody has
for user in halod halod-pk-yes halod-pk-no halod-pk-none; do
        getent passwd "$user" >/dev/null && continue
        while getent passwd "$uid" >/dev/null || getent group "$uid" >/dev/null; do
                uid=$((uid + 1))
        done
        echo "$user:x:$uid:$uid:halod polkit test:/nonexistent:/usr/sbin/nologin" >>"$TEST_DIR/passwd"
        echo "$user:x:$uid:" >>"$TEST_DIR/group"
        uid=$((uid + 1))
done
chmod 644 "$TEST_DIR/passwd" "$TEST_DIR/group"
mount --bind "$TEST_DIR/passwd" /etc/passwd
mount --bind "$TEST_DIR/group" /etc/group
getent passwd halod-pk-yes >/dev/null || fail "the test users are not visible through NSS (is /etc/passwd in nsswitch.conf?)"

log "polkit: the shipped action and rules, and the test's rules"
PK=$TEST_DIR/polkit
mkdir -p "$PK/actions" "$PK/share-rules" "$PK/etc-rules"
cp "$SOURCE_DIR/conf/polkit-1/io.halod1.policy" "$PK/actions/"
cp "$SOURCE_DIR/conf/polkit-1/rules.d/io.halod1.rules" "$PK/share-rules/"
cat >"$PK/etc-rules/50-halod-test.rules" <<'EOF'
// Test only: one user may manage halod, another may not; everyone else gets the policy's defaults.
polkit.addRule(function(action, subject) {
        if (action.id != "io.halod1.manage")
                return polkit.Result.NOT_HANDLED;
        if (subject.user == "halod-pk-yes")
                return polkit.Result.YES;
        if (subject.user == "halod-pk-no")
                return polkit.Result.NO;
        return polkit.Result.NOT_HANDLED;
});
EOF
chown -R polkitd "$PK/share-rules" "$PK/etc-rules"
chmod 700 "$PK/share-rules" "$PK/etc-rules"
mount --bind "$PK/actions" /usr/share/polkit-1/actions
mkdir -p /usr/share/polkit-1/rules.d /etc/polkit-1/rules.d 2>/dev/null || true
mount --bind "$PK/share-rules" /usr/share/polkit-1/rules.d
mount --bind "$PK/etc-rules" /etc/polkit-1/rules.d

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" verify 10.79.0.1/30 10.79.0.2/30
# Verify mode: the link is set up by hand, so that every check passes and haloctl verify exits 0.
ip -n "$NS_A" addr add 10.79.0.1/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" mtu 9000 up

# start_polkitd: polkitd on the private bus (it drops to the user polkitd itself).
start_polkitd() {
        "$POLKITD" >"$TEST_DIR/logs/polkitd.log" 2>&1 </dev/null &
        POLKIT_PID=$!
        track_pid "$POLKIT_PID"
        wait_until 20 busctl status org.freedesktop.PolicyKit1
}
start_polkitd

log "halod as the user halod, as the shipped unit runs it"
mkdir -p "$TEST_DIR/run-a"
chown halod "$TEST_DIR/run-a"
dm_start_halod "$NS_A" a "$PROFILE" setpriv --reuid=halod --regid=halod --clear-groups
wait_notify "$NOTIFY_OUT" 'READY=1'
dm_wait_prop Health healthy
assert_eq "$(stat -c %U "/proc/$HALOD_PID")" halod "the user halod runs as"

as() { # USER COMMAND...: run COMMAND as USER
        local user=$1
        shift
        setpriv --reuid="$user" --regid="$user" --clear-groups "$@"
}

log "a user whom a rule allows io.halod1.manage: Verify() is answered"
run_rc 0 as halod-pk-yes busctl call "${HALOD_BUS[@]}" Verify
assert_contains "$OUT" 's "' "Verify's reply to halod-pk-yes"
run_rc 0 as halod-pk-yes "$HALOCTL" verify
run_rc 0 as halod-pk-yes "$HALOCTL" reload
assert_contains "$OUT" "reloaded"

log "a user whom a rule denies it: AccessDenied, haloctl exit 77"
run_rc 1 as halod-pk-no busctl call "${HALOD_BUS[@]}" Verify
assert_contains "$OUT" "Access denied" "Verify as halod-pk-no"
run_rc 77 as halod-pk-no "$HALOCTL" verify
assert_contains "$OUT" "Permission denied: Not authorised for io.halod1.manage: polkit denied it. Run it as root"
assert_not_contains "$OUT" "authentication is required"
run_rc 77 as halod-pk-no "$HALOCTL" apply

log "a user without a rule, outside any session: the policy's auth_admin, so authentication is required"
run_rc 77 as halod-pk-none "$HALOCTL" verify
assert_contains "$OUT" "polkit denied it (authentication is required)"

log "root needs no polkit"
run_rc 0 "$HALOCTL" verify

log "polkitd gone: only root may act, and the caller is told why"
stop_pid "$POLKIT_PID"
run_rc 77 as halod-pk-yes "$HALOCTL" verify
assert_contains "$OUT" "Only root may call Verify"
run_rc 0 "$HALOCTL" verify

log "polkitd back: the allowed user is answered again"
start_polkitd
run_rc 0 as halod-pk-yes "$HALOCTL" verify

kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 10
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
pass
