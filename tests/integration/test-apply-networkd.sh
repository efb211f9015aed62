#!/bin/bash
# SPDX-License-Identifier: MIT
# The networkd backend against a real systemd-networkd in a network namespace, on a private system bus
# (networkd outside PID 1, with a read-only /sys so that it does not wait for udev, and its
# /etc/systemd/network and /run bound from the test directory): haloctl apply --backend networkd writes
# 05-halod-rdma0.network (MTU 9000, the address, a route), networkd applies it and the kernel shows it;
# a second apply changes nothing; `networkctl reload` and a restart of networkd keep it; an apply that
# networkd carries out differently (an MTU the device cannot take: networkd lowers it) puts the previous
# file and the link back; a netplan-generated 10-netplan-<if>.network for the same interface is named
# by link.rdma0.owner and halod's file still wins; a networkd that does not run is a clear error.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init nd
require_networkd
P=$TEST_DIR/halod.yaml
networkd_dirs
FILE=$ND/etc-network/05-halod-rdma0.network
NETPLAN_FILE=$ND/run/systemd/network/10-netplan-rdma0.network

start_dbus
netns_pair
IF_INDEX=$(ip -n "$NS_A" -o link show dev "$IF_A" | cut -d: -f1)

haloctl() { in_nd "$HALOCTL" --node head --color never "$@"; }

assert_link() { # MTU ADDRESSES...
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" "$1" "kernel MTU of $IF_A"
        shift
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A" | tr '\n' ' ')" "$*${*:+ }" "kernel IPv4 addresses of $IF_A"
}
nd_configured() { in_nd networkctl --no-legend list "$IF_A" | grep -q " configured"; }
route_of() { ip -n "$NS_A" -4 route show 10.9.0.0/24 | sed 's/ *$//'; }

write_profile() { # MTU
        cat >"$P" <<EOF
cluster: nd
health: { peers: false }
links:
  rdma0: { match: { name: "$IF_A" }, mtu: $1 }
nodes:
  head:
    links: { rdma0: 192.168.100.1/30 }
    routes: [ { to: 10.9.0.0/24, via: 192.168.100.2, metric: 50 } ]
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF
}
write_profile 9000

log "networkd does not run: --backend networkd is a clear error, nothing written"
run_rc 2 haloctl apply --backend networkd "$P"
assert_contains "$OUT" "systemd-networkd does not run (org.freedesktop.network1 has no owner on the system bus)"
[ ! -e "$FILE" ] || fail "$FILE written although networkd does not run"

start_networkd
run_rc 0 in_nd "$HALOCTL" check --only link.rdma0.owner --node head "$P" # no file yet: a skip
assert_contains "$OUT" "no systemd-networkd or netplan file configures"

log "apply: the file, then networkd, then the kernel"
run_rc 0 haloctl apply --backend networkd "$P"
assert_contains "$OUT" "rdma0 ($IF_A): mtu 1500 → 9000"
[ -f "$FILE" ] || fail "$FILE not written"
assert_eq "$(stat -c %a "$FILE")" 644 "mode of $FILE"
assert_eq "$(cat "$FILE")" "# Written by halod for link rdma0 of its profile; halod rewrites it on every apply.
# Edit the profile instead: see halod(8), BACKENDS.

[Match]
Name=$IF_A

[Link]
MTUBytes=9000

[Network]
Address=192.168.100.1/30
ConfigureWithoutCarrier=yes

[Route]
Destination=10.9.0.0/24
Gateway=192.168.100.2
Metric=50" "$FILE (a veth has no permanent address: Name=)"
assert_link 9000 192.168.100.1/30
assert_eq "$(route_of)" "10.9.0.0/24 via 192.168.100.2 dev $IF_A proto static metric 50" "route made by networkd"
assert_eq "$(in_nd networkctl --no-legend list "$IF_A" | awk '{print $5}')" configured "networkd's state of $IF_A"
assert_contains "$OUT" "pass  link.rdma0.owner"

log "a second apply changes nothing"
run_rc 0 haloctl apply --backend networkd "$P"
assert_contains "$OUT" "nothing to change"

