#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: applying one link with the netlink backend, side by side with ip(8), in one run.
# A veth in a network namespace, a private system bus (tests/integration/lib.sh). Per repetition,
# interleaved so that every variant sees the same machine, each from the same unconfigured link
# (MTU 1500, down, no address; reset untimed):
#   apply_link   the netlink backend's apply_link() carrying out the link's plan (MTU 9000, up,
#                192.168.100.1/30; the plan is read untimed, in-process)
#   apply_node   apply_node(): plan + apply_link + re-dump and verify from the kernel (in-process)
#   haloctl      `haloctl apply PROFILE` as a user types it (process, profile, apply, link checks)
#   ip           `ip link set IF mtu 9000 && ip link set IF up && ip addr add 192.168.100.1/30 dev IF`
# and on the applied link: plan_node() in-process and `haloctl plan` as a command.
# Then the same with the real firewalld in the namespace and firewall-zone: trusted, against ip(8)
# plus `firewall-cmd --zone=trusted --change-interface` and its --permanent twin.
# In-process times come from tests/link-apply-tool (clock_gettime around the one call).
#
# Usage (root): BUILD_DIR=build-links bench/apply.sh [REPETITIONS]   (default 25; use a plain build,
# not a sanitizer one: meson setup build && ninja -C build)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"

reps=${1:-25}
harness_init lkb
require_root
require_tools ip python3 dbus-daemon busctl firewalld firewall-cmd
require_build_file tests/link-apply-tool daemon/haloctl
TOOL=$BUILD_DIR/tests/link-apply-tool
HALOCTL=$BUILD_DIR/daemon/haloctl

start_dbus
netns_pair
P=$TEST_DIR/halod.yaml
PZ=$TEST_DIR/halod-zone.yaml
for f in "$P" "$PZ"; do
        cat >"$f" <<YAML
cluster: bench
mode: enforce
links:
  rdma0:
    match: { name: "$IF_A" }
    mtu: 9000
$([ "$f" = "$PZ" ] && echo "    firewall-zone: trusted")
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
YAML
done

now_ns() { date +%s%N; }
ns() { in_ns "$NS_A" "$@"; }

reset() {
        ip -n "$NS_A" addr flush dev "$IF_A"
        ip -n "$NS_A" link set "$IF_A" down mtu 1500
        if [ "${1:-}" = zone ]; then
                firewall-cmd --zone=trusted --remove-interface="$IF_A" >/dev/null 2>&1 || true
                firewall-cmd --permanent --zone=trusted --remove-interface="$IF_A" >/dev/null 2>&1 || true
        fi
}

check() {
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU after $1"
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 192.168.100.1/30 "address after $1"
        if [ "${2:-}" = zone ]; then
                assert_eq "$(firewall-cmd --get-zone-of-interface="$IF_A")" trusted "zone after $1"
                assert_eq "$(firewall-cmd --permanent --get-zone-of-interface="$IF_A")" trusted "permanent zone after $1"
        fi
}

# wall MICROSECONDS-FILE COMMAND...: run COMMAND, append its wall time in µs.
wall() {
        local out=$1 t
        shift
        t=$(now_ns)
        "$@" >/dev/null
        echo $((($(now_ns) - t) / 1000)) >>"$out"
}

ip_apply() {
        ns ip link set "$IF_A" mtu 9000 && ns ip link set "$IF_A" up && ns ip addr add 192.168.100.1/30 dev "$IF_A"
}

ip_fw_apply() {
        ip_apply && firewall-cmd --zone=trusted --change-interface="$IF_A" &&
                firewall-cmd --permanent --zone=trusted --add-interface="$IF_A"
}

med() {
        sort -n "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
                printf "%9.2f ms  (min %.2f, max %.2f, n=%d)\n", m/1000, a[1]/1000, a[NR]/1000, NR}'
}

D=$TEST_DIR/t
mkdir -p "$D"
run_round() { # SUFFIX: "" (no firewalld) or "zone"
        local z=$1 prof=$P
        [ -n "$z" ] && prof=$PZ
        for i in $(seq "$reps"); do
                if [ -z "$z" ]; then
                        reset; ns "$TOOL" apply-link "$IF_A" 192.168.100.1/30 9000 >>"$D/apply_link"; check apply_link
                fi
                reset $z; ns "$TOOL" apply "$prof" head >>"$D/apply_node$z"; check apply_node $z
                ns "$TOOL" plan "$prof" head >>"$D/plan$z"
                wall "$D/haloctl_plan$z" ns "$HALOCTL" --node head plan "$prof"
                reset $z; wall "$D/haloctl$z" ns "$HALOCTL" --node head apply "$prof"; check haloctl $z
                reset $z
                if [ -z "$z" ]; then
                        wall "$D/ip" ip_apply; check ip
                else
                        wall "$D/ip$z" ip_fw_apply; check ip+firewall-cmd zone
                fi
        done
}

log "$reps repetitions without firewalld"
run_round ""
log "$reps repetitions with firewalld (firewall-zone: trusted, runtime and permanent)"
start_firewalld "$NS_A"
run_round zone

echo
echo "apply one link, netlink backend ($(uname -r), $reps repetitions, medians)"
echo "  no firewalld:"
echo -n "    apply_link() in-process            "; med "$D/apply_link"
echo -n "    apply_node() plan+apply+verify     "; med "$D/apply_node"
echo -n "    haloctl apply (command)            "; med "$D/haloctl"
echo -n "    ip link set mtu; up; ip addr add   "; med "$D/ip"
echo -n "    plan_node() on the applied link    "; med "$D/plan"
echo -n "    haloctl plan (command)             "; med "$D/haloctl_plan"
echo "  with firewalld, zone trusted:"
echo -n "    apply_node() plan+apply+verify     "; med "$D/apply_nodezone"
echo -n "    haloctl apply (command)            "; med "$D/haloctlzone"
echo -n "    ip ... + firewall-cmd (2 calls)    "; med "$D/ipzone"
echo -n "    plan_node() on the applied link    "; med "$D/planzone"
echo -n "    haloctl plan (command)             "; med "$D/haloctl_planzone"
