#!/bin/bash
# SPDX-License-Identifier: MIT
# A node built by the guide, taken over and given back, against real NetworkManager and real firewalld
# in a network namespace on a private system bus. The guide's nmcli connection "rdma0" holds the
# fabric interface: haloctl apply refuses and names --adopt; haloctl plan --adopt shows the takeover
# and changes nothing; an adopt that fails (a zone firewalld does not have; an activation that fails
# after the rename) leaves the guide's connection as it was; haloctl apply --adopt takes it over (the
# kernel shows the profile, the old connection is kept renamed, inactive, autoconnect off and marked);
# a second apply changes nothing; haloctl unadopt gives it back (name, autoconnect, active again,
# halod's profile gone), also after a failed attempt that leaves halod's profile in charge. halod
# itself, in mode: enforce, never takes the connection over: it says how to, and changes nothing.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

harness_init na
require_root
require_tools ip dbus-daemon busctl NetworkManager nmcli nm-online firewalld firewall-cmd python3 sha256sum
require_build_file daemon/haloctl daemon/halod
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
[ -f "$HALOD_MODULE_DIR/halod-backend-nm.so" ] || skip "$HALOD_MODULE_DIR/halod-backend-nm.so not built; run ninja -C $BUILD_DIR"
HALOCTL=$BUILD_DIR/daemon/haloctl
P=$TEST_DIR/halod.yaml
KEPT="rdma0 (before halod)"

