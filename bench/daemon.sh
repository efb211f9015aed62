#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: halod as a daemon, side by side with NetworkManager in the same namespace harness, in one
# run (tests/integration/lib.sh: a private system bus, a veth between two namespaces, the real
# NetworkManager managing the same interface that halod watches):
#   RSS          VmRSS of halod after READY=1 (verify mode; and enforce mode through the
#                NetworkManager backend), of NetworkManager after it activated the link
#   READY        spawn to READY=1 in verify mode (tests/halod-probe ready)
#   status       wall time of `haloctl status`, against `nmcli -t device show IFACE` and
#                `busctl get-property` on NetworkManager and on halod
#   drift        RTM_DELADDR to the PropertiesChanged signal announcing Health=degraded, and the
#                re-add to Health=healthy (tests/halod-probe drift; verify mode: nothing re-applies)
#   idle         CPU time (schedstat) and wake-ups (context switches) of halod and NetworkManager
#                over IDLE seconds with nothing happening
#
# Usage (root): BUILD_DIR=build bench/daemon.sh [REPETITIONS] [IDLE_SECONDS]   (default 20 and 60;
# use a plain build, not a sanitizer one)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

reps=${1:-20}
idle=${2:-60}
harness_init dmb
require_root
require_tools ip dbus-daemon busctl NetworkManager nmcli nm-online python3
require_build_file daemon/halod daemon/haloctl tests/halod-probe
# The NetworkManager backend's libnm code: halod-backend-nm.so from the build tree (halod(8)).
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
HALOD=$BUILD_DIR/daemon/halod
HALOCTL=$BUILD_DIR/daemon/haloctl
PROBE=$BUILD_DIR/tests/halod-probe

start_dbus
dm_install_bus_policy
netns_pair
start_networkmanager "$NS_A" "$IF_A"
nmcli connection add type ethernet con-name dmb ifname "$IF_A" autoconnect no ipv4.method manual \
        ipv4.addresses 10.77.0.1/30 ipv6.method disabled ethernet.mtu 9000 >/dev/null
nmcli connection up dmb >/dev/null
P=$TEST_DIR/halod.yaml
dm_write_profile "$P" verify 10.77.0.1/30 10.77.0.2/30
ip -n "$NS_B" addr add 10.77.0.2/30 dev "$IF_B"
ip -n "$NS_B" link set "$IF_B" mtu 9000

rss_kib() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }
switches() { awk '/ctxt_switches/{s+=$2} END{print s}' "/proc/$1/status"; }
median_ms() {
        sort -n | awk '{a[NR]=$1} END{printf "median %.2f ms (min %.2f, max %.2f, n=%d)\n", a[int((NR+1)/2)]/1000, a[1]/1000, a[NR]/1000, NR}'
}
# EPOCHREALTIME (bash ≥ 5): no fork for the clock, so only the command itself is timed.
time_us() {
        local i t0 t1
        for i in $(seq "$reps"); do
                t0=$EPOCHREALTIME
                "$@" >/dev/null 2>&1 || true
                t1=$EPOCHREALTIME
                echo "$t0 $t1"
        done | awk '{printf "%d\n", ($2 - $1) * 1e6}' | median_ms
}

echo "halod $("$HALOD" --version | cut -d' ' -f2), $(NetworkManager --version | sed 's/^/NetworkManager /'), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "repetitions: $reps, idle window: ${idle}s"
echo

echo "== start to READY=1 (verify mode, netlink backend, profile with one link)"
in_ns "$NS_A" "$PROBE" ready "$reps" "$HALOD" --profile "$P" --node a --backend netlink

dm_start_halod "$NS_A" a "$P"
wait_notify "$NOTIFY_OUT" 'READY=1'
dm_wait_prop Health healthy
echo
echo "== RSS after start"
echo "halod (verify mode):           $(rss_kib "$HALOD_PID") KiB (Pss $(awk '/^Pss:/{print $2}' "/proc/$HALOD_PID/smaps_rollup") KiB, anonymous $(awk '/^RssAnon/{print $2}' "/proc/$HALOD_PID/status") KiB)"
echo "NetworkManager (link active):  $(rss_kib "$NM_PID") KiB (Pss $(awk '/^Pss:/{print $2}' "/proc/$NM_PID/smaps_rollup") KiB, anonymous $(awk '/^RssAnon/{print $2}' "/proc/$NM_PID/status") KiB)"
echo "halod's RSS by mapping (KiB; [anon] is heap and stacks, the rest are file pages):"
awk '/^[0-9a-f]+-[0-9a-f]+ / {f = ($6 == "" ? "[anon]" : $6); sub(".*/", "", f)} /^Rss:/ {r[f] += $2}
        END {for (f in r) if (r[f] >= 32) printf "%6d  %s\n", r[f], f}' "/proc/$HALOD_PID/smaps" | sort -rn

