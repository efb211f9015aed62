#!/bin/bash
# SPDX-License-Identifier: MIT
# rdma.memlock's words for login sessions against what this host's own pam_limits gives a session.
# In a PID namespace whose PID 1 holds memlock 2048/8192 KiB, a shell lowers its soft limit to 1024 KiB
# and opens runuser and su sessions as nobody, as a scheduler's job or an admin would; haloctl check
# runs from the same shell. Debian's and Ubuntu's pam_limits (debian/patches
# 027_pam_limits_better_init_allow_explicit_root) start each session from /proc/1/limits: both
# sessions get 2048 KiB, and the check must say "start from PID 1's limit" with PID 1's 2 MiB, not
# that a session keeps the limit of the program that opens it. Upstream's (Fedora's) keeps the
# caller's 1024 KiB, and the check must say that. No limits.conf line may set memlock: the host is
# read as it is.
. "$(dirname "$0")/lib.sh"

harness_init pl
require_root
require_tools unshare runuser su
require_build_file daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl

grep -Eq '^[[:space:]]*session[[:space:]].*pam_limits\.so' /etc/pam.d/runuser /etc/pam.d/su 2>/dev/null ||
        skip "/etc/pam.d/runuser and su do not run pam_limits: nothing to compare with"
if grep -Eqs '^[[:space:]]*[^#[:space:]]+[[:space:]]+(soft|hard|-)[[:space:]]+memlock' \
        /etc/security/limits.conf /etc/security/limits.d/*.conf; then
        skip "a limits.conf line sets memlock on this host: the sessions would not show pam_limits' start"
fi
# pam_limits is Debian's where os-release names debian in ID or ID_LIKE (as halod reads it).
ID=$(. /etc/os-release && echo "${ID:-linux}")
debian=$(. /etc/os-release && case " ${ID:-} ${ID_LIKE:-} " in *" debian "*) echo yes ;; *) echo no ;; esac)

cat >"$TEST_DIR/halod.yaml" <<'YAML'
cluster: pl
health: { peers: false }
links:
  rdma0: { match: { driver: ice } }
rdma:
  memlock: unlimited
nodes:
  head: { links: { rdma0: 192.168.100.1/30 } }
YAML
chmod 0644 "$TEST_DIR/halod.yaml"

# PID 1 of the namespace (the first bash) holds 2048/8192 KiB; a subshell, its child, lowers its own
# soft limit and opens the sessions.
HARD=$(ulimit -H -l)
[ "$HARD" = unlimited ] || [ "$HARD" -ge 8192 ] || skip "this shell's hard memlock limit is $HARD KiB, below the 8192 the test sets"
cat >"$TEST_DIR/sessions.sh" <<'SH'
ulimit -H -l 8192 && ulimit -S -l 2048 || exit 1
(
        ulimit -S -l 1024
        echo "caller $(ulimit -l)"
        echo "pid1 $(awk '/^Max locked memory/ { print $4 / 1024 }' /proc/1/limits)"
        echo "runuser $(runuser -u nobody -- /bin/sh -c 'ulimit -l')"
        echo "su $(su -s /bin/sh nobody -c 'ulimit -l')"
        "$1" check --json --only rdma.memlock --node head "$2" >"$3"
        true
)
SH
unshare --pid --fork --mount-proc /bin/bash "$TEST_DIR/sessions.sh" "$HALOCTL" "$TEST_DIR/halod.yaml" \
        "$TEST_DIR/check.json" >"$TEST_DIR/logs/sessions.txt" 2>&1 ||
        fail "the PID namespace did not run: $(cat "$TEST_DIR/logs/sessions.txt")"
log "$(tr '\n' ' ' <"$TEST_DIR/logs/sessions.txt")"
value() { sed -n "s/^$1 //p" "$TEST_DIR/logs/sessions.txt"; }
assert_eq "$(value caller)" 1024 "the caller's soft memlock limit (KiB)"
assert_eq "$(value pid1)" 2048 "PID 1's soft memlock limit in the namespace (KiB)"
SUMMARY=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checks"][0]["summary"])' "$TEST_DIR/check.json") ||
        fail "haloctl check printed no document: $(head -c 600 "$TEST_DIR/check.json")"
log "rdma.memlock: $SUMMARY"

if [ "$debian" = yes ]; then
        assert_eq "$(value runuser)" 2048 "a runuser session's soft memlock limit under $ID's pam_limits (KiB)"
        assert_eq "$(value su)" 2048 "an su session's soft memlock limit under $ID's pam_limits (KiB)"
        assert_contains "$SUMMARY" "login sessions start from PID 1's limit (Debian's pam_limits)" "rdma.memlock on $ID"
        assert_contains "$SUMMARY" "every login PID 1's 2 MiB (/proc/1/limits)" "rdma.memlock on $ID"
        assert_not_contains "$SUMMARY" "the program that opens" "rdma.memlock on $ID"
else
        assert_eq "$(value runuser)" 1024 "a runuser session's soft memlock limit under upstream's pam_limits (KiB)"
        assert_eq "$(value su)" 1024 "an su session's soft memlock limit under upstream's pam_limits (KiB)"
        assert_contains "$SUMMARY" "keep the limit of the program that opens them" "rdma.memlock on $ID"
        assert_not_contains "$SUMMARY" "Debian's pam_limits" "rdma.memlock on $ID"
fi
pass
