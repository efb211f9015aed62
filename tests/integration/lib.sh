# SPDX-License-Identifier: MIT
# The integration-test harness: sourced by tests/integration/test-*.sh. It gives each test a private
# system bus, network namespaces joined by veth pairs, real firewalld and NetworkManager inside a
# namespace, and an sd_notify receiver; and it tears all of it down (by pid, by name) on exit, even
# when the test fails.
#
# Typical use:
#   . "$SOURCE_DIR/tests/integration/lib.sh"
#   harness_init lk                       # prefix: unique to the test's author ("lk", "nm", ...)
#   require_root
#   require_tools ip firewalld firewall-cmd
#   start_dbus
#   netns_pair                            # sets NS_A NS_B IF_A IF_B
#   start_firewalld "$NS_A"
#   ... assertions ...
#   pass                                  # or just reach the end of the script
#
# Conventions: with CI=true a missing prerequisite FAILS the test (exit 1); otherwise it is skipped
# (exit 77, meson's "skip"). Everything a test writes lives under $TEST_DIR
# (/tmp/halod-test-<prefix>-XXXXXX), removed at exit unless HARNESS_KEEP=1 (it is always kept, and
# its logs printed, when the test fails). BUILD_DIR and SOURCE_DIR come from the meson runner; when a
# script is run by hand they default to build/ and the source tree.

set -euo pipefail

# The daemons under test want the distribution's python3 (firewalld), not a pyenv or venv shim.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8

SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD_DIR=${BUILD_DIR:-$SOURCE_DIR/build}
export SOURCE_DIR BUILD_DIR

HARNESS_PREFIX=
TEST_DIR=
_HARNESS_PIDS=()   # started processes, stopped in reverse order
_HARNESS_NETNS=()  # namespaces, deleted at exit
_HARNESS_CLEANUPS=() # extra commands (eval'ed) run at exit before the processes are stopped
_HARNESS_FAILED=0
# The step the test is in (a test that has steps sets it, test-e2e.sh's step()); the failure summary
# names it.
HARNESS_STEP=
_HARNESS_LAST_ERR= # the last top-level command that failed (the ERR trap), for an exit without fail

# log MESSAGE...: one progress line on stderr, prefixed with the test's name.
log() {
        echo "[$(basename "$0")] $*" >&2
}

# _harness_note_failure LINE...: keep why the test failed for the summary that ends its output; in
# a file too, as fail may run in a subshell ($(...)) whose variables the teardown never sees.
_harness_note_failure() {
        if [ -n "$TEST_DIR" ] && [ -d "$TEST_DIR" ]; then
                printf '%s\n' "$*" >>"$TEST_DIR/fail-reason" 2>/dev/null || true
        fi
}

# fail MESSAGE...: the test failed; say why and exit 1 (the exit trap tears everything down; the
# reason is repeated as the last lines of the output, after the logs it prints).
fail() {
        echo "FAIL: $*" >&2
        _harness_note_failure "FAIL: $*"
        _HARNESS_FAILED=1
        exit 1
}

# skip MESSAGE...: a prerequisite is missing. Under CI=true that is a failure (exit 1), otherwise
# the test is skipped (exit 77).
skip() {
        if [ "${CI:-}" = true ]; then
                echo "FAIL (CI=true, prerequisite missing): $*" >&2
                _harness_note_failure "FAIL (CI=true, prerequisite missing): $*"
                _HARNESS_FAILED=1
                exit 1
        fi
        echo "SKIP: $*" >&2
        exit 77
}

# pass: end the test successfully (optional: reaching the end of the script does the same).
pass() {
        log "PASS"
        exit 0
}

# require_root: skip (or fail in CI) unless running as root.
require_root() {
        [ "$(id -u)" -eq 0 ] || skip "must run as root (integration tests create network namespaces)"
}

# require_tools TOOL...: skip (or fail in CI) unless each program is in PATH.
require_tools() {
        local t
        for t in "$@"; do
                command -v "$t" >/dev/null 2>&1 || skip "'$t' not found in PATH ($PATH); install it with tools/deps test"
        done
}

