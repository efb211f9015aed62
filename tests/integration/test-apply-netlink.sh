#!/bin/bash
# SPDX-License-Identifier: MIT
# The netlink backend on a veth in a network namespace, as a user types it: haloctl plan, apply,
# verify from the kernel, plan and apply again (nothing to change); stray addresses; and bad input:
# mode: verify, not root, an address another interface uses, a link that cannot take MTU 9000.
# No firewalld on the (private) bus: the zone check says so.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init lk
require_root
require_tools ip python3 dbus-daemon busctl setpriv
require_build_file daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl

# A private, empty system bus: neither NetworkManager nor firewalld answers on it, so haloctl picks
# the netlink backend, and nothing of the host's own daemons is touched.
start_dbus
netns_pair
P=$TEST_DIR/halod.yaml

# write_profile MODE ADDRESS [WORKER_ADDRESS]: a profile whose rdma0 is $IF_A, by name; this is head.
write_profile() {
        cat >"$P" <<EOF
cluster: lk-test
mode: $1
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
    firewall-zone: trusted
nodes:
  head:   { links: { rdma0: $2 } }
  worker: { links: { rdma0: ${3:-192.168.100.2/30} } }
EOF
        chmod 644 "$P"
}

haloctl() {
        in_ns "$NS_A" "$HALOCTL" --node head --color never "$@"
}

link_is_up() {
        ip -n "$NS_A" -o link show dev "$IF_A" | grep -q '<[^>]*\bUP\b'
}

write_profile enforce 192.168.100.1/30

log "plan: lists every change, changes nothing, exits 1"
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): mtu 1500 → 9000"
assert_contains "$OUT" "rdma0 ($IF_A): link down → up"
assert_contains "$OUT" "rdma0 ($IF_A): + 192.168.100.1/30"
assert_not_contains "$OUT" "zone" "plan without firewalld"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "MTU after plan"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "" "addresses after plan"

log "apply: changes it, then proves it from the kernel"
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "rdma0 ($IF_A): mtu 1500 → 9000"
assert_contains "$OUT" "pass  link.rdma0.mtu"
assert_contains "$OUT" "pass  link.rdma0.address"
assert_contains "$OUT" "pass  link.rdma0.up"
assert_contains "$OUT" "skip: firewalld not running"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU after apply"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "192.168.100.1/30" "addresses after apply"
link_is_up || fail "$IF_A is not up after apply"

log "idempotent: plan exits 0, a second apply changes nothing and says so"
run_rc 0 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): nothing to change"
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "nothing to change: rdma0 ($IF_A) already matches the profile"
run_rc 0 haloctl plan --json "$P"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["changes"] is False and d["links"][0]["ifname"]==sys.argv[2], d' \
        "$OUT" "$IF_A" || fail "plan --json: $OUT"

log "stray addresses: halod's old address and others in the subnet go, foreign ones stay"
# 192.168.100.6/30: somebody else's, outside the old subnet; .2/30: a secondary of halod's old .1/30,
# which the kernel deletes together with it (so the plan lists it); 10.99.0.1/24: foreign.
ip -n "$NS_A" addr add 192.168.100.2/30 dev "$IF_A"
ip -n "$NS_A" addr add 192.168.100.9/30 dev "$IF_A"
ip -n "$NS_A" addr add 10.99.0.1/24 dev "$IF_A"
write_profile enforce 192.168.100.5/30 192.168.100.6/30
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): - 192.168.100.1/30"
assert_contains "$OUT" "rdma0 ($IF_A): - 192.168.100.2/30"
assert_not_contains "$OUT" "192.168.100.9" "plan"
assert_not_contains "$OUT" "10.99.0.1" "plan"
assert_contains "$OUT" "rdma0 ($IF_A): + 192.168.100.5/30"
run_rc 0 haloctl apply "$P"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A" | tr '\n' ' ')" "10.99.0.1/24 192.168.100.5/30 192.168.100.9/30 " "addresses"
ip -n "$NS_A" addr add 192.168.100.6/30 dev "$IF_A"
write_profile enforce 192.168.100.1/30
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "- 192.168.100.5/30"
assert_contains "$OUT" "- 192.168.100.6/30"
assert_contains "$OUT" "+ 192.168.100.1/30"
run_rc 0 haloctl apply "$P"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A" | tr '\n' ' ')" "10.99.0.1/24 192.168.100.1/30 192.168.100.9/30 " "addresses"
ip -n "$NS_A" addr del 10.99.0.1/24 dev "$IF_A"
ip -n "$NS_A" addr del 192.168.100.9/30 dev "$IF_A"

log "mode: verify never changes anything, unless --force"
ip -n "$NS_A" link set "$IF_A" mtu 1500
write_profile verify 192.168.100.1/30
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "mtu 1500 → 9000"
run_rc 77 haloctl apply "$P"
assert_contains "$OUT" "mode: verify"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "MTU after a refused apply"
run_rc 0 haloctl apply --force "$P"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU after apply --force"
write_profile enforce 192.168.100.1/30

log "not root: exit 77 with a clear message"
run_rc 77 in_ns "$NS_A" setpriv --reuid=65534 --regid=65534 --clear-groups "$HALOCTL" --node head apply "$P"
assert_contains "$OUT" "needs root"

# From here on the link starts unconfigured again.
reset_link() {
        ip -n "$NS_A" addr flush dev "$IF_A"
        ip -n "$NS_A" link set "$IF_A" down
        ip -n "$NS_A" link set "$IF_A" mtu 1500
}

log "an address another interface already uses: error naming both, the link left as it was"
reset_link
BR=${HARNESS_PREFIX}$$br
ip -n "$NS_A" link add "$BR" type bridge
ip -n "$NS_A" addr add 192.168.100.1/24 dev "$BR"
run_rc 2 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): cannot apply: address 192.168.100.1/30 is already used by $BR"
run_rc 2 haloctl apply "$P"
assert_contains "$OUT" "Failed to apply"
assert_contains "$OUT" "rdma0 ($IF_A): address 192.168.100.1/30 is already used by $BR"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "MTU after the refused apply"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "" "addresses after the refused apply"
link_is_up && fail "$IF_A was set up by a refused apply"
ip -n "$NS_A" link del "$BR"

log "a link that cannot take MTU 9000: the kernel's reason, and the address added before rolled back"
reset_link
veth_limit_peer_mtu "$NS_B" "$IF_B"
max=$(ip -n "$NS_A" -d -o link show dev "$IF_A" | sed -n 's/.* maxmtu \([0-9]*\).*/\1/p')
[ -n "$max" ] && [ "$max" -lt 9000 ] || fail "XDP on $IF_B did not lower the max MTU of $IF_A (maxmtu '$max')"
run_rc 2 haloctl apply "$P"
assert_contains "$OUT" "rdma0 ($IF_A): cannot set MTU 9000 on $IF_A: mtu greater than device maximum"
assert_contains "$OUT" "the largest MTU $IF_A takes is $max"
assert_contains "$OUT" "$IF_A left as it was"
assert_contains "$OUT" "fail  link.rdma0.mtu"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "MTU after the failed apply"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "" "addresses after the failed apply (rolled back)"
link_is_up && fail "$IF_A was left up by a failed apply"

pass