echo
echo "== status query, wall time of the whole command"
echo "haloctl status:                              $(time_us "$HALOCTL" status)"
echo "haloctl --version (process start alone):     $(time_us "$HALOCTL" --version)"
echo "busctl get-property io.halod1 Health:        $(time_us busctl get-property "${HALOD_BUS[@]}" Health)"
echo "nmcli -t device show IFACE:                  $(time_us nmcli -t device show "$IF_A")"
echo "busctl get-property NetworkManager State:    $(time_us busctl get-property org.freedesktop.NetworkManager \
        /org/freedesktop/NetworkManager org.freedesktop.NetworkManager State)"

echo
echo "== drift reaction (verify mode)"
in_ns "$NS_A" "$PROBE" drift "$reps" "$IF_A" 10.77.0.1/30
dm_wait_prop Health healthy

echo
echo "== idle: ${idle}s with nothing happening"
sleep 1
h0=$(cpu_ns "$HALOD_PID") hs0=$(switches "$HALOD_PID") n0=$(cpu_ns "$NM_PID") ns0=$(switches "$NM_PID")
sleep "$idle"
h1=$(cpu_ns "$HALOD_PID") hs1=$(switches "$HALOD_PID") n1=$(cpu_ns "$NM_PID") ns1=$(switches "$NM_PID")
awk -v c=$((h1 - h0)) -v s=$((hs1 - hs0)) 'BEGIN{printf "halod:          %.3f ms CPU, %d wake-ups\n", c/1e6, s}'
awk -v c=$((n1 - n0)) -v s=$((ns1 - ns0)) 'BEGIN{printf "NetworkManager: %.3f ms CPU, %d wake-ups\n", c/1e6, s}'

# start_halod_as TAG ARGS...: halod as node a with its own NOTIFY_SOCKET receiver, until READY=1.
start_halod_as() {
        local tag=$1
        shift
        kill -TERM "$HALOD_PID"
        dm_wait_exit "$HALOD_PID" 10
        NOTIFY_OUT=$TEST_DIR/notify-$tag.out
        start_notify_receiver "$TEST_DIR/notify-$tag.sock" "$NOTIFY_OUT"
        ip netns exec "$NS_A" env NOTIFY_SOCKET="$TEST_DIR/notify-$tag.sock" "$HALOD" --profile "$P" --node a \
                --runtime-dir "$TEST_DIR/run-$tag" "$@" >"$TEST_DIR/logs/halod-$tag.log" 2>&1 </dev/null &
        HALOD_PID=$!
        track_pid "$HALOD_PID"
        wait_notify "$NOTIFY_OUT" 'READY=1' 60
}
libnm_mapped() { grep -q '/libnm\.so' "/proc/$HALOD_PID/maps" && echo yes || echo no; }

echo
echo "== RSS in verify mode with the backend halod picks (NetworkManager runs: networkmanager, never applied)"
start_halod_as verify-auto
echo "halod (verify, picked backend): $(rss_kib "$HALOD_PID") KiB (anonymous $(awk '/^RssAnon/{print $2}' "/proc/$HALOD_PID/status") KiB), Backend $(dm_prop Backend), libnm mapped: $(libnm_mapped)"

echo
echo "== RSS in enforce mode through the NetworkManager backend (libnm loaded and used)"
# Without the user's connection the link has nothing: halod creates and activates halod-fab0.
nmcli connection delete dmb >/dev/null
ip -n "$NS_A" addr flush dev "$IF_A"
dm_write_profile "$P" enforce 10.77.0.1/30 10.77.0.2/30
start_halod_as enforce --backend networkmanager
dm_wait_prop Health healthy
echo "halod (enforce, networkmanager): $(rss_kib "$HALOD_PID") KiB (anonymous $(awk '/^RssAnon/{print $2}' "/proc/$HALOD_PID/status") KiB), Health $(dm_prop Health), Backend $(dm_prop Backend), libnm mapped: $(libnm_mapped)"
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
