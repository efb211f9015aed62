#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: taking over a node built by the guide (haloctl plan --adopt, apply --adopt, unadopt), and
# what asking NetworkManager who holds the fabric interface adds to a plain `haloctl plan`. Real
# NetworkManager and firewalld in a network namespace on a private system bus (the integration harness,
# tests/integration/lib.sh), with the guide's nmcli connection "rdma0" (static address, MTU 9000,
# zone trusted) active on the veth. Per repetition, interleaved:
#   plan:          haloctl --node head plan PROFILE          (the kernel plan + the sd-bus questions)
#   plan before:   the same with $BASELINE_HALOCTL, a haloctl without --adopt (when given)
#   plan --adopt:  haloctl --node head plan --adopt PROFILE
#   apply --adopt: haloctl --node head apply --adopt PROFILE (rename, halod-rdma0 written and activated,
#                  verify, link checks)
#   unadopt:       haloctl --node head unadopt PROFILE       (names back, rdma0 activated, halod-rdma0 deleted)
# all through `ip netns exec` (a few ms of its own). Prints medians (and min/max).
#
# Usage (root): BUILD_DIR=build [BASELINE_HALOCTL=/path/to/old/haloctl] bench/adopt-nm.sh [REPETITIONS]
# (default 15; a plain, non-sanitizer build with -Dlibnm=enabled)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"

reps=${1:-15}
harness_init nab
require_root
require_tools ip dbus-daemon NetworkManager nmcli nm-online firewalld firewall-cmd
require_build_file daemon/haloctl
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
HALOCTL=$BUILD_DIR/daemon/haloctl
BASELINE=${BASELINE_HALOCTL:-}
P=$TEST_DIR/halod.yaml

start_dbus
netns_pair
start_firewalld "$NS_A"
start_networkmanager "$NS_A" "$IF_A"
nmcli connection add type ethernet con-name rdma0 ifname "$IF_A" ipv4.method manual \
        ipv4.addresses 192.168.100.1/30 ethernet.mtu 9000 connection.zone trusted ipv6.method disabled >/dev/null
nmcli connection up rdma0 >/dev/null

cat >"$P" <<EOF
cluster: adopt-bench
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
# timed FILE EXPECTED_RC COMMAND...: run COMMAND in NS_A, append its time (µs) to FILE.
timed() {
        local file=$1 want=$2 t rc=0
        shift 2
        t=$(now_us)
        ip netns exec "$NS_A" "$@" >/dev/null 2>&1 || rc=$?
        echo $(($(now_us) - t)) >>"$TEST_DIR/$file"
        [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want"
}
holder() { nmcli -g GENERAL.CONNECTION device show "$IF_A"; }

: >"$TEST_DIR/plan" >"$TEST_DIR/plan-before" >"$TEST_DIR/plan-adopt" >"$TEST_DIR/adopt" >"$TEST_DIR/unadopt"
# One warm-up cycle, not counted.
ip netns exec "$NS_A" "$HALOCTL" --node head apply --adopt "$P" >/dev/null
ip netns exec "$NS_A" "$HALOCTL" --node head unadopt "$P" >/dev/null
for i in $(seq "$reps"); do
        # The kernel already matches the profile: plain plan has nothing to change (exit 0), plan
        # --adopt has the takeover (exit 1).
        timed plan 0 "$HALOCTL" --node head plan "$P"
        [ -z "$BASELINE" ] || timed plan-before 0 "$BASELINE" --node head plan "$P"
        timed plan-adopt 1 "$HALOCTL" --node head plan --adopt "$P"
        timed adopt 0 "$HALOCTL" --node head apply --adopt "$P"
        assert_eq "$(holder)" halod-rdma0 "connection on $IF_A after apply --adopt"
        timed unadopt 0 "$HALOCTL" --node head unadopt "$P"
        assert_eq "$(holder)" rdma0 "connection on $IF_A after unadopt"
done

stats() { # FILE -> "median min max" in ms
        sort -n "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
                printf "%.1f %.1f %.1f", m/1000, a[1]/1000, a[NR]/1000}'
}
row() { # WHAT FILE
        local m min max
        read -r m min max <<<"$(stats "$TEST_DIR/$2")"
        echo "| $1 | $m | $min | $max |"
}

echo "NetworkManager $(NetworkManager --version), $reps repetitions, $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| what (through ip netns exec) | median ms | min ms | max ms |"
echo "|---|---|---|---|"
row "haloctl plan, the guide's rdma0 active (asks NetworkManager who holds the interface)" plan
[ -z "$BASELINE" ] || row "haloctl plan of the baseline build (does not ask)" plan-before
row "haloctl plan --adopt" plan-adopt
row "haloctl apply --adopt (rename, halod-rdma0 written and activated, verify, checks)" adopt
row "haloctl unadopt (names back, rdma0 activated again, halod-rdma0 deleted)" unadopt
