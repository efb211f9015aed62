#!/bin/bash
# SPDX-License-Identifier: MIT
# The NetworkManager backend against real NetworkManager and real firewalld in a network namespace, on
# a private system bus: the halod-rdma0 profile appears with MTU 9000, the address and zone trusted, the
# kernel and firewalld show them; a second apply changes nothing; drift is repaired in place; an update
# is made in place; a user's connections are never touched; a failed activation (address already on
# the cable) and a zone firewalld does not have leave everything as it was; a NetworkManager that does
# not answer is a clear error within the timeout; halod's route (made over rtnetlink after the
# activation) is left alone by NetworkManager and put back after a delete. With halod's NetworkManager
# module missing, halod says so and changes nothing (it does not fall back to netlink behind
# NetworkManager's back).
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init nm
require_root
require_tools ip dbus-daemon busctl NetworkManager nmcli nm-online firewalld firewall-cmd python3 sha256sum
require_build_file tests/nm-apply-tool daemon/haloctl
# The libnm code is in halod-backend-nm.so, loaded from here (meson test sets it too).
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
[ -f "$HALOD_MODULE_DIR/halod-backend-nm.so" ] || skip "$HALOD_MODULE_DIR/halod-backend-nm.so not built; run ninja -C $BUILD_DIR"
NO_MODULE=$TEST_DIR/no-module
mkdir -p "$NO_MODULE"
TOOL=$BUILD_DIR/tests/nm-apply-tool
HALOCTL=$BUILD_DIR/daemon/haloctl
P=$TEST_DIR/halod.yaml

