#!/bin/bash
# SPDX-License-Identifier: MIT
# The apply lock on host trees (lib/apply/apply-lock.h): haloctl apply --root TREE takes it under the
# tree (TREE/run/halod-helper/apply.lock, made root's and 0600), waits while another process holds it
# and says who that is, plans only once it has it, and refuses a lock file or directory that another
# user could open or write (the user halod would then hold root's applies up). The waits and the
# rollback of two real appliers held inside kernel-install are in tests/e2e/test-boot.sh. apply
# needs root (it writes root's files).
# Usage: haloctl-apply-lock.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup apply-lock-cli "$@"

cli_require_root

fail_check() {
        echo "FAIL $1"
        failures=$((failures + 1))
}

cat >"$profile" <<YAML
cluster: strix-halo
links:
  rdma0: { match: { driver: ice } }
nic: { driver: ice }
rdma: { required: true, memlock: unlimited, limits: manage }
nodes:
  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }
YAML
chmod 644 "$profile"
root=$tmp/tree
mkdir -p "$root/etc/systemd" "$root/etc/security/limits.d"
LOCK=$root/run/halod-helper/apply.lock
LIMITS=/etc/security/limits.d/90-halod-memlock.conf

# The tree has no run/: apply makes the lock there, root's alone, in a directory that the user halod
# may read whatever root's umask (the helper's result is there too).
umask 077
check "apply makes the lock" 0 apply --root "$root" --node head --only limits "$profile"
umask 022
[ "$(stat -c '%U %a' "$root/run/halod-helper" "$LOCK" 2>&1)" = "root 755
root 600" ] || fail_check "the lock: $(stat -c '%n %U %a' "$root/run/halod-helper" "$LOCK" 2>&1)"
[ -f "$root$LIMITS" ] || fail_check "apply wrote no $LIMITS"
rm -f "$root$LIMITS" "$root/etc/systemd/system.conf.d/90-halod-memlock.conf"

# Another holder, as haloctl apply holds it (flock on the file, "PID WHAT" in it): a python3 process
# that stands in for a haloctl apply held inside the boot part (update-grub, kernel-install), and
# lets go when its stdin closes.
exec {hold}> >(/usr/bin/python3 -c '
import fcntl, os, sys
os.makedirs(os.path.dirname(sys.argv[1]), 0o755, exist_ok=True)
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, b"%d changing the kernel command line\n" % os.getpid())
open(sys.argv[2], "w").close()
sys.stdin.read()
' "$LOCK" "$tmp/held")
holder_process=$!
until [ -e "$tmp/held" ]; do
        kill -0 "$holder_process" 2>/dev/null || { echo "FAIL: the process that holds the lock did not start"; exit 1; }
        sleep 0.05
done
holder=$(cut -d' ' -f1 "$LOCK")
"$haloctl" apply --root "$root" --node head --only limits "$profile" >"$tmp/out" 2>"$tmp/err" {hold}>&- &
applier=$!
until grep -q '^waiting for ' "$tmp/err" || ! kill -0 "$applier" 2>/dev/null; do sleep 0.05; done
kill -0 "$applier" 2>/dev/null || fail_check "apply did not wait for the lock's holder"
[ -e "$root$LIMITS" ] && fail_check "apply wrote $LIMITS while another held the lock"
exec {hold}>&-
wait "$applier"
rc=$?
[ "$rc" -eq 0 ] || fail_check "apply after the wait: exit $rc"
expect "wait" "$tmp/err" "^waiting for haloctl apply \(pid $holder\), which is changing the kernel command line \($LOCK\)$"
[ "$(grep -c '^waiting for ' "$tmp/err")" -eq 1 ] || fail_check "the wait was not said once: $(cat "$tmp/err")"
line "after the wait" "limits: wrote $LIMITS (* and root - memlock unlimited)"
[ -f "$root$LIMITS" ] || fail_check "apply after the wait wrote no $LIMITS"

# A lock file another user could open (here uid 65534 stands in for the user halod, whose flock would
# hold root's applies up for ever) or one that is not root's alone: refused and not used, nothing
# written.
rm -f "$root$LIMITS"
chown 65534 "$LOCK"
check "halod's lock file" 77 apply --root "$root" --node head --only limits "$profile"
expect "halod's lock file" "$tmp/err" "^Cannot take haloctl apply's lock before changing the memlock limits, so nothing was changed: $LOCK belongs to ([a-z]+ \()?uid 65534\)?, not root: another user could hold the lock and keep root's applies waiting. It was not used; remove it \(root makes it anew\)$"
[ -e "$root$LIMITS" ] && fail_check "apply wrote $LIMITS beside a lock file that is not root's"
check "undo with halod's lock file" 77 apply --root "$root" --undo limits
expect "undo with halod's lock file" "$tmp/err" "^Cannot take haloctl apply's lock before removing halod's limits files"
chown 0 "$LOCK"
chmod 644 "$LOCK"
check "a lock file others may open" 77 apply --root "$root" --node head --only limits "$profile"
expect "a lock file others may open" "$tmp/err" "$LOCK has mode 0644: only root may open it"
rm "$LOCK"
ln -s /dev/null "$LOCK"
check "a symlink" 71 apply --root "$root" --node head --only limits "$profile"
expect "a symlink" "$tmp/err" "cannot open $LOCK: Too many levels of symbolic links$"
rm "$LOCK"
chmod 775 "$root/run/halod-helper"
check "a directory others may write" 77 apply --root "$root" --node head --only limits "$profile"
expect "a directory others may write" "$tmp/err" "$root/run/halod-helper has mode 0775: only root may write it"
[ -e "$root$LIMITS" ] && fail_check "apply wrote $LIMITS beside a lock that is not root's"
chmod 755 "$root/run/halod-helper"
check "a lock of root's again" 0 apply --root "$root" --node head --only limits "$profile"

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed ($passes checks)"
