#!/bin/bash
# SPDX-License-Identifier: MIT
# nic.fw-lldp-agent and nic.enable-roce after halod's start: set again after a Reload() that changes
# them (not after one that does not), and when the link's netdev comes back (a driver reload: the
# netdev goes, and one of the same name comes with another ifindex), not on other link events.
# The link is a veth in a network namespace, a real netdev: it has no private flags (ice registers
# fw-lldp-agent in ice_ethtool.c's ice_gstrings_priv_flags; veth registers none) and no PCI function
# for devlink, so each attempt shows as its warning ("cannot set fw-lldp-agent: its driver has no
# private flag ..."), which is what is counted: how often halod read the link's settings to set them.
# No test double stands in for ice. Waits are bounded for progress only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dn
require_root
require_tools ip busctl dbus-daemon python3 jq
require_build_file daemon/halod
PROGRESS=60

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
# write_profile NIC: node a's link fab0 is IF_A, with the nic: mapping NIC.
write_profile() {
        cat >"$PROFILE" <<YAML
cluster: dn-test
mode: enforce
links:
  fab0: { mtu: 1500 }
nic: $1
nodes:
  a: { links: { fab0: { address: 10.77.0.1/30, match: { name: $IF_A } } } }
  b: { links: { fab0: { address: 10.77.0.2/30, match: { name: $IF_B } } } }
health: { interval: 60s, peers: false }
YAML
}
LLDP="cannot set fw-lldp-agent: its driver has no private flag fw-lldp-agent"
ROCE="cannot set enable_roce: it is not a PCI function's netdev"
# attempts TEXT: how many times halod's log says TEXT.
attempts() {
        grep -cF -- "$1" "$HALOD_LOG" || true
}
# reload: Reload() over the bus; it answers once the new profile's checks are in.
reload() {
        busctl call --timeout=$PROGRESS "${HALOD_BUS[@]}" Reload >/dev/null || fail "Reload() failed: $(tail -5 "$HALOD_LOG")"
}

log "at start: fw-lldp-agent is read and set (here: refused by the veth) once"
write_profile "{ fw-lldp-agent: off }"
dm_start_halod "$NS_A" a "$PROFILE"
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_eq "$(attempts "$LLDP")" 1 "attempts at start"

log "a Reload() that asks for the same settings does not set them again"
reload
assert_eq "$(attempts "$LLDP")" 1 "attempts after a reload without a change"

log "a Reload() that asks for enable-roce too sets the settings again"
write_profile "{ fw-lldp-agent: off, enable-roce: true }"
reload
assert_eq "$(attempts "$ROCE")" 1 "enable_roce attempts after the reload that asks for it"
assert_eq "$(attempts "$LLDP")" 2 "fw-lldp-agent attempts after the reload that changed the settings"

log "a link event on the same netdev (its MTU) does not set them again"
before=$(dm_prop LastVerifyUSec)
ip -n "$NS_A" link set "$IF_A" mtu 1400
wait_until $PROGRESS sh -c '[ "$(busctl get-property io.halod1 /io/halod1 io.halod1.Node LastVerifyUSec)" != "t '"$before"'" ]'
assert_eq "$(attempts "$LLDP")" 2 "attempts after an MTU change"

log "the link's netdev goes and comes back (a driver reload): the settings are set again"
old_index=$(ip -n "$NS_A" -j link show "$IF_A" | jq '.[0].ifindex')
ip -n "$NS_A" link del "$IF_A"
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
ip -n "$NS_B" link set "$IF_B" up
new_index=$(ip -n "$NS_A" -j link show "$IF_A" | jq '.[0].ifindex')
[ "$old_index" != "$new_index" ] || fail "the new $IF_A has the old ifindex $old_index"
wait_until $PROGRESS sh -c "[ \"\$(grep -cF -- '$LLDP' '$HALOD_LOG')\" -ge 3 ]"
assert_eq "$(attempts "$LLDP")" 3 "fw-lldp-agent attempts after the netdev came back"
assert_eq "$(attempts "$ROCE")" 2 "enable_roce attempts after the netdev came back"

kill -TERM "$HALOD_PID"
dm_expect_clean_exit "$HALOD_PID" "halod"
pass
