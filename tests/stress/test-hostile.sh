#!/bin/bash
# SPDX-License-Identifier: MIT
# Hostile input: a profile that someone other than root could have written (owned by another user,
# writable by group or others, in a directory others may write, behind a symlink someone else owns)
# is refused by halod (exit 78 at start, rejected on reload) and by haloctl check/apply, with the file,
# its owner and mode and the fix; validate still reads it. Over-long interface names, node names, host
# names, cluster names and addresses are rejected wherever they come in (profile, --node, the peer
# channel). halod's peer channel answers no datagram from an address outside the profile or from a
# privileged source port, drops over-long names, and never sends more bytes than it receives.
# Short and long are the same but for the peer flood (2,000 datagrams; long: 20,000).
. "$SOURCE_DIR/tests/stress/stress-lib.sh"

harness_init st
require_root
require_tools ip busctl dbus-daemon python3 setpriv
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
N_DATAGRAMS=$(st_pick 2000 20000)
REFUSED=0
refused() { REFUSED=$((REFUSED + 1)); }

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/etc/halod.yaml
mkdir -p "$TEST_DIR/etc"
st_write_profile "$PROFILE" verify "$IF_A" "$IF_B" 60s
sed -i 's/peers: false/peers: true/' "$PROFILE"
cp "$PROFILE" "$TEST_DIR/good.yaml"

# halod_refuses WHAT WORDS...: halod must exit 78 and log each of WORDS.
halod_refuses() {
        local what=$1 w
        shift
        run_rc 78 ip netns exec "$NS_A" "$BUILD_DIR/daemon/halod" --profile "$PROFILE" --node a --backend netlink \
                --runtime-dir "$TEST_DIR/run-a"
        for w in "$@"; do assert_contains "$OUT" "$w" "halod's refusal of $what"; done
        refused
}
# haloctl_refuses WHAT WORDS...: haloctl check and apply must exit 78 and say each of WORDS; validate
# still reads the file.
haloctl_refuses() {
        local what=$1 verb w
        shift
        for verb in check apply; do
                run_rc 78 in_ns "$NS_A" "$HALOCTL" --node a "$verb" "$PROFILE"
                for w in "$@"; do assert_contains "$OUT" "$w" "haloctl $verb's refusal of $what"; done
        done
        run_rc 0 "$HALOCTL" validate "$PROFILE"
}

# haloctl_accepts: haloctl plan reads the profile (its exit status says whether the host differs).
haloctl_accepts() {
        local rc=0
        OUT=$(in_ns "$NS_A" "$HALOCTL" --node a plan "$PROFILE" 2>&1) || rc=$?
        [ "$rc" -le 1 ] || fail "haloctl plan refused a trusted profile (exit $rc): $OUT"
        assert_not_contains "$OUT" "not trusted" "haloctl plan"
}

log "a profile owned by another user"
chown 65534 "$PROFILE"
halod_refuses "a foreign owner" "$PROFILE: profile not trusted" "uid 65534" "chown root:root $PROFILE; chmod 644 $PROFILE" "rejected"
haloctl_refuses "a foreign owner" "$PROFILE: profile not trusted" "uid 65534" "chown root:root $PROFILE"
chown 0 "$PROFILE"

log "a profile writable by its group, by anyone"
chmod 664 "$PROFILE"
halod_refuses "mode 0664" "mode 0664" "chmod 644 $PROFILE"
haloctl_refuses "mode 0664" "mode 0664" "chmod 644 $PROFILE"
chmod 606 "$PROFILE"
halod_refuses "mode 0606" "mode 0606" "anyone"
chmod 644 "$PROFILE"

log "a directory on the way that anyone may write"
chmod 777 "$TEST_DIR/etc"
halod_refuses "a loose directory" "$TEST_DIR/etc: not trusted as a profile's directory" "chmod go-w $TEST_DIR/etc"
haloctl_refuses "a loose directory" "chmod go-w $TEST_DIR/etc"
chmod 1777 "$TEST_DIR/etc" # sticky, as /tmp: accepted
haloctl_accepts
chmod 755 "$TEST_DIR/etc"

