#!/bin/bash
# SPDX-License-Identifier: MIT
# The firewall zone through firewalld's D-Bus API (the netlink backend's direct path), with the real
# firewalld in the link's namespace: plan shows the zone change, apply makes it at runtime and in the
# permanent configuration (it survives firewall-cmd --reload), a zone firewalld lacks is a clear
# error that changes nothing, and a link left out of every zone is reported as such.
. "${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

harness_init lk
require_root
require_tools ip python3 dbus-daemon busctl firewalld firewall-cmd
require_build_file daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl

start_dbus
netns_pair
start_firewalld "$NS_A"
P=$TEST_DIR/halod.yaml

# write_profile ZONE: a one-link profile whose rdma0 is $IF_A, by name; this is head.
write_profile() {
        cat >"$P" <<EOF
cluster: lk-test
mode: enforce
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
    firewall-zone: $1
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF
}

haloctl() {
        in_ns "$NS_A" "$HALOCTL" --node head --color never "$@"
}

zone() {
        firewall-cmd "$@" --get-zone-of-interface="$IF_A" 2>&1 || true
}

write_profile trusted

log "plan: the zone change is listed, nothing changes"
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): zone (none) → trusted"
assert_eq "$(zone)" "no zone" "runtime zone after plan"

log "apply: trusted at runtime and in the permanent configuration"
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "rdma0 ($IF_A): zone (none) → trusted"
assert_contains "$OUT" "pass  link.rdma0.zone     rdma0 ($IF_A) is in firewall zone trusted"
assert_eq "$(zone)" trusted "runtime zone"
assert_eq "$(zone --permanent)" trusted "permanent zone"
grep -q "<interface name=\"$IF_A\"/>" "$FW_ETC/zones/trusted.xml" || fail "$IF_A is not in $FW_ETC/zones/trusted.xml"

log "the zone survives firewall-cmd --reload"
firewall-cmd --reload >/dev/null
assert_eq "$(zone)" trusted "runtime zone after --reload"
run_rc 0 haloctl plan "$P"
assert_contains "$OUT" "nothing to change"
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "nothing to change: rdma0 ($IF_A) already matches the profile"

log "drift: somebody moves the interface; plan shows it, apply --json moves it back"
firewall-cmd --zone=public --change-interface="$IF_A" >/dev/null
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): zone public → trusted"
run_rc 0 haloctl apply --json "$P"
python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["applied"] and d["changed"] and d["backend"] == "netlink", d
assert d["changes"] == ["rdma0 (%s): zone public → trusted" % sys.argv[2]], d["changes"]
assert {c["id"]: c["outcome"] for c in d["checks"]}["link.rdma0.zone"] == "pass", d["checks"]' "$OUT" "$IF_A" ||
        fail "apply --json: $OUT"
assert_eq "$(zone)" trusted "runtime zone after re-apply"
assert_eq "$(zone --permanent)" trusted "permanent zone after re-apply"

log "a zone firewalld lacks: a clear error, nothing changed"
ip -n "$NS_A" link set "$IF_A" mtu 1500
write_profile nosuchzone
run_rc 2 haloctl plan "$P"
assert_contains "$OUT" "rdma0 ($IF_A): cannot apply: firewalld has no zone 'nosuchzone' (zones: "
run_rc 2 haloctl apply "$P"
assert_contains "$OUT" "Failed to apply"
assert_contains "$OUT" "firewalld has no zone 'nosuchzone'"
assert_contains "$OUT" "firewall-cmd --permanent --new-zone=nosuchzone"
assert_eq "$(link_mtu "$NS_A" "$IF_A")" 1500 "MTU after the refused apply"
assert_eq "$(zone)" trusted "runtime zone after the refused apply"

log "another zone: moved at runtime and permanently, out of the old zone's configuration"
write_profile internal
run_rc 1 haloctl plan "$P"
assert_contains "$OUT" "zone trusted → internal"
run_rc 0 haloctl apply "$P"
assert_eq "$(zone)" internal "runtime zone"
assert_eq "$(zone --permanent)" internal "permanent zone"
grep -q "$IF_A" "$FW_ETC/zones/trusted.xml" && fail "$IF_A is still in trusted.xml"
firewall-cmd --reload >/dev/null
assert_eq "$(zone)" internal "runtime zone after --reload"

log "firewalld stops: the zone check says so, apply still works"
stop_pid "$FW_PID"
run_rc 0 haloctl apply "$P"
assert_contains "$OUT" "skip: firewalld not running"

pass