# apply ADDRESS OPTIONS...: the backend's apply_link directly (nm-apply-tool), for the error paths.
apply() { "$TOOL" apply rdma0 "$IF_A" "$@"; }
# haloctl ARGS...: as a user types it on node "head" (its netns; the private bus is inherited).
haloctl() { in_ns "$NS_A" "$HALOCTL" --node head --color never "$@"; }
profile() { nmcli -g "$1" connection show halod-rdma0; }
active_path() { nmcli -t -f NAME,ACTIVE-PATH connection show --active | sed -n "s/^$1://p"; }
keyfile_state() { sha256sum "$NM_CONNS"/*.nmconnection | sort; stat -c '%n %Y' "$NM_CONNS"/*.nmconnection; }
assert_no_profile() {
        nmcli -t -f NAME connection show | grep -qx halod-rdma0 && fail "halod-rdma0 exists after $1" || true
}
assert_link() { # MTU ADDRESSES...
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" "$1" "kernel MTU of $IF_A"
        shift
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A" | tr '\n' ' ')" "$*${*:+ }" "kernel IPv4 addresses of $IF_A"
}

start_dbus
run_rc 1 "$TOOL" running
assert_eq "$OUT" no "nm_running() without NetworkManager"

netns_pair
# A second interface in the same namespace carries a user's own connection.
IF_U=nm$$u
ip -n "$NS_A" link add "$IF_U" type veth peer name "nm$$v"
ip -n "$NS_A" link set "$IF_U" up
ip -n "$NS_A" link set "nm$$v" up
start_firewalld "$NS_A"

# NetworkManager manages the fabric interface and the user's one. With a DAD timeout (as on a host
# that sets ipv4.dad-timeout), an address that another host already uses makes the activation fail.
mkdir -p "$TEST_DIR/nm-$NS_A/conf.d"
cat >"$TEST_DIR/nm-$NS_A/conf.d/50-test.conf" <<EOF
[keyfile]
unmanaged-devices=except:interface-name:$IF_A;except:interface-name:$IF_U

[connection-dad]
ipv4.dad-timeout=300
EOF
start_networkmanager "$NS_A" "$IF_A"
harness_on_exit "kill -CONT $NM_PID"
nmcli -t -f DEVICE,STATE device | grep -qx "$IF_U:disconnected" ||
        fail "NetworkManager does not manage $IF_U: the harness's NetworkManager configuration layout changed"

run_rc 0 "$TOOL" running
assert_eq "$OUT" yes "nm_running() with NetworkManager"

log "NetworkManager runs, halod's module is missing: a clear error, nothing changed"
run_rc 1 env HALOD_MODULE_DIR="$NO_MODULE" "$TOOL" apply rdma0 "$IF_A" 192.168.100.1/30 --mtu 9000
assert_contains "$OUT" "NetworkManager runs but halod's NetworkManager module could not be loaded from $NO_MODULE/halod-backend-nm.so: cannot open shared object file: No such file or directory; reinstall halod or use the netlink backend"
assert_no_profile "an apply without the module"
assert_link 1500

log "a user's connection on another interface"
nmcli connection add type ethernet con-name user-eth ifname "$IF_U" autoconnect no \
        ipv4.method manual ipv4.addresses 10.77.0.1/24 ethernet.mtu 1400 >/dev/null
nmcli connection up user-eth >/dev/null
user_before=$(sha256sum "$NM_CONNS/user-eth.nmconnection"; active_path user-eth)

log "a user's connection on the fabric interface: refused, nothing changed"
nmcli connection add type ethernet con-name user-fabric ifname "$IF_A" autoconnect no \
        ipv4.method manual ipv4.addresses 10.88.0.1/24 >/dev/null
nmcli connection up user-fabric >/dev/null
run_rc 1 apply 192.168.100.1/30 --mtu 9000 --zone trusted
assert_contains "$OUT" "$IF_A is in use by NetworkManager connection \"user-fabric\""
assert_contains "$OUT" "nothing was changed"
assert_no_profile "a refused apply"
[ -n "$(active_path user-fabric)" ] || fail "user-fabric was taken down"
assert_link 1500 10.88.0.1/24
# The user makes room, as the message says.
nmcli connection down user-fabric >/dev/null
nmcli connection delete user-fabric >/dev/null

log "the address is already used on the cable: the activation fails, the new profile is deleted"
ip -n "$NS_B" addr add 192.168.100.9/30 dev "$IF_B"
run_rc 1 apply 192.168.100.9/30 --mtu 9000 --zone trusted
assert_contains "$OUT" "NetworkManager could not activate halod-rdma0 on $IF_A"
assert_contains "$OUT" "the new profile was deleted again"
assert_no_profile "a failed activation"
assert_link 1500

log "a zone firewalld does not have: refused before anything changes"
run_rc 1 apply 192.168.100.1/30 --mtu 9000 --zone nosuchzone
assert_contains "$OUT" "firewalld has no zone 'nosuchzone'"
assert_contains "$OUT" "halod-rdma0 was not changed"
assert_no_profile "a missing zone"

log "haloctl plan and apply (backend networkmanager): the profile, the kernel, firewalld"
ip -n "$NS_B" addr flush dev "$IF_B"
ip -n "$NS_B" addr add 192.168.100.2/30 dev "$IF_B"
cat >"$P" <<EOF
cluster: nm-test
mode: enforce
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
    firewall-zone: trusted
nodes:
  head:
    links: { rdma0: 192.168.100.1/30 }
    routes: [ { to: 10.9.0.0/24, via: 192.168.100.2 } ]
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF
chmod 644 "$P"
# halod's route, made over rtnetlink after NetworkManager's activation; NetworkManager leaves it.
route_is_halods() { ip -n "$NS_A" route show 10.9.0.0/24 | grep -q "via 192.168.100.2 dev $IF_A proto 104"; }
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): mtu 1500 → 9000"
assert_contains "$OUT" "rdma0 ($IF_A): + 192.168.100.1/30"
assert_no_profile "haloctl plan"
# Without the module haloctl apply fails and leaves the link alone: no netlink fallback.
run_rc 2 in_ns "$NS_A" env HALOD_MODULE_DIR="$NO_MODULE" "$HALOCTL" --node head --color never apply "$P"
assert_contains "$OUT" "(backend networkmanager)"
assert_contains "$OUT" "NetworkManager runs but halod's NetworkManager module could not be loaded"
assert_no_profile "haloctl apply without the module"
assert_link 1500
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "pass  link.rdma0.mtu"
assert_contains "$OUT" "pass  link.rdma0.address"
assert_contains "$OUT" "pass  link.rdma0.zone"
assert_contains "$OUT" "pass  link.rdma0.routes"
route_is_halods || fail "halod's route 10.9.0.0/24 is missing after apply through NetworkManager"
assert_eq "$(profile ipv4.routes)" "" "ipv4.routes of halod-rdma0 (the route is halod's, not NetworkManager's)"
assert_eq "$(nmcli -g connection.id,802-3-ethernet.mtu,ipv4.addresses,connection.zone connection show halod-rdma0 |
        tr '\n' ' ')" "halod-rdma0 9000 192.168.100.1/30 trusted " "nmcli connection show halod-rdma0"
assert_eq "$(profile connection.interface-name)" "$IF_A" "connection.interface-name"
assert_eq "$(profile connection.autoconnect)" yes "connection.autoconnect"
assert_eq "$(profile ipv4.method)" manual "ipv4.method"
assert_eq "$(profile ipv6.method)" disabled "ipv6.method"
assert_link 9000 192.168.100.1/30
assert_eq "$(firewall-cmd --get-zone-of-interface="$IF_A")" trusted "firewalld zone of $IF_A"
udp_roundtrip "$NS_A" "$NS_B" 192.168.100.1 192.168.100.2

log "a second apply changes nothing"
uuid=$(profile connection.uuid)
ac_before=$(active_path halod-rdma0)
files_before=$(keyfile_state)
sleep 1.1 # so that a rewritten keyfile would show in its mtime
run_rc 0 haloctl plan "$P"
run_rc 0 haloctl apply --json "$P"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["backend"]=="networkmanager" and d["applied"] is True and d["changed"] is False, d' \
        "$OUT" || fail "haloctl apply --json: $OUT"
# The backend itself, asked anyway, does nothing either.
run_rc 0 apply 192.168.100.1/30 --mtu 9000 --zone trusted
assert_eq "$(active_path halod-rdma0)" "$ac_before" "active connection after a second apply"
assert_eq "$(keyfile_state)" "$files_before" "keyfiles after a second apply"
route_is_halods || fail "halod's route 10.9.0.0/24 is gone after a second apply"

log "drift behind NetworkManager's back is repaired in place, without re-activating"
ip -n "$NS_A" link set "$IF_A" mtu 1500
firewall-cmd --zone=public --change-interface="$IF_A" >/dev/null
wait_until 5 sh -c "nmcli -g GENERAL.MTU device show $IF_A | grep -qx 1500"
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): mtu 1500 → 9000"
run_rc 0 haloctl apply "$P"
assert_link 9000 192.168.100.1/30
assert_eq "$(firewall-cmd --get-zone-of-interface="$IF_A")" trusted "firewalld zone of $IF_A after drift"
assert_eq "$(active_path halod-rdma0)" "$ac_before" "active connection after repairing drift"
assert_eq "$(keyfile_state)" "$files_before" "keyfiles after repairing drift"
route_is_halods || fail "halod's route 10.9.0.0/24 is gone after repairing drift"

log "the route deleted behind NetworkManager's back: the plan has it, apply puts it back"
ip -n "$NS_A" route del 10.9.0.0/24
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): route + 10.9.0.0/24 via 192.168.100.2"
run_rc 0 haloctl apply "$P"
route_is_halods || fail "halod's route 10.9.0.0/24 was not put back through NetworkManager's backend"

log "an update is made in place"
run_rc 0 apply 192.168.100.1/30 --mtu 4000 --zone trusted
assert_eq "$(profile connection.uuid)" "$uuid" "uuid after an update"
assert_eq "$(profile 802-3-ethernet.mtu)" 4000 "ethernet.mtu after an update"
assert_link 4000 192.168.100.1/30
run_rc 0 apply 192.168.100.1/30 --mtu 9000 --zone trusted --ipv6
assert_eq "$(profile ipv6.method)" link-local "ipv6.method with ipv6: true"
run_rc 0 apply 192.168.100.1/30 --mtu 9000 --zone trusted
assert_eq "$(profile ipv6.method)" disabled "ipv6.method back to disabled"
assert_link 9000 192.168.100.1/30

log "an update whose activation fails: the previous settings come back, and are active again"
ip -n "$NS_B" addr add 192.168.100.5/30 dev "$IF_B"
run_rc 1 apply 192.168.100.5/30 --mtu 4000 --zone trusted
assert_contains "$OUT" "NetworkManager could not activate halod-rdma0"
assert_contains "$OUT" "previous settings were restored and are active again"
assert_eq "$(profile connection.uuid)" "$uuid" "uuid after a rollback"
assert_eq "$(profile 802-3-ethernet.mtu) $(profile ipv4.addresses)" "9000 192.168.100.1/30" "profile after a rollback"
assert_link 9000 192.168.100.1/30
assert_eq "$(firewall-cmd --get-zone-of-interface="$IF_A")" trusted "firewalld zone after a rollback"
ip -n "$NS_B" addr del 192.168.100.5/30 dev "$IF_B"

log "NetworkManager does not answer: a clear error within the timeout, nothing changed"
ac_before=$(active_path halod-rdma0)
files_before=$(keyfile_state)
kill -STOP "$NM_PID"
start=$(date +%s%N)
# Without its own timeout the tool would wait for the stopped NetworkManager for ever: timeout(1)
# bounds that (exit 124), so exit 1 with the message proves the tool's timeout ended it.
run_rc 1 timeout 30 "$TOOL" apply rdma0 "$IF_A" 192.168.100.1/30 --mtu 4000 --zone trusted --timeout-ms 2000
log "a 2000 ms timeout returned after $((($(date +%s%N) - start) / 1000000)) ms"
kill -CONT "$NM_PID"
assert_contains "$OUT" "NetworkManager did not answer within 2000 ms"
assert_contains "$OUT" "halod-rdma0 was not changed"
wait_until 10 nmcli general status
assert_eq "$(profile 802-3-ethernet.mtu)" 9000 "ethernet.mtu after the timeout"
assert_eq "$(keyfile_state)" "$files_before" "keyfiles after the timeout"
assert_eq "$(active_path halod-rdma0)" "$ac_before" "active connection after the timeout"
assert_link 9000 192.168.100.1/30

log "the user's connection on the other interface was never touched"
assert_eq "$(sha256sum "$NM_CONNS/user-eth.nmconnection"; active_path user-eth)" "$user_before" "user-eth"
assert_eq "$(link_ipv4 "$NS_A" "$IF_U")" 10.77.0.1/24 "addresses of $IF_U"
assert_eq "$(link_mtu "$NS_A" "$IF_U")" 1400 "MTU of $IF_U"

pass
