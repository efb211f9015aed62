#!/bin/bash
# SPDX-License-Identifier: MIT
# DCB on a veth in a network namespace, from the running kernel: a veth has no DCB (the kernel answers
# EOPNOTSUPP), so the qos checks skip and say so, the plan refuses the link, and an apply fails with a
# clear message and leaves the link exactly as it was (MTU, addresses, up state); also when the apply
# itself meets the refusal (a snapshot that claims DCB: tests/integration/qos-dcb-tool.c, which sets the
# link's qos in C); then the same as a user types it, haloctl with a profile whose link has qos:.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init qd
require_root
require_tools ip
require_build_file tests/qos-dcb-tool daemon/haloctl
TOOL=$BUILD_DIR/tests/qos-dcb-tool
HALOCTL=$BUILD_DIR/daemon/haloctl

netns_pair
P=$TEST_DIR/halod.yaml
cat >"$P" <<EOF2
cluster: qd-test
mode: enforce
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF2

tool() {
        in_ns "$NS_A" "$TOOL" "$@"
}

link_state() {
        ip -n "$NS_A" -o link show dev "$IF_A" | grep -oE 'mtu [0-9]+|<[^>]*>' | tr '\n' ' '
        ip -n "$NS_A" -o -4 addr show dev "$IF_A" | awk '{ print $4 }' | tr '\n' ' '
}

before=$(link_state)
log "link before: $before"

log "check: both qos checks skip, saying the driver has no DCB support"
run_rc 0 tool check "$P" head
assert_contains "$OUT" "skip qos.rdma0.pfc the driver of $IF_A has no DCB support (the kernel answered EOPNOTSUPP)"
assert_contains "$OUT" "skip qos.rdma0.trust the driver of $IF_A has no DCB support (the kernel answered EOPNOTSUPP)"
assert_contains "$OUT" "fail link.rdma0.mtu"

log "plan: the link cannot be applied, and the plan says why"
run_rc 0 tool plan "$P" head
assert_contains "$OUT" "rdma0 ($IF_A): cannot apply: the driver of $IF_A has no DCB support (the kernel answered EOPNOTSUPP)"

log "apply: refused before anything changes"
run_rc 1 tool apply "$P" head
assert_contains "$OUT" "has no DCB support (the kernel answered EOPNOTSUPP)"
assert_eq "$(link_state)" "$before" "the link after a refused apply"

log "apply with a snapshot that claims DCB: the kernel refuses the PFC change, nothing else is touched"
run_rc 1 tool apply-claimed "$P" head
assert_contains "$OUT" "rdma0 ($IF_A): cannot set PFC on priorities 3 of $IF_A: the driver has no DCB support for it (the kernel answered EOPNOTSUPP); $IF_A left as it was"
assert_eq "$(link_state)" "$before" "the link after a failed apply"

log "the same from another starting state: up, MTU 1400, a foreign address"
ip -n "$NS_A" link set "$IF_A" mtu 1400 up
ip -n "$NS_A" addr add 10.99.0.1/24 dev "$IF_A"
before=$(link_state)
run_rc 1 tool apply-claimed "$P" head
assert_contains "$OUT" "left as it was"
assert_eq "$(link_state)" "$before" "the link after a failed apply"
run_rc 1 tool apply "$P" head
assert_eq "$(link_state)" "$before" "the link after a refused apply"

log "haloctl with a profile whose link asks for qos: check, plan and apply as a user types them"
# A private, empty system bus: haloctl picks the netlink backend and touches none of the host's daemons.
start_dbus
Q=$TEST_DIR/qos.yaml
cat >"$Q" <<EOF2
cluster: qd-test
mode: enforce
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
    qos: { pfc: [3], trust: dscp, dscp-priority: { 26: 3 }, roce-tos: 106 }
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF2
chmod 644 "$Q"
haloctl() {
        in_ns "$NS_A" "$HALOCTL" --node head --color never "$@"
}
run_rc 0 "$HALOCTL" validate "$Q"
assert_contains "$OUT" "QoS PFC on 3, trust dscp"
run_rc 2 haloctl check --only qos.,link. "$Q"
assert_contains "$OUT" "skip  qos.rdma0.pfc"
assert_contains "$OUT" "the driver of $IF_A has no DCB support (the kernel answered EOPNOTSUPP)"
assert_contains "$OUT" "skip  qos.rdma0.trust"
run_rc 2 haloctl plan "$Q"
assert_contains "$OUT" "cannot apply: the driver of $IF_A has no DCB support (the kernel answered EOPNOTSUPP)"
before=$(link_state)
run_rc 2 haloctl apply "$Q"
assert_contains "$OUT" "has no DCB support (the kernel answered EOPNOTSUPP)"
assert_eq "$(link_state)" "$before" "the link after haloctl apply of a qos: it cannot carry out"

pass
