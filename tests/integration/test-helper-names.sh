#!/bin/bash
# SPDX-License-Identifier: MIT
# What the root helper writes cannot be widened by the user halod (issue 31, finding 1). halod holds
# CAP_NET_ADMIN, so it can rename the fabric netdev; the helper's run (`haloctl apply --only
# cdi,hosts.,networkd`, as root) then must not write that name where networkd or NCCL reads it as a
# pattern. Here, with the networkd backend as test-apply-networkd.sh runs it (networkd in a network
# namespace, on a private bus), the fabric veth is matched by mac: (a veth has no permanent address, so
# halod's file would match on its name) and renamed to '*', to '!<management link>' and to '^lo'. The
# helper refuses each with an error naming the link and the character, writes no file, and the
# management link keeps its address; the CDI spec carries no NCCL_SOCKET_IFNAME that NCCL would read as
# "every interface but lo". When a later link of the same apply fails, the file written for the first
# goes back with it (before, it outlived the failed apply). Without --node and without a hostname in the profile the helper does not
# pick its node by a local address (one halod can add).
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init hn
require_networkd
P=$TEST_DIR/halod.yaml
networkd_dirs
FILE=$ND/etc-network/05-halod-rdma0.network
SPEC=$ND/run/cdi/halod.json

start_dbus
netns_pair
# The management link: another veth in the same namespace, with an address of its own that no file of
# networkd's configures (networkd leaves it alone unless a file matches it).
MGMT=hnm$$
ip link add name "$MGMT" netns "$NS_A" type veth peer name "hnp$$" netns "$NS_B"
ip -n "$NS_A" addr add 10.44.0.1/24 dev "$MGMT"
ip -n "$NS_A" link set "$MGMT" up
MAC=$(ip -n "$NS_A" -o link show dev "$IF_A" | sed -n 's|.*link/ether \([0-9a-f:]*\) .*|\1|p')
[ -n "$MAC" ] || fail "cannot read the address of $IF_A"

cat >"$P" <<EOF
cluster: hn
health: { peers: false }
links:
  rdma0: { match: { mac: "$MAC" }, mtu: 9000 }
nodes:
  head: { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF

# helper_run [ARGS...]: the helper's command line, as halod-helper.service runs it, in NS_A with
# networkd's files; --node head unless ARGS say otherwise.
helper_run() {
        in_nd "$HALOCTL" apply --only cdi,hosts.,networkd --color never "$@"
}

start_networkd

# rename_fabric NAME: what halod's CAP_NET_ADMIN can do to the fabric netdev (down, as a rename needs).
CUR=$IF_A
rename_fabric() {
        ip -n "$NS_A" link set dev "$CUR" down
        ip -n "$NS_A" link set dev "$CUR" name "$1"
        CUR=$1
}

mgmt_intact() {
        assert_eq "$(link_ipv4 "$NS_A" "$MGMT")" "10.44.0.1/24" "addresses of the management link $MGMT"
        assert_eq "$(link_mtu "$NS_A" "$MGMT")" 1500 "MTU of the management link $MGMT"
        assert_eq "$(link_ipv4 "$NS_A" lo | tr '\n' ' ')" "127.0.0.1/8 " "addresses of lo"
}

for name in '*' "!$MGMT"; do
        log "the fabric veth renamed to '$name': the helper writes no file that takes more than it"
        rename_fabric "$name"
        run_rc 2 helper_run --node head "$P"
        [ ! -e "$FILE" ] || fail "the helper wrote $FILE for a link named '$name': $(cat "$FILE")"
        assert_contains "$OUT" "link rdma0: its interface '$name' holds '${name:0:1}',"
        assert_contains "$OUT" "nothing changed"
        mgmt_intact
done

log "renamed to '^lo': Name=^lo takes it alone, but NCCL would read \"every interface but lo\""
rename_fabric '^lo'
run_rc 0 helper_run --node head "$P"
assert_contains "$(cat "$FILE")" "Name=^lo"
[ -f "$SPEC" ] || fail "the helper wrote no CDI spec"
assert_not_contains "$(cat "$SPEC")" "SOCKET_IFNAME=^lo"
assert_contains "$OUT" "CDI spec: NCCL_SOCKET_IFNAME not set: link rdma0: '^lo' holds '^', a leading '^' makes NCCL's list exclude the interface"
mgmt_intact

log "a plain name again: the helper writes the file, and it matches the fabric link alone"
rename_fabric "$IF_A"
run_rc 0 helper_run --node head "$P"
assert_contains "$(cat "$FILE")" "Name=$IF_A"
assert_contains "$(cat "$SPEC")" "NCCL_SOCKET_IFNAME=$IF_A"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU of $IF_A"
mgmt_intact

log "a later link fails: the file the helper wrote for the first goes back with it"
SECOND=hn2$$
ip link add name "$SECOND" netns "$NS_A" type veth peer name "hq2$$" netns "$NS_B"
ip -n "$NS_B" link set "hq2$$" up
veth_limit_peer_mtu "$NS_B" "hq2$$" # networkd lowers 9000 on $SECOND: its apply fails
rm -f "$FILE"
in_nd networkctl reload
ip -n "$NS_A" link set "$IF_A" mtu 1500
ip -n "$NS_A" addr flush dev "$IF_A"
P2=$TEST_DIR/two-links.yaml
cat >"$P2" <<EOF
cluster: hn
health: { peers: false }
links:
  rdma0: { match: { mac: "$MAC" }, mtu: 9000 }
  rdma1: { match: { name: "$SECOND" }, mtu: 9000 }
nodes:
  head: { links: { rdma0: 192.168.100.1/30, rdma1: 192.168.101.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30, rdma1: 192.168.101.2/30 } }
EOF
run_rc 2 helper_run --node head "$P2"
assert_contains "$OUT" "systemd-networkd says $SECOND is configured, but the kernel shows MTU"
assert_contains "$OUT" "put rdma0 ($IF_A) back as it was before this apply"
[ ! -e "$FILE" ] || fail "the file for rdma0 outlived the failed apply: $(cat "$FILE")"
[ ! -e "$ND/etc-network/05-halod-rdma1.network" ] || fail "the file for rdma1 outlived the failed apply"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" "" "addresses of $IF_A after the rollback"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "MTU of $IF_A after the rollback"
mgmt_intact

log "no --node and no hostnames: an address halod could add does not pick the helper's node"
ip -n "$NS_A" addr add 192.168.100.2/32 dev lo
run_rc 78 helper_run "$P"
assert_contains "$OUT" "by its hostname or --node"
assert_not_contains "$OUT" "worker:"
ip -n "$NS_A" addr del 192.168.100.2/32 dev lo