haloctl() { in_ns "$NS_A" "$HALOCTL" --node head --color never "$@"; }
# conn ID FIELD: one field of a connection, as nmcli prints it.
conn() { nmcli -g "$2" connection show "$1"; }
exists() { nmcli -t -f NAME connection show | grep -qxF "$1"; }
active_on() { nmcli -g GENERAL.CONNECTION device show "$IF_A"; }
active_path() { nmcli -t -f NAME,ACTIVE-PATH connection show --active | sed -n "s/^$1://p"; }
keyfile_state() { sha256sum "$NM_CONNS"/*.nmconnection | sort; stat -c '%n %Y' "$NM_CONNS"/*.nmconnection; }
# marks UUID: halod's user data in the connection's keyfile (NetworkManager's "user" setting).
marks() { grep -h '^io\.halod\.' $(grep -l "^uuid=$1\$" "$NM_CONNS"/*.nmconnection) || true; }
# The guide's connection as the guide left it: what a failure must leave, and what unadopt restores.
guide_state() {
        echo "$(conn "$1" connection.id) $(conn "$1" connection.autoconnect) $(conn "$1" connection.interface-name)"
        echo "$(conn "$1" ipv4.addresses) $(conn "$1" 802-3-ethernet.mtu) $(conn "$1" connection.zone)"
        echo "active on $IF_A: $(active_on); marks: $(marks "$1" | tr '\n' ' ')"
}
# assert_lines OUTPUT LINE...: OUTPUT is exactly these lines, in any order.
assert_lines() {
        local out=$1
        shift
        assert_eq "$(sort <<<"$out")" "$(printf '%s\n' "$@" | sort)" "output lines"
}
assert_guide_intact() { # WHAT
        assert_eq "$(guide_state "$guide_uuid")" "$guide_before" "the guide's connection after $1"
        exists halod-rdma0 && fail "halod-rdma0 exists after $1" || true
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 10.10.0.1/30 "kernel addresses of $IF_A after $1"
}

start_dbus
netns_pair
start_firewalld "$NS_A"
# With a DAD timeout, an address another host on the cable already has makes an activation fail:
# the failure that comes after the rename.
mkdir -p "$TEST_DIR/nm-$NS_A/conf.d"
cat >"$TEST_DIR/nm-$NS_A/conf.d/50-test.conf" <<EOF
[connection-dad]
ipv4.dad-timeout=300
EOF
start_networkmanager "$NS_A" "$IF_A"
harness_on_exit "kill -CONT $NM_PID"

log "the guide: an nmcli connection rdma0 with a static address, MTU 9000, zone trusted"
nmcli connection add type ethernet con-name rdma0 ifname "$IF_A" ipv4.method manual \
        ipv4.addresses 10.10.0.1/30 ethernet.mtu 9000 connection.zone trusted ipv6.method disabled >/dev/null
nmcli connection up rdma0 >/dev/null
# A second connection of the guide's, bound to the interface with autoconnect on but not active: it
# would come back on its own, so it is taken over too (and not activated when given back).
nmcli connection add type ethernet con-name rdma0-spare ifname "$IF_A" ipv4.method manual \
        ipv4.addresses 10.10.0.9/30 >/dev/null
guide_uuid=$(conn rdma0 connection.uuid)
spare_uuid=$(conn rdma0-spare connection.uuid)
guide_before=$(guide_state "$guide_uuid")
spare_before=$(guide_state "$spare_uuid")
assert_eq "$(active_on)" rdma0 "active connection on $IF_A"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "kernel MTU of $IF_A"

cat >"$P" <<EOF
cluster: adopt-test
mode: enforce
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
    firewall-zone: trusted
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF
chmod 644 "$P"

log "without --adopt: plan says who holds the interface, apply refuses and names --adopt"
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): + 192.168.100.1/30"
assert_contains "$OUT" "rdma0 ($IF_A): NetworkManager connection \"rdma0\" (uuid $guide_uuid) holds the interface, so apply refuses to change it; haloctl plan --adopt shows how haloctl apply --adopt takes it over"
assert_not_contains "$OUT" "rdma0-spare" "plan without --adopt"
run_rc 2 haloctl apply "$P"
assert_contains "$OUT" "$IF_A is in use by NetworkManager connection \"rdma0\" (uuid $guide_uuid), which halod did not create and does not change; nothing was changed. haloctl apply --adopt takes it over"
assert_guide_intact "a refused apply"

run_rc 64 haloctl check --adopt "$P"
assert_contains "$OUT" "--adopt is an option of plan and apply only"

log "plan --adopt shows the takeover and changes nothing"
files_before=$(keyfile_state)
ac_before=$(active_path rdma0)
sleep 1.1 # so that a rewritten keyfile would show in its mtime
run_rc 1 haloctl plan --adopt "$P"
assert_contains "$OUT" "rdma0 ($IF_A): adopt NetworkManager connection \"rdma0\" (uuid $guide_uuid): kept as \"$KEPT\", autoconnect off"
assert_contains "$OUT" "rdma0 ($IF_A): adopt NetworkManager connection \"rdma0-spare\" (uuid $spare_uuid): kept as \"rdma0-spare (before halod)\", autoconnect off"
assert_contains "$OUT" "rdma0 ($IF_A): + 192.168.100.1/30"
assert_not_contains "$OUT" "holds the interface" "plan --adopt"
run_rc 1 haloctl plan --adopt --json "$P"
python3 - "$OUT" "$guide_uuid" <<'EOF' || fail "haloctl plan --adopt --json: $OUT"
import json, sys
d = json.loads(sys.argv[1])
assert d["changes"] is True, d
a = {x["connection"]: x for x in d["adopt"]}
assert a["rdma0"]["uuid"] == sys.argv[2] and a["rdma0"]["active"] is True, a
assert a["rdma0"]["kept_as"] == "rdma0 (before halod)" and a["rdma0"]["link"] == "rdma0", a
assert a["rdma0-spare"]["active"] is False and a["rdma0-spare"]["autoconnect"] is True, a
EOF
assert_eq "$(keyfile_state)" "$files_before" "keyfiles after plan --adopt"
assert_eq "$(active_path rdma0)" "$ac_before" "rdma0's activation after plan --adopt"
assert_guide_intact "plan --adopt"

log "a zone firewalld does not have: apply --adopt refuses before anything changes"
sed 's/firewall-zone: trusted/firewall-zone: nosuchzone/' "$P" >"$P.nozone"
chmod 644 "$P.nozone"
run_rc 2 haloctl apply --adopt "$P.nozone"
assert_contains "$OUT" "firewalld has no zone 'nosuchzone'"
assert_eq "$(keyfile_state)" "$files_before" "keyfiles after a refused adopt"
assert_guide_intact "an adopt refused for its zone"
assert_eq "$(guide_state "$spare_uuid")" "$spare_before" "rdma0-spare after an adopt refused for its zone"

log "the activation of halod's profile fails after the rename: the guide's connections come back"
ip -n "$NS_B" addr add 192.168.100.1/30 dev "$IF_B"
run_rc 2 haloctl apply --adopt "$P"
assert_contains "$OUT" "NetworkManager could not activate halod-rdma0 on $IF_A"
assert_contains "$OUT" "the new profile was deleted again; NetworkManager connection \"rdma0\" was put back as it was and is active again"
assert_guide_intact "a failed activation"
assert_eq "$(guide_state "$spare_uuid")" "$spare_before" "rdma0-spare after a failed activation"
ip -n "$NS_B" addr flush dev "$IF_B"
ip -n "$NS_B" addr add 192.168.100.2/30 dev "$IF_B"

log "apply --adopt takes the guide's connections over"
run_rc 0 haloctl apply --adopt "$P"
assert_contains "$OUT" "rdma0 ($IF_A): adopt NetworkManager connection \"rdma0\" (uuid $guide_uuid): kept as \"$KEPT\", autoconnect off"
assert_contains "$OUT" "pass  link.rdma0.address"
assert_contains "$OUT" "pass  link.rdma0.zone"
assert_eq "$(active_on)" halod-rdma0 "active connection on $IF_A after the takeover"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 192.168.100.1/30 "kernel addresses of $IF_A after the takeover"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "kernel MTU of $IF_A after the takeover"
assert_eq "$(firewall-cmd --get-zone-of-interface="$IF_A")" trusted "firewalld zone of $IF_A after the takeover"
udp_roundtrip "$NS_A" "$NS_B" 192.168.100.1 192.168.100.2
assert_eq "$(conn "$guide_uuid" connection.id)" "$KEPT" "the kept connection's name"
assert_eq "$(conn "$guide_uuid" connection.autoconnect)" no "the kept connection's autoconnect"
assert_eq "$(conn "$guide_uuid" GENERAL.STATE)" "" "the kept connection's activation state"
assert_eq "$(conn "$guide_uuid" ipv4.addresses) $(conn "$guide_uuid" 802-3-ethernet.mtu)" "10.10.0.1/30 9000" \
        "the kept connection's settings"
assert_eq "$(marks "$guide_uuid" | sort | tr '\n' ' ')" \
        "io.halod.adopted-link=rdma0 io.halod.original-autoconnect=yes io.halod.original-id=rdma0 io.halod.was-active=yes " \
        "the kept connection's marks"
assert_eq "$(conn "$spare_uuid" connection.id) $(conn "$spare_uuid" connection.autoconnect)" \
        "rdma0-spare (before halod) no" "the kept spare connection"
assert_contains "$(marks "$spare_uuid")" "io.halod.was-active=no"

log "a second apply changes nothing"
files_before=$(keyfile_state)
ac_before=$(active_path halod-rdma0)
sleep 1.1
run_rc 0 haloctl plan --adopt "$P"
assert_contains "$OUT" "rdma0 ($IF_A): nothing to change"
run_rc 0 haloctl apply --adopt "$P"
assert_contains "$OUT" "nothing to change"
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "nothing to change"
assert_eq "$(keyfile_state)" "$files_before" "keyfiles after a second apply"
assert_eq "$(active_path halod-rdma0)" "$ac_before" "halod-rdma0's activation after a second apply"

log "unadopt gives the guide's connections back"
run_rc 0 haloctl unadopt "$P"
assert_lines "$OUT" \
        "rdma0 ($IF_A): give back NetworkManager connection \"$KEPT\" (uuid $guide_uuid): renamed \"rdma0\", autoconnect yes, activated again" \
        "rdma0 ($IF_A): give back NetworkManager connection \"rdma0-spare (before halod)\" (uuid $spare_uuid): renamed \"rdma0-spare\", autoconnect yes" \
        "rdma0 ($IF_A): halod-rdma0 deleted"
assert_guide_intact "unadopt"
assert_eq "$(guide_state "$spare_uuid")" "$spare_before" "rdma0-spare after unadopt"
run_rc 0 haloctl unadopt "$P"
assert_contains "$OUT" "nothing to give back: haloctl apply --adopt took over no link of node head"

log "an unadopt whose activation fails: the connections stay taken over, halod's profile active"
nmcli connection delete rdma0-spare >/dev/null
run_rc 0 haloctl apply --adopt "$P"
ac_before=$(active_path halod-rdma0)
ip -n "$NS_B" addr add 10.10.0.1/30 dev "$IF_B"
run_rc 2 haloctl unadopt "$P"
assert_contains "$OUT" "NetworkManager could not activate connection \"rdma0\" on $IF_A"
assert_contains "$OUT" "it stays taken over, and halod-rdma0 is active again"
assert_eq "$(conn "$guide_uuid" connection.id) $(conn "$guide_uuid" connection.autoconnect)" "$KEPT no" \
        "the kept connection after a failed unadopt"
assert_contains "$(marks "$guide_uuid")" "io.halod.adopted-link=rdma0"
assert_eq "$(active_on)" halod-rdma0 "active connection after a failed unadopt"
assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 192.168.100.1/30 "kernel addresses after a failed unadopt"
ip -n "$NS_B" addr del 10.10.0.1/30 dev "$IF_B"
run_rc 0 haloctl unadopt "$P"
assert_guide_intact "unadopt after a failed one"

log "halod in mode: enforce does not take the guide's connection over: it says how, and changes nothing"
dm_install_bus_policy
NOTIFY_OUT=$TEST_DIR/notify-head.out
HALOD_LOG=$TEST_DIR/logs/halod-head.log
start_notify_receiver "$TEST_DIR/notify-head.sock" "$NOTIFY_OUT"
ip netns exec "$NS_A" env NOTIFY_SOCKET="$TEST_DIR/notify-head.sock" "$BUILD_DIR/daemon/halod" --profile "$P" \
        --node head --backend networkmanager --runtime-dir "$TEST_DIR/run-head" --cdi-dir "$TEST_DIR/cdi-head" >"$HALOD_LOG" 2>&1 </dev/null &
HALOD_PID=$!
track_pid "$HALOD_PID"
wait_notify "$NOTIFY_OUT" READY=1 30
assert_contains "$(cat "$HALOD_LOG")" "$IF_A is in use by NetworkManager connection \"rdma0\" (uuid $guide_uuid), which halod did not create and does not change; nothing was changed. haloctl apply --adopt takes it over"
assert_eq "$(dm_prop Health)" degraded "halod's health with the guide's connection in charge"
stop_pid "$HALOD_PID"
assert_guide_intact "halod in mode: enforce"

pass