log "symlinks: followed, and the rule applies to the target and every directory on the way"
mkdir -p "$TEST_DIR/srv"
mv "$PROFILE" "$TEST_DIR/srv/halod.yaml"
ln -s ../srv/halod.yaml "$PROFILE"
haloctl_accepts
chmod 666 "$TEST_DIR/srv/halod.yaml"
halod_refuses "a loose symlink target" "$TEST_DIR/srv/halod.yaml: profile not trusted" "mode 0666"
chmod 644 "$TEST_DIR/srv/halod.yaml"
chmod 777 "$TEST_DIR/srv"
halod_refuses "a loose target directory" "$TEST_DIR/srv: not trusted"
chmod 755 "$TEST_DIR/srv"
chown -h 65534 "$PROFILE"
halod_refuses "a symlink owned by another user" "$PROFILE: symlink on the profile's path is owned by" "chown -h root:root $PROFILE"
rm "$PROFILE"
mv "$TEST_DIR/srv/halod.yaml" "$PROFILE"

log "halod running: a reload of a profile that became writable by others is rejected, the old one stays"
st_start_halod "$NS_A" a "$PROFILE" netlink
wait_notify "$NOTIFY_OUT" 'READY=1'
sed -i 's/cluster: st-test/cluster: st-evil/' "$PROFILE"
chmod 666 "$PROFILE"
run_rc 1 busctl call "${HALOD_BUS[@]}" Reload
assert_contains "$OUT" "rejected"
assert_contains "$(cat "$HALOD_LOG")" "$PROFILE: profile not trusted"
assert_eq "$(dm_prop Cluster)" st-test "Cluster after a rejected reload"
refused
chmod 644 "$PROFILE"
cp "$TEST_DIR/good.yaml" "$PROFILE"

log "over-long and malformed names and addresses in a profile: every one rejected, with its place"
long() { printf "%${2}s" | tr ' ' "$1"; }
check_profile_rejects() { # SNIPPET_SED EXPECTED
        cp "$TEST_DIR/good.yaml" "$TEST_DIR/bad.yaml"
        sed -i "$1" "$TEST_DIR/bad.yaml"
        cmp -s "$TEST_DIR/good.yaml" "$TEST_DIR/bad.yaml" && fail "the edit '$1' changed nothing"
        run_rc 78 "$HALOCTL" validate "$TEST_DIR/bad.yaml"
        assert_contains "$OUT" "$2" "validate of $1"
        refused
}
check_profile_rejects "s/match: { name: $IF_A }/match: { name: $(long i 16) }/" "is not an interface name or glob"
check_profile_rejects "s/^  a: {/  $(long n 64): {/" "is not a valid node name"
check_profile_rejects "s/^  a: { links/  a: { hostname: $(long h 64).example, links/" "is not a host name" # a label of 64
check_profile_rejects "s/^  a: { links/  a: { hostname: $(for i in $(seq 60); do printf 'abcd.'; done)x, links/" "is not a host name" # 301 characters
check_profile_rejects "s/^cluster: st-test/cluster: $(long c 64)/" "is not a valid cluster name"
check_profile_rejects "s|10.78.0.1/30|10.78.0.1000/30|" "is not an IPv4 address"
check_profile_rejects "s|10.78.0.1/30|10.78.0.1/300|" "prefix length"
check_profile_rejects "s|10.78.0.1/30|$(long 1 5000)|" "longer than the cap"
log "a 2 MiB profile: rejected by size before parsing"
{ cat "$TEST_DIR/good.yaml"; long '#' $((2 * 1024 * 1024)); } >"$TEST_DIR/huge.yaml"
run_rc 78 "$HALOCTL" validate "$TEST_DIR/huge.yaml"
assert_contains "$OUT" "larger than the cap"
refused
log "an over-long --node"
run_rc 64 in_ns "$NS_A" "$HALOCTL" --node "$(long n 300)" check "$PROFILE"
assert_contains "$OUT" "$(long n 20)"
refused

