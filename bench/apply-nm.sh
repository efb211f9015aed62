#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: applying one link through NetworkManager, halod against nmcli, side by side in one run.
# Real NetworkManager and firewalld in a network namespace on a private system bus (the integration
# harness, tests/integration/lib.sh). Per repetition, interleaved so that both see the same machine:
#   halod:  nm-apply-tool apply rdma0 IF 192.168.100.1/30 --mtu 9000 --zone trusted
#           (the networkmanager backend's apply_link: create halod-rdma0, activate, wait until ACTIVATED)
#   nmcli:  nmcli connection add type ethernet con-name bench-nmcli ifname IF autoconnect yes
#             ipv4.method manual ipv4.addresses 192.168.100.1/30 ipv6.method disabled ethernet.mtu 9000
#             connection.zone trusted && nmcli connection up bench-nmcli
#   haloctl: ip netns exec NS haloctl --node head apply PROFILE, as a user types it (the same apply
#           through backend_pick(), plus plan before and the kernel/firewalld verify and link checks
#           after; `ip netns exec` itself costs a few ms)
# Before each timed run the previous profile is deleted and the device is back to "disconnected" (MTU
# 1500), untimed. Also timed: halod's apply when nothing changes. Prints medians (and min/max).
#
# Usage (root): BUILD_DIR=build bench/apply-nm.sh [REPETITIONS]   (default 15; a plain, non-sanitizer
# build: meson setup build -Dlibnm=enabled && ninja -C build tests/nm-apply-tool)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"

reps=${1:-15}
harness_init nmb
require_root
require_tools ip dbus-daemon NetworkManager nmcli nm-online firewalld firewall-cmd
require_build_file tests/nm-apply-tool daemon/haloctl
# The NetworkManager backend's libnm code: halod-backend-nm.so from the build tree (halod(8)).
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
TOOL=$BUILD_DIR/tests/nm-apply-tool
HALOCTL=$BUILD_DIR/daemon/haloctl
P=$TEST_DIR/halod.yaml

start_dbus
netns_pair
start_firewalld "$NS_A"
start_networkmanager "$NS_A" "$IF_A"

cat >"$P" <<EOF
cluster: nm-bench
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

now_us() { echo $(($(date +%s%N) / 1000)); }

# reset: no profile on the device, the device disconnected with its original MTU.
reset() {
        nmcli connection delete halod-rdma0 >/dev/null 2>&1 || true
        nmcli connection delete bench-nmcli >/dev/null 2>&1 || true
        wait_until 10 sh -c "nmcli -t -f DEVICE,STATE device | grep -qx '$IF_A:disconnected'"
        wait_until 10 sh -c "[ \"\$(ip -n $NS_A -o link show dev $IF_A | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')\" = 1500 ]"
}

halod_apply() {
        "$TOOL" apply rdma0 "$IF_A" 192.168.100.1/30 --mtu 9000 --zone trusted >/dev/null
}

haloctl_apply() {
        ip netns exec "$NS_A" "$HALOCTL" --node head apply "$P" >/dev/null
}

nmcli_apply() {
        nmcli connection add type ethernet con-name bench-nmcli ifname "$IF_A" autoconnect yes \
                ipv4.method manual ipv4.addresses 192.168.100.1/30 ipv6.method disabled \
                ethernet.mtu 9000 connection.zone trusted >/dev/null &&
                nmcli connection up bench-nmcli >/dev/null
}

# check: what both must have reached, so that neither wins by doing less.
check() {
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU after $1"
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 192.168.100.1/30 "address after $1"
        assert_eq "$(firewall-cmd --get-zone-of-interface="$IF_A")" trusted "zone after $1"
}

: >"$TEST_DIR/halod" >"$TEST_DIR/nmcli" >"$TEST_DIR/noop" >"$TEST_DIR/haloctl"
# One warm-up of each (page cache, firewalld's first zone change), not counted.
reset && halod_apply && check halod && reset && nmcli_apply && check nmcli && reset && haloctl_apply && check haloctl
for i in $(seq "$reps"); do
        reset
        t=$(now_us); halod_apply || fail "halod apply failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/halod"
        check "halod apply"
        t=$(now_us); halod_apply || fail "halod re-apply failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/noop"
        reset
        t=$(now_us); nmcli_apply || fail "nmcli failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/nmcli"
        check nmcli
        reset
        t=$(now_us); haloctl_apply || fail "haloctl apply failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/haloctl"
        check "haloctl apply"
done
reset

stats() { # FILE -> "median min max" in ms
        sort -n "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
                printf "%.1f %.1f %.1f", m/1000, a[1]/1000, a[NR]/1000}'
}
read -r hm hmin hmax <<<"$(stats "$TEST_DIR/halod")"
read -r nm nmin nmax <<<"$(stats "$TEST_DIR/nmcli")"
read -r om omin omax <<<"$(stats "$TEST_DIR/noop")"
read -r cm cmin cmax <<<"$(stats "$TEST_DIR/haloctl")"
ratio=$(awk -v h="$hm" -v n="$nm" 'BEGIN {printf "%.2f", h/n}')

echo "NetworkManager $(NetworkManager --version), $reps repetitions, $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| what | median ms | min ms | max ms |"
echo "|---|---|---|---|"
echo "| halod NM backend: create + activate halod-rdma0 | $hm | $hmin | $hmax |"
echo "| nmcli connection add … && nmcli connection up … | $nm | $nmin | $nmax |"
echo "| halod NM backend: apply when nothing changes | $om | $omin | $omax |"
echo "| haloctl apply PROFILE (plan + apply + verify + checks) | $cm | $cmin | $cmax |"
echo "halod / nmcli = $ratio (target ≤ 1.2)"
awk -v r="$ratio" 'BEGIN {exit !(r <= 1.2)}' || log "over target: halod takes $ratio× nmcli's time"