log "networkctl reload, networkctl reconfigure and a restart of networkd keep the settings"
in_nd networkctl reload
in_nd networkctl reconfigure "$IF_A"
wait_until 20 nd_configured
assert_link 9000 192.168.100.1/30
stop_pid "$ND_PID"
start_networkd
wait_until 20 nd_configured
assert_link 9000 192.168.100.1/30
assert_eq "$(route_of)" "10.9.0.0/24 via 192.168.100.2 dev $IF_A proto static metric 50" "route after a restart"
run_rc 0 haloctl apply --backend networkd "$P"
assert_contains "$OUT" "nothing to change"

log "drift: an MTU changed by hand is put back through networkd, chosen by itself (networkd runs, NetworkManager does not)"
ip -n "$NS_A" link set "$IF_A" mtu 1500
run_rc 0 haloctl apply --json "$P"
assert_contains "$OUT" '"backend": "networkd"'
assert_contains "$OUT" "mtu 1500 → 9000"
assert_link 9000 192.168.100.1/30

log "a netplan file for the same interface: named by link.rdma0.owner, halod's file still wins"
cat >"$NETPLAN_FILE" <<EOF
[Match]
Name=$IF_A

[Link]
MTUBytes=1500

[Network]
Address=10.77.0.1/24
EOF
run_rc 1 in_nd "$HALOCTL" check --only link.rdma0.owner --node head "$P"
assert_contains "$OUT" "warn  link.rdma0.owner"
assert_contains "$OUT" "is also configured by /run/systemd/network/10-netplan-rdma0.network; systemd-networkd uses /etc/systemd/network/05-halod-rdma0.network"
in_nd networkctl reload
in_nd networkctl reconfigure "$IF_A"
wait_until 20 nd_configured
assert_link 9000 192.168.100.1/30
in_nd networkctl status "$IF_A" 2>/dev/null | grep -q "Network File: /etc/systemd/network/05-halod-rdma0.network" ||
        fail "networkd does not use halod's file for $IF_A: $(in_nd networkctl status "$IF_A" 2>&1 | head -5)"
rm -f "$NETPLAN_FILE"

log "an apply networkd carries out differently rolls back: an MTU the device cannot take"
ip -n "$NS_A" link set "$IF_A" mtu 1500
ip -n "$NS_B" link set "$IF_B" mtu 1500
veth_limit_peer_mtu "$NS_B" "$IF_B" # IF_A's max MTU is now about 3500; networkd lowers 9000 to it
before=$(cat "$FILE")
run_rc 2 haloctl apply --backend networkd "$P"
assert_contains "$OUT" "Failed to apply $P (backend networkd):"
assert_contains "$OUT" "systemd-networkd says $IF_A is configured, but the kernel shows MTU"
assert_contains "$OUT" "put the previous /etc/systemd/network/05-halod-rdma0.network back and $IF_A with it"
assert_eq "$(cat "$FILE")" "$before" "the previous file after the rollback"
wait_until 20 nd_configured
assert_contains "$(link_ipv4 "$NS_A" "$IF_A")" 192.168.100.1/30

log "an apply without a previous file rolls back to no file and the link as it was"
rm -f "$FILE"
in_nd networkctl reload
ip -n "$NS_A" addr flush dev "$IF_A"
ip -n "$NS_A" route flush dev "$IF_A" 2>/dev/null || true
run_rc 2 haloctl apply --backend networkd "$P"
assert_contains "$OUT" "removed /etc/systemd/network/05-halod-rdma0.network and put $IF_A back as it was"
[ ! -e "$FILE" ] || fail "$FILE left behind by a failed apply"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "" "addresses of $IF_A after the rollback"
assert_eq "$(route_of)" "" "route after the rollback"

log "the same with the address there before: it stays, and the route networkd added (proto static) goes"
in_nd networkctl reload
ip -n "$NS_A" route flush dev "$IF_A" 2>/dev/null || true
ip -n "$NS_A" addr add 192.168.100.1/30 dev "$IF_A"
run_rc 2 haloctl apply --backend networkd "$P"
[ ! -e "$FILE" ] || fail "$FILE left behind by a failed apply"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "192.168.100.1/30" "addresses of $IF_A after the rollback"
assert_eq "$(route_of)" "" "route after the rollback, with the address kept"