# require_build_file PATH...: skip (or fail in CI) unless each file exists under $BUILD_DIR
# ("daemon/haloctl").
require_build_file() {
        local f
        for f in "$@"; do
                [ -x "$BUILD_DIR/$f" ] || skip "$BUILD_DIR/$f not built; run ninja -C $BUILD_DIR"
        done
}

# harness_init PREFIX: create $TEST_DIR (/tmp/halod-test-PREFIX-XXXXXX) and install the teardown
# trap. PREFIX (2-4 letters, unique per test author) also prefixes every namespace and interface name
# (with the shell's pid), so tests running in parallel never collide. Call it first.
harness_init() {
        local prefix=${1:?harness_init needs a prefix}
        HARNESS_PREFIX=$prefix
        TEST_DIR=$(mktemp -d "/tmp/halod-test-$prefix-XXXXXX")
        chmod 755 "$TEST_DIR"
        mkdir -p "$TEST_DIR/logs"
        export TEST_DIR
        trap _harness_teardown EXIT
        trap 'exit 130' INT TERM
        # Not inherited by functions (no set -E): a function that fails shows as its call's line.
        trap '_HARNESS_LAST_ERR="line $LINENO: $BASH_COMMAND"' ERR
}

# harness_on_exit COMMAND: run COMMAND (eval'ed) at teardown, before the processes are stopped.
harness_on_exit() {
        _HARNESS_CLEANUPS+=("$1")
}

# track_pid PID: stop PID at teardown (SIGTERM, then SIGKILL after 10 s).
track_pid() {
        _HARNESS_PIDS+=("$1")
}

# stop_pid PID: SIGTERM, wait up to 10 s, then SIGKILL. Returns at once for a process that is gone.
# (NetworkManager and firewalld need about 2 s each to exit.)
stop_pid() {
        local p=$1 i
        [ -n "$p" ] || return 0
        kill "$p" 2>/dev/null || return 0
        for i in $(seq 200); do
                kill -0 "$p" 2>/dev/null || { wait "$p" 2>/dev/null || true; return 0; }
                sleep 0.05
        done
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
}