log "the peer channel: addresses outside the profile, privileged ports, over-long names, amplification"
# verify mode: the test configures both ends itself.
ip -n "$NS_A" addr add 10.78.0.1/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" mtu 9000
ip -n "$NS_B" link set "$IF_B" mtu 9000
ip -n "$NS_B" addr add 10.78.0.2/30 dev "$IF_B"
ip -n "$NS_B" addr add 10.99.0.2/24 dev "$IF_B"
ip -n "$NS_A" addr add 10.99.0.1/24 dev "$IF_A" # a route back, so that silence is halod's choice
link_up() { ip -n "$1" -o link show dev "$2" | grep -q LOWER_UP; }
ip -n "$NS_A" link set "$IF_A" up
wait_until 10 link_up "$NS_B" "$IF_B"
ip netns exec "$NS_B" python3 - "$N_DATAGRAMS" >"$TEST_DIR/peer.out" 2>&1 <<'EOP' || fail "peer channel: $(cat "$TEST_DIR/peer.out")"
import socket, struct, sys
n = int(sys.argv[1])
HALOD = ("10.78.0.1", 7739)
def request(size, type_=1, cluster=b"st-test", node=b"b"):
    dg = bytes(32)
    pad = max(0, size - (26 + len(cluster) + len(node) + len(dg)))
    return (b"HALO" + struct.pack(">BBHIQBBBBH", 1, type_, 0, 7, 0, 1, len(cluster), len(node), len(dg), pad)
            + cluster + node + dg + bytes(pad))
# A datagram that must be answered is waited for ANSWERED seconds: a bound on progress on a busy
# machine, not a time limit (an answer takes well under a millisecond; a busy machine has delayed one
# past half a second). One that must not be is listened for SILENCE seconds.
ANSWERED, SILENCE = 10.0, 0.5
def send(payload, src="10.78.0.2", port=0, wait=ANSWERED):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, 10, 2)  # IP_PMTUDISC_DO: whole frames only
    s.bind((src, port))
    s.settimeout(wait)
    s.sendto(payload, HALOD)
    try:
        return len(s.recv(65536))
    except socket.timeout:
        return None
    finally:
        s.close()
def expect(what, got, want):
    if got != want:
        sys.exit("%s: got %r, expected %r" % (what, got, want))
    print("ok:", what)

# Header 26 + "st-test" + "a" + the digest 32: smaller than any request halod answers.
expect("a well-formed echo request from node b is answered, smaller", send(request(192)), 66)
expect("an MTU request is answered with its own size", send(request(1472, 3)), 1472)
expect("the same request from 10.99.0.2, outside the profile", send(request(192), src="10.99.0.2", wait=SILENCE), None)
expect("the same request from the privileged port 999", send(request(192), port=999, wait=SILENCE), None)
expect("a node name of 64 bytes", send(request(256, node=b"n" * 64), wait=SILENCE), None)
expect("a cluster name of 200 bytes", send(request(512, cluster=b"c" * 200), wait=SILENCE), None)
expect("a request shorter than any reply", send(request(100), wait=SILENCE), None)
# Amplification, request by request: 60 requests of every kind and size, each answered at most by
# as many bytes as it had.
for i in range(60):
    p = request([192, 200, 600, 1472, 4000, 8972][i % 6], 3 if i % 2 else 1)
    r = send(p)
    if r is None or r > len(p):
        sys.exit("request %d of %d bytes: reply %r" % (i, len(p), r))
print("ok: 60 requests, each answered with at most its own size")
# And in a flood from one socket (past the rate limit of 200 at once, 100 a second): bytes out never
# exceed bytes in.
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 2)
s.bind(("10.78.0.2", 0))
s.setblocking(False)
sent = received = 0
def drain():
    global received
    while True:
        try:
            received += len(s.recv(65536))
        except BlockingIOError:
            return
for i in range(n):
    p = request([192, 600, 1472, 8972][i % 4], 3 if i % 3 else 1)
    try:
        s.sendto(p, HALOD)
        sent += len(p)
    except BlockingIOError:
        pass
    drain()
s.settimeout(SILENCE)
try:
    while True:
        received += len(s.recv(65536))
except socket.timeout:
    pass
print("bytes_in=%d bytes_out=%d" % (sent, received))
if received > sent:
    sys.exit("halod sent %d bytes for %d received" % (received, sent))
EOP
cat "$TEST_DIR/peer.out" >&2
REFUSED=$((REFUSED + 5))
bytes=$(grep -o 'bytes_in=.*' "$TEST_DIR/peer.out")
st_halod_alive
st_record hostile_cases_refused "$REFUSED"
st_record peer_amplification "$bytes"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 10
assert_eq "$EXIT_RC" 0 "halod's exit status"
pass
