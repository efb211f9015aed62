#!/bin/bash
# SPDX-License-Identifier: MIT
# A daisy chain of three nodes in three network namespaces (node1 —veth— node2 —veth— node3), each
# applied with haloctl through the netlink backend: node1 and node3 get a route to each other's subnet
# through node2, node2 forwards. After apply node1 reaches node3 (a UDP datagram each way through node2's kernel),
# the route and forwarding checks pass; a route deleted by hand fails the check, and apply puts it
# back; a route that leaves the profile is removed, somebody else's route stays; and halod in enforce
# mode puts a deleted route back by itself (the route event re-checks the link). With health.peers,
# node1's peer checks cover node3 through the route (probed at 10.0.2.3 via node2, answered by node3's
# route back), and say so; with node2's forwarding off node3 is unreachable, naming node2.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/daemon-lib.sh"

harness_init rt
require_root
require_tools ip python3 dbus-daemon busctl
require_build_file daemon/haloctl daemon/halod tests/peer-responder
HALOCTL=$BUILD_DIR/daemon/haloctl

# A private, empty system bus: no NetworkManager answers, so haloctl picks the netlink backend.
start_dbus
dm_install_bus_policy
N1=${HARNESS_PREFIX}ns-$$-1
N2=${HARNESS_PREFIX}ns-$$-2
N3=${HARNESS_PREFIX}ns-$$-3
L1=rt$$l1 # node1's end of the left cable
L2=rt$$l2 # node2's end of it
R2=rt$$r2 # node2's end of the right cable
R3=rt$$r3 # node3's end of it
for ns in "$N1" "$N2" "$N3"; do
        netns_add "$ns"
done
ip link add name "$L1" netns "$N1" type veth peer name "$L2" netns "$N2"
ip link add name "$R2" netns "$N2" type veth peer name "$R3" netns "$N3"
# Whatever a new namespace inherits, node2 starts as a host that does not forward.
ip netns exec "$N2" sysctl -qw net.ipv4.conf.all.forwarding=0 net.ipv4.conf.default.forwarding=0
P=$TEST_DIR/halod.yaml

# write_profile EXTRA_NODE1_ROUTE [PEERS]: node1's routes get one more entry when given; PEERS is
# health.peers (default false).
write_profile() {
        cat >"$P" <<EOF2
cluster: chain
health: { peers: ${2:-false} }
links:
  left: {}
  right: {}
nodes:
  node1:
    links: { left: { address: 10.0.1.1/24, match: { name: "$L1" } } }
    routes:
      - { to: 10.0.2.0/24, via: 10.0.1.2 }
${1:-}
  node2:
    links:
      left: { address: 10.0.1.2/24, match: { name: "$L2" } }
      right: { address: 10.0.2.2/24, match: { name: "$R2" } }
    forwarding: true
  node3:
    links: { right: { address: 10.0.2.3/24, match: { name: "$R3" } } }
    routes: [ { to: 10.0.1.0/24, via: 10.0.2.2, link: right, metric: 50 } ]
EOF2
        chmod 644 "$P"
}

haloctl_on() {
        local node=$1
        shift
        in_ns "${HARNESS_PREFIX}ns-$$-${node#node}" "$HALOCTL" --node "$node" --color never "$@"
}

write_profile
run_rc 0 "$HALOCTL" validate "$P"

log "plan on node1: the route is a change; node2: forwarding on both links"
run_rc 1 haloctl_on node1 plan "$P"
assert_contains "$OUT" "left ($L1): route + 10.0.2.0/24 via 10.0.1.2"
run_rc 1 haloctl_on node2 plan "$P"
assert_contains "$OUT" "left ($L2): forwarding off → on"
assert_contains "$OUT" "right ($R2): forwarding off → on"