_harness_teardown() {
        local rc=$? i
        set +e
        [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && _HARNESS_FAILED=1
        for ((i = ${#_HARNESS_CLEANUPS[@]} - 1; i >= 0; i--)); do
                eval "${_HARNESS_CLEANUPS[i]}" >/dev/null 2>&1
        done
        for ((i = ${#_HARNESS_PIDS[@]} - 1; i >= 0; i--)); do
                stop_pid "${_HARNESS_PIDS[i]}"
        done
        for i in "${_HARNESS_NETNS[@]}"; do
                ip netns del "$i" 2>/dev/null
        done
        if [ -n "$TEST_DIR" ] && [ -d "$TEST_DIR" ]; then
                if [ "$_HARNESS_FAILED" = 1 ] || [ "${HARNESS_KEEP:-}" = 1 ]; then
                        local f
                        for f in "$TEST_DIR"/logs/*; do
                                [ -s "$f" ] || continue
                                echo "---- last lines of $f ----" >&2
                                tail -n 25 "$f" >&2
                        done
                        echo "test files kept in $TEST_DIR" >&2
                else
                        rm -rf "$TEST_DIR"
                fi
        fi
        [ "$_HARNESS_FAILED" = 1 ] && _harness_summary "$rc"
        return "$rc"
}

# _harness_summary RC: the last lines of a failed test's output, after every dump: the step it was
# in and why it failed (meson shows only the end of a failed test's output).
_harness_summary() {
        local rc=$1 reason=''
        [ -z "$TEST_DIR" ] || reason=$(cat "$TEST_DIR/fail-reason" 2>/dev/null)
        [ -n "$reason" ] ||
                reason="FAIL: exit status $rc without a FAIL message; the last command that failed: ${_HARNESS_LAST_ERR:-unknown}"
        echo "======== $(basename "$0") failed ========" >&2
        [ -z "$HARNESS_STEP" ] || echo "in step: $HARNESS_STEP" >&2
        echo "$reason" >&2
}

# wait_until TIMEOUT_SECONDS COMMAND...: poll COMMAND every 50 ms until it succeeds; fail the test
# with the command line when it does not within the timeout.
wait_until() {
        local timeout=$1 i
        shift
        for i in $(seq $((timeout * 20))); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.05
        done
        fail "timed out after ${timeout}s waiting for: $*"
}

# start_dbus [TAG]: start a private system-like dbus-daemon (config and socket in
# $TEST_DIR/dbus[-TAG]) and export DBUS_SYSTEM_BUS_ADDRESS to it, so sd-bus, libnm, busctl, nmcli
# and firewall-cmd all talk to it. It loads the distribution's system.d policies (NetworkManager,
# firewalld) plus the project's conf/*.conf D-Bus policies. Also sets DBUS_PID. Call twice with
# different TAGs for two buses (two nodes); save DBUS_SYSTEM_BUS_ADDRESS between the calls.
start_dbus() {
        local tag=${1:+-$1}
        local d=$TEST_DIR/dbus$tag
        mkdir -p "$d/system.d"
        # The project's own bus policies (io.halod1), so the daemon under test may own its name.
        local f
        for f in "$SOURCE_DIR"/conf/*.conf; do
                [ -f "$f" ] && grep -q '<busconfig' "$f" && cp "$f" "$d/system.d/"
        done
        cat >"$d/system.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <auth>EXTERNAL</auth>
  <listen>unix:path=$d/system_bus_socket</listen>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <includedir>/usr/share/dbus-1/system.d</includedir>
  <includedir>/etc/dbus-1/system.d</includedir>
  <includedir>$d/system.d</includedir>
</busconfig>
EOF
        dbus-daemon --config-file="$d/system.conf" --nofork --nopidfile \
                >"$TEST_DIR/logs/dbus$tag.log" 2>&1 </dev/null &
        DBUS_PID=$!
        track_pid "$DBUS_PID"
        export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$d/system_bus_socket
        wait_until 10 test -S "$d/system_bus_socket"
        wait_until 10 busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status
}

# dbus_allow_name NAME [TAG]: let root own and everyone call NAME on the bus started with TAG (for a
# test service that has no policy file under conf/). Reloads the bus configuration.
dbus_allow_name() {
        local name=$1 tag=${2:+-$2}
        local d=$TEST_DIR/dbus$tag
        cat >"$d/system.d/$name.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy user="root"><allow own="$name"/></policy>
<policy context="default"><allow send_destination="$name"/></policy></busconfig>
EOF
        busctl --address="unix:path=$d/system_bus_socket" call org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus ReloadConfig >/dev/null
}

# netns_add NAME: create a network namespace (lo up) that is deleted at teardown. Fails if it exists.
netns_add() {
        ip netns add "$1"
        _HARNESS_NETNS+=("$1")
        ip -n "$1" link set lo up
}

# netns_pair [TAG]: two namespaces joined by a veth, created directly inside them (never visible in
# the root namespace). Sets NS_A, NS_B (namespace names "<prefix>ns-<pid><TAG>-a|b") and IF_A, IF_B
# (interfaces "<prefix><pid><TAG>a|b", at most 15 characters). IF_B (the peer) is up; IF_A is left
# down, as a freshly cabled NIC. TAG (a letter or digit) tells several pairs of one test apart.
netns_pair() {
        local tag=${1:-}
        NS_A=${HARNESS_PREFIX}ns-$$$tag-a
        NS_B=${HARNESS_PREFIX}ns-$$$tag-b
        IF_A=${HARNESS_PREFIX}$$${tag}a
        IF_B=${HARNESS_PREFIX}$$${tag}b
        [ ${#IF_A} -le 15 ] || fail "interface name $IF_A is longer than 15 characters; use a shorter prefix"
        netns_add "$NS_A"
        netns_add "$NS_B"
        ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
        ip -n "$NS_B" link set "$IF_B" up
}

# in_ns NS COMMAND...: run COMMAND inside namespace NS (with a /sys showing NS's devices).
in_ns() {
        local ns=$1
        shift
        ip netns exec "$ns" "$@"
}

# A real systemd-networkd for NS_A on the current private bus, outside PID 1: with a read-only /sys so
# that it does not wait for udev, and its /etc/systemd/network and /run bound from $ND.
# require_networkd: skip (or fail in CI) unless systemd-networkd can run here as start_networkd runs
# it: its binary, the tools that talk to it, its user, and haloctl built. Sets HALOCTL.
require_networkd() {
        require_root
        require_tools ip dbus-daemon busctl networkctl python3
        [ -x /lib/systemd/systemd-networkd ] || skip "/lib/systemd/systemd-networkd not found; install systemd (tools/deps test)"
        id systemd-network >/dev/null 2>&1 || skip "the user systemd-network does not exist (systemd's sysusers)"
        require_build_file daemon/haloctl
        HALOCTL=$BUILD_DIR/daemon/haloctl
}

# networkd_dirs: sets ND ($TEST_DIR/networkd) and makes its etc-network/ and run/systemd/network/.
networkd_dirs() {
        ND=$TEST_DIR/networkd
        mkdir -p "$ND/run/systemd/network" "$ND/etc-network"
}

# in_nd COMMAND...: COMMAND in NS_A with networkd's view of the files (ip netns exec gives it a mount
# namespace of its own).
in_nd() {
        ip netns exec "$NS_A" sh -c "mkdir -p /etc/systemd/network && mount -n --bind '$ND/etc-network' \
                /etc/systemd/network && mount -n --bind '$ND/run' /run && exec \"\$@\"" in_nd "$@"
}

# start_networkd: starts systemd-networkd in NS_A (after networkd_dirs, netns_pair and start_dbus) and
# waits until it is on the bus. Sets ND_PID.
start_networkd() {
        ip netns exec "$NS_A" sh -c "mount -n -o remount,bind,ro /sys && mount -n --bind '$ND/run' /run && \
                mkdir -p /etc/systemd/network && mount -n --bind '$ND/etc-network' /etc/systemd/network && \
                exec /lib/systemd/systemd-networkd" >>"$TEST_DIR/logs/networkd.log" 2>&1 </dev/null &
        ND_PID=$!
        track_pid "$ND_PID"
        wait_until 20 busctl status org.freedesktop.network1
}

# start_firewalld NS: run the real firewalld inside NS on the current private bus. Its system config
# is a copy of /etc/firewalld in $TEST_DIR/fw/etc (so permanent changes stay in the test), /run is a
# private directory. Waits until firewall-cmd --state answers. Sets FW_PID and FW_ETC.
start_firewalld() {
        local ns=$1
        [ -n "${DBUS_SYSTEM_BUS_ADDRESS:-}" ] || fail "start_firewalld: call start_dbus first"
        local d=$TEST_DIR/fw-$ns
        mkdir -p "$d/run"
        rm -rf "$d/etc"
        cp -a /etc/firewalld "$d/etc"
        FW_ETC=$d/etc
        ip netns exec "$ns" sh -c "mount -n --bind '$d/run' /run && exec /usr/bin/python3 /usr/sbin/firewalld \
                --nofork --nopid --system-config '$d/etc' --default-config /usr/lib/firewalld --log-target console" \
                >"$TEST_DIR/logs/firewalld-$ns.log" 2>&1 </dev/null &
        FW_PID=$!
        track_pid "$FW_PID"
        local i
        for i in $(seq 600); do
                firewall-cmd --state >/dev/null 2>&1 && return 0
                kill -0 "$FW_PID" 2>/dev/null || fail "firewalld exited during startup (see $TEST_DIR/logs/firewalld-$ns.log)"
                sleep 0.05
        done
        fail "firewalld did not answer within 30 s"
}

# start_networkmanager NS IFACE: run the real NetworkManager inside NS on the current private bus,
# managing only IFACE (keyfile connections in $TEST_DIR/nm-NS/conns; /run and /var/lib/NetworkManager
# bound to $TEST_DIR; /sys read-only so NM does not wait for udev). Waits for startup-complete.
# Sets NM_PID and NM_CONNS (the keyfile directory).
start_networkmanager() {
        local ns=$1 iface=$2
        [ -n "${DBUS_SYSTEM_BUS_ADDRESS:-}" ] || fail "start_networkmanager: call start_dbus first"
        local d=$TEST_DIR/nm-$ns
        mkdir -p "$d"/{conf.d,sysconf.d,run,lib,conns}
        chmod 700 "$d/conns"
        NM_CONNS=$d/conns
        cat >"$d/NetworkManager.conf" <<EOF
[main]
plugins=keyfile
no-auto-default=*
auth-polkit=false
dns=none
rc-manager=unmanaged
systemd-resolved=false
hostname-mode=none
dhcp=internal

[keyfile]
path=$d/conns
unmanaged-devices=except:interface-name:$iface

[logging]
level=INFO

[connectivity]
enabled=false
EOF
        ip netns exec "$ns" sh -c "mount -n -o remount,bind,ro /sys && mount -n --bind '$d/run' /run \
                && mount -n --bind '$d/lib' /var/lib/NetworkManager && exec /usr/sbin/NetworkManager --debug \
                --config='$d/NetworkManager.conf' --config-dir='$d/conf.d' --system-config-dir='$d/sysconf.d' \
                --intern-config='$d/lib/NetworkManager-intern.conf' --state-file='$d/lib/NetworkManager.state'" \
                >"$TEST_DIR/logs/nm-$ns.log" 2>&1 </dev/null &
        NM_PID=$!
        track_pid "$NM_PID"
        nm-online -s -q -t 30 || fail "NetworkManager did not complete startup within 30 s (see $TEST_DIR/logs/nm-$ns.log)"
        kill -0 "$NM_PID" 2>/dev/null || fail "NetworkManager exited during startup"
}

# start_notify_receiver SOCKET OUTFILE: listen on the AF_UNIX datagram SOCKET (give it as
# NOTIFY_SOCKET to the program under test) and append every datagram received to OUTFILE, one
# datagram per line (newlines inside a datagram become "|"). Sets NOTIFY_PID.
start_notify_receiver() {
        local sock=$1 out=$2
        : >"$out"
        python3 - "$sock" "$out" >"$TEST_DIR/logs/notify.log" 2>&1 </dev/null <<'EOF' &
import os, socket, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o777)
while True:
    d = s.recv(65536)
    with open(out, "a") as f:
        f.write(d.decode(errors="replace").strip("\n").replace("\n", "|") + "\n")
EOF
        NOTIFY_PID=$!
        track_pid "$NOTIFY_PID"
        wait_until 10 test -S "$sock"
}

# wait_notify OUTFILE PATTERN [TIMEOUT]: wait until a datagram in OUTFILE matches the grep -E
# PATTERN (default timeout 20 s).
wait_notify() {
        local out=$1 pattern=$2 timeout=${3:-20}
        wait_until "$timeout" grep -Eq "$pattern" "$out"
}

# assert_eq ACTUAL EXPECTED [WHAT]: fail unless the two strings are equal.
assert_eq() {
        [ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]: fail unless NEEDLE occurs in HAYSTACK.
assert_contains() {
        case "$1" in
        *"$2"*) ;;
        *) fail "${3:-output} does not contain '$2'; it was:"$'\n'"$1" ;;
        esac
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]: fail if NEEDLE occurs in HAYSTACK.
assert_not_contains() {
        case "$1" in
        *"$2"*) fail "${3:-output} unexpectedly contains '$2'; it was:"$'\n'"$1" ;;
        *) ;;
        esac
}

# run_rc EXPECTED_RC COMMAND...: run COMMAND, store its stdout+stderr in $OUT, fail unless it exits
# with EXPECTED_RC.
run_rc() {
        local want=$1 rc=0
        shift
        OUT=$("$@" 2>&1) || rc=$?
        [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want; output:"$'\n'"$OUT"
}

# link_mtu NS IFACE: print the kernel's MTU of IFACE in NS.
link_mtu() {
        ip -n "$1" -o link show dev "$2" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'
}

# link_ipv4 NS IFACE: print the IPv4 addresses of IFACE in NS, one "a.b.c.d/len" per line, sorted.
link_ipv4() {
        ip -n "$1" -o -4 addr show dev "$2" | awk '{print $4}' | sort
}

# udp_roundtrip NS_FROM NS_TO FROM_ADDR TO_ADDR [SIZE]: send one UDP datagram of SIZE payload bytes
# (default 5; sent with don't-fragment, so 8972 proves a 9000-byte MTU end to end) from FROM_ADDR in
# NS_FROM to TO_ADDR:9999 in NS_TO; fail unless it arrives whole within 5 s from FROM_ADDR.
udp_roundtrip() {
        local from_ns=$1 to_ns=$2 from=$3 to=$4 size=${5:-5}
        local got=$TEST_DIR/udp-received
        rm -f "$got" "$got.ready"
        ip netns exec "$to_ns" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 9999)); s.settimeout(5)
open(sys.argv[2] + ".ready", "w").close()
d, a = s.recvfrom(65536)
open(sys.argv[2], "w").write("%d %s\n" % (len(d), a[0]))' "$to" "$got" &
        local p=$!
        track_pid "$p"
        wait_until 5 test -e "$got.ready"
        ip netns exec "$from_ns" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 2)  # IP_MTU_DISCOVER = IP_PMTUDISC_DO: never fragment
s.bind((sys.argv[1], 0)); s.sendto(b"h" * int(sys.argv[3]), (sys.argv[2], 9999))' "$from" "$to" "$size" ||
                fail "cannot send a $size-byte datagram from $from ($from_ns) to $to"
        wait "$p" || fail "no $size-byte UDP datagram from $from ($from_ns) arrived at $to ($to_ns)"
        assert_eq "$(cat "$got")" "$size $from" "datagram received at $to"
}

# veth_limit_peer_mtu NS IFACE: attach a do-nothing native XDP program to the veth IFACE in NS. The
# kernel then lowers the max MTU of IFACE's peer to what XDP allows in one page (about 3500 bytes),
# so that setting MTU 9000 on the peer fails with the kernel's extended ack "mtu greater than device
# maximum": a link that cannot take jumbo frames, on a kernel without real NICs. The peer's MTU must
# still fit in a page when this runs.
veth_limit_peer_mtu() {
        local ns=$1 iface=$2
        ip netns exec "$ns" python3 - "$iface" <<'PY' || fail "cannot attach an XDP program to $iface in $ns"
import ctypes, os, socket, struct, sys
ifname = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
# BPF: r0 = XDP_PASS (2); exit
insns = ctypes.create_string_buffer(struct.pack("<BBhi", 0xB7, 0, 0, 2) + struct.pack("<BBhi", 0x95, 0, 0, 0))
license = ctypes.create_string_buffer(b"GPL")
attr = ctypes.create_string_buffer(128)
BPF_PROG_LOAD, BPF_PROG_TYPE_XDP, SYS_bpf = 5, 6, 321
struct.pack_into("<IIQQ", attr, 0, BPF_PROG_TYPE_XDP, 2, ctypes.addressof(insns), ctypes.addressof(license))
fd = libc.syscall(SYS_bpf, BPF_PROG_LOAD, attr, 128)
if fd < 0:
    sys.exit("BPF_PROG_LOAD: " + os.strerror(ctypes.get_errno()))
# RTM_SETLINK { ifinfomsg, IFLA_XDP { IFLA_XDP_FD, IFLA_XDP_FLAGS = XDP_FLAGS_DRV_MODE } }
IFLA_XDP, IFLA_XDP_FD, IFLA_XDP_FLAGS, NLA_F_NESTED = 43, 1, 3, 0x8000
inner = struct.pack("<HHi", 8, IFLA_XDP_FD, fd) + struct.pack("<HHI", 8, IFLA_XDP_FLAGS, 4)
body = struct.pack("<BxHiII", 0, 0, socket.if_nametoindex(ifname), 0, 0)
body += struct.pack("<HH", 4 + len(inner), IFLA_XDP | NLA_F_NESTED) + inner
RTM_SETLINK, NLM_F_REQUEST, NLM_F_ACK = 19, 1, 4
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.send(struct.pack("<IHHII", 16 + len(body), RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, 1, 0) + body)
err = struct.unpack_from("<i", s.recv(4096), 16)[0]
if err:
    sys.exit("attaching XDP to %s: %s" % (ifname, os.strerror(-err)))
PY
}
