#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (a count, not a time): how often halod and haloctl read the kernel's whole link state,
# i.e. send an rtnetlink link dump (RTM_GETLINK with NLM_F_DUMP; each is followed by an address
# dump), counted with strace on the real processes so that any build can be measured, also one
# without halod's own counter (rtnl_dump_count()):
#   drift repair   halod in enforce mode (netlink backend): from `ip addr del` of the link's address
#                  (or `ip link set mtu 1500`) until halod put it back, reported healthy and settled
#                  (the re-check, the re-apply, its verification and any re-check of halod's own
#                  change)
#   start          halod in enforce mode on an unconfigured link, from exec to READY=1 (apply, verify)
#   haloctl        `haloctl apply` on an unconfigured link, `haloctl plan` and `haloctl check` on the
#                  applied one
#   NetworkManager the drift repairs again with the NetworkManager backend (NetworkManager managing
#                  the link; its own reads of the kernel are not counted, only halod's)
# A veth between two namespaces on a private system bus (tests/integration/lib.sh), no firewalld.
#
# Usage (root): BUILD_DIR=build bench/dumps.sh [REPETITIONS]   (default and at most 5: halod pauses
# re-applies after 10 a minute, and each repetition is two drifts)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

reps=${1:-5}
[ "$reps" -le 5 ] || reps=5
harness_init dmp
require_root
require_tools ip dbus-daemon busctl strace NetworkManager nmcli nm-online python3
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
# The NetworkManager backend's libnm code: halod-backend-nm.so from the build tree (halod(8)).
export HALOD_MODULE_DIR=${HALOD_MODULE_DIR:-$BUILD_DIR/lib/apply/nm}
STRACE=(strace -f -qq -e trace=sendto,sendmsg -e signal=none)

start_dbus
dm_install_bus_policy
netns_pair
P=$TEST_DIR/halod.yaml
dm_write_profile "$P" enforce 10.77.0.1/30 10.77.0.2/30
ip -n "$NS_B" addr add 10.77.0.2/30 dev "$IF_B"
ip -n "$NS_B" link set "$IF_B" mtu 9000

# dumps FILE: the link dumps an strace log shows.
dumps() { grep -c 'nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP' "$1" || true; }
unconfigure() {
        ip -n "$NS_A" addr flush dev "$IF_A"
        ip -n "$NS_A" link set "$IF_A" down mtu 1500
}
# count_command LABEL COMMAND...: the dumps of one run of a command in node a's namespace.
count_command() {
        local label=$1 log=$TEST_DIR/strace-cmd.log
        shift
        in_ns "$NS_A" "${STRACE[@]}" -o "$log" "$@" >/dev/null 2>&1 || true
        printf '%-46s %s\n' "$label" "$(dumps "$log")"
}
address_is_back() { link_ipv4 "$NS_A" "$IF_A" | grep -qx 10.77.0.1/30; }
mtu_is_back() { [ "$(link_mtu "$NS_A" "$IF_A")" = 9000 ]; }
# settled: healthy, then long enough for any re-check of halod's own changes (2 ms after an event) to
# have run and been written by strace.
settled() {
        dm_wait_prop Health healthy
        sleep 0.5
}
# summary LABEL COUNTS...: the counts of the repetitions.
summary() {
        local label=$1
        shift
        printf '%-46s %s\n' "$label" "$(printf '%s\n' "$@" | sort -n |
                awk '{a[NR]=$1; s+=$1} END{printf "min %d, median %d, max %d (n=%d)", a[1], a[int((NR+1)/2)], a[NR], NR}')"
}

echo "halod $("$BUILD_DIR/daemon/halod" --version | cut -d' ' -f2), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "link dumps (RTM_GETLINK, NLM_F_DUMP) per action, counted with strace; repetitions: $reps"
echo

echo "== haloctl (profile with one link, netlink backend, no firewalld)"
unconfigure
count_command "haloctl apply (unconfigured link)" "$HALOCTL" --node a apply "$P"
count_command "haloctl plan (applied link)" "$HALOCTL" --node a plan "$P"
count_command "haloctl check (applied link)" "$HALOCTL" --node a check "$P"

echo
echo "== halod, enforce mode, netlink backend"
unconfigure
STRACE_LOG=$TEST_DIR/strace-halod.log
dm_start_halod "$NS_A" a "$P" "${STRACE[@]}" -o "$STRACE_LOG"
wait_notify "$NOTIFY_OUT" 'READY=1' 30
n_ready=$(dumps "$STRACE_LOG")
printf '%-46s %s\n' "start to READY=1 (apply + verify)" "$n_ready"
settled

# drifts: REPETITIONS drift repairs of each kind, counted in STRACE_LOG.
drifts() {
        local address=() mtu=() i before
        for i in $(seq "$reps"); do
                before=$(dumps "$STRACE_LOG")
                ip -n "$NS_A" addr del 10.77.0.1/30 dev "$IF_A"
                wait_until 10 address_is_back
                settled
                address+=($(($(dumps "$STRACE_LOG") - before)))

                before=$(dumps "$STRACE_LOG")
                ip -n "$NS_A" link set "$IF_A" mtu 1500
                wait_until 10 mtu_is_back
                settled
                mtu+=($(($(dumps "$STRACE_LOG") - before)))
        done
        summary "drift repair: address removed" "${address[@]}"
        summary "drift repair: MTU lowered to 1500" "${mtu[@]}"
}
drifts

echo
echo "== halod, enforce mode, NetworkManager backend"
# HALOD_PID is strace's: stop halod, its child, and strace ends with it.
kill -TERM "$(pgrep -P "$HALOD_PID")"
dm_wait_exit "$HALOD_PID" 10
unconfigure
start_networkmanager "$NS_A" "$IF_A"
STRACE_LOG=$TEST_DIR/strace-halod-nm.log
NOTIFY_OUT=$TEST_DIR/notify-nm.out
start_notify_receiver "$TEST_DIR/notify-nm.sock" "$NOTIFY_OUT"
ip netns exec "$NS_A" env NOTIFY_SOCKET="$TEST_DIR/notify-nm.sock" "${STRACE[@]}" -o "$STRACE_LOG" \
        "$BUILD_DIR/daemon/halod" --profile "$P" --node a --backend networkmanager \
        --runtime-dir "$TEST_DIR/run-nm" >"$TEST_DIR/logs/halod-nm.log" 2>&1 </dev/null &
HALOD_PID=$!
track_pid "$HALOD_PID"
wait_notify "$NOTIFY_OUT" 'READY=1' 60
printf '%-46s %s\n' "start to READY=1 (apply + verify)" "$(dumps "$STRACE_LOG")"
settled
drifts
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