log "apply on every node (the far ends up first, so that node2's links have a carrier)"
ip -n "$N1" link set "$L1" up
ip -n "$N3" link set "$R3" up
run_rc 0 haloctl_on node2 apply "$P"
assert_contains "$OUT" "pass  link.left.forwarding"
assert_contains "$OUT" "pass  link.right.forwarding"
assert_eq "$(ip netns exec "$N2" cat /proc/sys/net/ipv4/conf/"$L2"/forwarding)" 1 "node2's forwarding on $L2"
run_rc 0 haloctl_on node1 apply "$P"
assert_contains "$OUT" "pass  link.left.routes"
run_rc 0 haloctl_on node3 apply "$P"
assert_contains "$OUT" "pass  link.right.routes"
assert_contains "$(ip -n "$N1" route show 10.0.2.0/24)" "via 10.0.1.2 dev $L1 proto 104"
assert_contains "$(ip -n "$N3" route show 10.0.1.0/24)" "via 10.0.2.2 dev $R3 proto 104 metric 50"

log "node1 reaches node3 through node2"
udp_roundtrip "$N1" "$N3" 10.0.1.1 10.0.2.3
udp_roundtrip "$N3" "$N1" 10.0.2.3 10.0.1.1

log "idempotent: nothing to change on node1"
run_rc 0 haloctl_on node1 plan "$P"
assert_contains "$OUT" "nothing to change"

log "drift: the route deleted by hand fails the check; apply puts it back"
ip -n "$N1" route del 10.0.2.0/24
run_rc 2 haloctl_on node1 check "$P"
assert_contains "$OUT" "fail  link.left.routes"
assert_contains "$OUT" "10.0.2.0/24 via 10.0.1.2 is missing"
run_rc 0 haloctl_on node1 apply "$P"
assert_contains "$OUT" "route + 10.0.2.0/24 via 10.0.1.2"
udp_roundtrip "$N1" "$N3" 10.0.1.1 10.0.2.3

log "a gateway changed by hand is put back (replaced in place)"
ip -n "$N1" route replace 10.0.2.0/24 via 10.0.1.9 dev "$L1"
run_rc 2 haloctl_on node1 check "$P"
assert_contains "$OUT" "10.0.2.0/24 via 10.0.1.2 is 10.0.2.0/24 via 10.0.1.9"
run_rc 0 haloctl_on node1 apply "$P"
assert_contains "$(ip -n "$N1" route show 10.0.2.0/24)" "via 10.0.1.2 dev $L1 proto 104"

log "a route that leaves the profile goes; somebody else's stays"
write_profile "      - { to: 10.0.9.0/24, via: 10.0.1.2 }"
run_rc 0 haloctl_on node1 apply "$P"
assert_contains "$(ip -n "$N1" route show 10.0.9.0/24)" "via 10.0.1.2"
ip -n "$N1" route add 10.0.8.0/24 via 10.0.1.2 dev "$L1"
write_profile
run_rc 1 haloctl_on node1 plan "$P"
assert_contains "$OUT" "route - 10.0.9.0/24 via 10.0.1.2 (halod's, no longer in the profile)"
assert_not_contains "$OUT" "10.0.8.0/24"
run_rc 0 haloctl_on node1 apply "$P"
assert_eq "$(ip -n "$N1" route show 10.0.9.0/24)" "" "the removed route"
assert_contains "$(ip -n "$N1" route show 10.0.8.0/24)" "via 10.0.1.2" "somebody else's route"

log "node2's forwarding turned off by hand: the check fails, apply turns it on with /proc/sys read-only"
ip netns exec "$N2" sysctl -qw net.ipv4.conf."$L2".forwarding=0
run_rc 2 haloctl_on node2 check "$P"
assert_contains "$OUT" "fail  link.left.forwarding"
# As inside halod.service (ProtectKernelTunables=yes): the switch goes over rtnetlink, not /proc/sys.
run_rc 0 ip netns exec "$N2" unshare -m sh -c '
        mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys &&
        if echo 1 >/proc/sys/net/ipv4/conf/all/forwarding 2>/dev/null; then echo "/proc/sys writable"; exit 9; fi &&
        exec "$0" --node node2 --color never apply "$1"' "$HALOCTL" "$P"
assert_contains "$OUT" "pass  link.left.forwarding"
assert_eq "$(ip netns exec "$N2" cat /proc/sys/net/ipv4/conf/"$L2"/forwarding)" 1 "node2's forwarding on $L2"
udp_roundtrip "$N1" "$N3" 10.0.1.1 10.0.2.3

