#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: applying one link through systemd-networkd, halod against networkctl, side by side in one
# run. A real systemd-networkd in a network namespace on a private system bus (as
# tests/integration/test-apply-networkd.sh runs it). Per repetition, interleaved:
#   halod:      haloctl --node head apply --backend networkd PROFILE (plan, write
#               05-halod-rdma0.network, Reload(), ReconfigureLink(), wait for "configured" and the
#               kernel, verify, the link checks)
#   networkctl: the same file text written by hand as 05-bench-rdma0.network, then
#               `networkctl reload && networkctl reconfigure IF`, then polling until networkd's state
#               file says configured and the kernel shows MTU 9000 and the address (what halod waits
#               for; networkctl itself returns before networkd is done)
# Both sides run through the same `ip netns exec` + bind mounts wrapper. Before each timed run the
# files are removed, networkd reloaded and the link put back to MTU 1500 without addresses, untimed.
# Also timed: halod's apply when nothing changes. Prints medians (and min/max).
#
# Usage (root): BUILD_DIR=build bench/networkd.sh [REPETITIONS]   (default 15)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"

reps=${1:-15}
harness_init ndb
require_root
require_tools ip dbus-daemon busctl networkctl
[ -x /lib/systemd/systemd-networkd ] || skip "/lib/systemd/systemd-networkd not found"
require_build_file daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
P=$TEST_DIR/halod.yaml
networkd_dirs

start_dbus
netns_pair
IF_INDEX=$(ip -n "$NS_A" -o link show dev "$IF_A" | cut -d: -f1)
start_networkd

cat >"$P" <<EOF
cluster: nd-bench
health: { peers: false }
links:
  rdma0: { match: { name: "$IF_A" }, mtu: 9000 }
nodes:
  head: { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOF
chmod 644 "$P"

now_us() { echo $(($(date +%s%N) / 1000)); }

reset() {
        rm -f "$ND"/etc-network/*.network
        in_nd networkctl reload
        ip -n "$NS_A" link set "$IF_A" mtu 1500
        ip -n "$NS_A" addr flush dev "$IF_A"
}
halod_apply() { in_nd "$HALOCTL" --node head apply --backend networkd "$P" >/dev/null; }
# What halod waits for: networkd's own state and the kernel.
networkctl_apply() {
        cp "$TEST_DIR/hand.network" "$ND/etc-network/05-bench-rdma0.network"
        in_nd sh -c "networkctl reload && networkctl reconfigure $IF_A" || return 1
        while ! { grep -qx ADMIN_STATE=configured "$ND/run/systemd/netif/links/$IF_INDEX" 2>/dev/null &&
                [ "$(link_mtu "$NS_A" "$IF_A")" = 9000 ] && [ "$(link_ipv4 "$NS_A" "$IF_A")" = 192.168.100.1/30 ]; }; do
                sleep 0.002
        done
}
check() {
        assert_eq "$(link_mtu "$NS_A" "$IF_A")" 9000 "MTU after $1"
        assert_eq "$(link_ipv4 "$NS_A" "$IF_A")" 192.168.100.1/30 "address after $1"
}

: >"$TEST_DIR/halod" >"$TEST_DIR/networkctl" >"$TEST_DIR/noop"
# Warm-up, not counted; halod's file, renamed, is the hand-written one.
reset && halod_apply && check halod
sed 's/^# .*//' "$ND/etc-network/05-halod-rdma0.network" >"$TEST_DIR/hand.network"
reset && networkctl_apply && check networkctl
for i in $(seq "$reps"); do
        reset
        t=$(now_us); halod_apply || fail "halod apply failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/halod"
        check "halod apply"
        t=$(now_us); halod_apply || fail "halod re-apply failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/noop"
        reset
        t=$(now_us); networkctl_apply || fail "networkctl failed"; echo $(($(now_us) - t)) >>"$TEST_DIR/networkctl"
        check networkctl
done
reset

stats() { # FILE -> "median min max" in ms
        sort -n "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
                printf "%.1f %.1f %.1f", m/1000, a[1]/1000, a[NR]/1000}'
}
read -r hm hmin hmax <<<"$(stats "$TEST_DIR/halod")"
read -r nm nmin nmax <<<"$(stats "$TEST_DIR/networkctl")"
read -r om omin omax <<<"$(stats "$TEST_DIR/noop")"
ratio=$(awk -v h="$hm" -v n="$nm" 'BEGIN {printf "%.2f", h/n}')

echo "systemd-networkd $(/lib/systemd/systemd-networkd --version | head -1), $reps repetitions, $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| what | median ms | min ms | max ms |"
echo "|---|---|---|---|"
echo "| haloctl apply --backend networkd (plan + file + Reload + ReconfigureLink + wait + verify + checks) | $hm | $hmin | $hmax |"
echo "| hand-written file + networkctl reload + networkctl reconfigure + wait until configured | $nm | $nmin | $nmax |"
echo "| haloctl apply --backend networkd when nothing changes | $om | $omin | $omax |"
echo "halod / networkctl = $ratio"
