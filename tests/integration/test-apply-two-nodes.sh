#!/bin/bash
# SPDX-License-Identifier: MIT
# Two network namespaces as the two nodes of conf/halod.yaml (head and worker), joined by a veth that
# stands in for the DAC cable: after haloctl apply on both, a datagram crosses from 192.168.100.1 to
# 192.168.100.2, and a full 9000-byte one (don't-fragment) proves jumbo frames end to end.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init lk
require_root
require_tools ip python3 dbus-daemon busctl
require_build_file daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl

start_dbus # private and empty: no NetworkManager, no firewalld
netns_pair

# The shipped profile, with the E810 match (driver ice) replaced by the veth end each namespace
# holds: "<prefix><pid>" followed by a or b.
P=$TEST_DIR/halod.yaml
sed "s/match: { driver: ice }/match: { name: \"${HARNESS_PREFIX}$$?\" }/" "$SOURCE_DIR/conf/halod.yaml" >"$P"
grep -q "name: \"${HARNESS_PREFIX}$$?\"" "$P" || fail "conf/halod.yaml no longer has 'match: { driver: ice }'"

log "nothing crosses before apply"
ip netns exec "$NS_A" python3 -c 'import socket; socket.socket(2, 2).bind(("192.168.100.1", 0))' 2>/dev/null &&
        fail "192.168.100.1 exists in $NS_A before apply"

log "apply on head ($NS_A) and worker ($NS_B)"
run_rc 0 in_ns "$NS_A" "$HALOCTL" --node head --color never apply "$P"
assert_contains "$OUT" "rdma0 ($IF_A): + 192.168.100.1/30"
run_rc 0 in_ns "$NS_B" "$HALOCTL" --node worker --color never apply "$P"
assert_contains "$OUT" "rdma0 ($IF_B): + 192.168.100.2/30"
assert_contains "$OUT" "pass  link.rdma0.up"

log "a datagram crosses from head to worker, and a jumbo one too"
udp_roundtrip "$NS_A" "$NS_B" 192.168.100.1 192.168.100.2
udp_roundtrip "$NS_A" "$NS_B" 192.168.100.1 192.168.100.2 8972
udp_roundtrip "$NS_B" "$NS_A" 192.168.100.2 192.168.100.1 8972

log "both nodes: nothing left to change"
run_rc 0 in_ns "$NS_A" "$HALOCTL" --node head plan "$P"
run_rc 0 in_ns "$NS_B" "$HALOCTL" --node worker plan "$P"

pass