log "peer checks on node1: node2 over the shared link, node3 through the route via node2"
write_profile "" true
for node in node2 node3; do
        # ip netns exec itself, not in_ns: $! must be the responder, which the teardown stops (a shell
        # function in the background is a subshell whose end leaves the responder running).
        ip netns exec "${HARNESS_PREFIX}ns-$$-${node#node}" "$BUILD_DIR/tests/peer-responder" "$P" "$node" \
                --ready "$TEST_DIR/$node.ready" >>"$TEST_DIR/logs/responder-$node.log" 2>&1 &
        track_pid $!
        wait_until 10 test -e "$TEST_DIR/$node.ready"
done
# The peer checks but peer.*.latency, whose verdict follows the shared machine's load (a p99 over
# 10 ms warns), not the routes this test is about.
peer_checks() {
        local node ids=""
        for node in "$@"; do
                ids+="${ids:+,}peer.$node.reachable,peer.$node.mtu,peer.$node.profile,peer.$node.rdma"
        done
        echo "$ids"
}
run_rc 0 haloctl_on node1 check --only "$(peer_checks node2 node3)" "$P"
assert_contains "$OUT" "pass  peer.node2.reachable"
assert_contains "$OUT" "pass  peer.node3.reachable"
assert_contains "$OUT" "node3 answers at 10.0.2.3 over left via 10.0.1.2 (node2)"
assert_contains "$OUT" "pass  peer.node3.profile"
run_rc 0 haloctl_on node1 check --only "$(peer_checks node2 node3)" --json "$P"
assert_contains "$OUT" '"peer.node3.reachable"'
log "node3 probes node1 back the same way (its route names the link: right)"
ip netns exec "$N1" "$BUILD_DIR/tests/peer-responder" "$P" node1 --ready "$TEST_DIR/node1.ready" \
        >>"$TEST_DIR/logs/responder-node1.log" 2>&1 &
RESPONDER1=$!
track_pid "$RESPONDER1"
wait_until 10 test -e "$TEST_DIR/node1.ready"
run_rc 0 haloctl_on node3 check --only "$(peer_checks node1)" "$P"
assert_contains "$OUT" "node1 answers at 10.0.1.1 over right via 10.0.2.2 (node2)"

log "node2 stops forwarding: node3 is unreachable from node1, and the message names node2"
ip netns exec "$N2" sysctl -qw net.ipv4.conf."$L2".forwarding=0
run_rc 2 haloctl_on node1 check --only peer. "$P"
assert_contains "$OUT" "pass  peer.node2.reachable"
assert_contains "$OUT" "fail  peer.node3.reachable"
assert_contains "$OUT" "node3 (10.0.2.3) did not answer"
assert_contains "$OUT" "over left via 10.0.1.2 (node2)"
assert_contains "$OUT" "does node2 forward"
ip netns exec "$N2" sysctl -qw net.ipv4.conf."$L2".forwarding=1
run_rc 0 haloctl_on node1 check --only "$(peer_checks node2 node3)" "$P"
assert_contains "$OUT" "pass  peer.node3.reachable"
kill "$RESPONDER1" # halod binds node1's peer port below
wait "$RESPONDER1" || true
write_profile

log "halod in enforce mode on node1: a route deleted by hand comes back without anyone asking"
dm_start_halod "$N1" node1 "$P"
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_contains "$(grep READY=1 "$NOTIFY_OUT")" "STATUS=healthy: " "READY datagram"
ip -n "$N1" route del 10.0.2.0/24
wait_until 10 sh -c "ip -n '$N1' route show 10.0.2.0/24 | grep -q 'via 10.0.1.2'"
assert_contains "$(cat "$HALOD_LOG")" "Drift detected on link left" "halod's log"
assert_contains "$(cat "$HALOD_LOG")" "link.left.routes" "halod's log"
udp_roundtrip "$N1" "$N3" 10.0.1.1 10.0.2.3

pass
