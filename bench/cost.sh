#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (issue 27 item 5): what the transport watch of fabric.<node>.transport costs a verify, at 2
# and 8 peers, before and after, side by side in one run. Two network namespaces joined by a veth:
# "self" holds node s's fabric address 10.78.0.1/24, "peers" the P peers' (10.78.0.2 ...) on the other
# end. In self, CONN idle TCP connections from s's address to the peers' (spread over them: the
# fabric's sockets the watch keeps) and OTHER connections over loopback (sockets it must skip).
#   watch    bench/transport-cost-tool (this tree's build) in self: N verifies' transport watch alone
#            (the sample: sock_diag dump, RDMA port counters, RDMA netlink QP dump; and the verdicts),
#            CPU per verify by CLOCK_THREAD_CPUTIME_ID, min and median; the sock_diag dump alone.
#            BASE_TOOL=path: the same tool built from another tree (the code before this branch's
#            change), run in the same setting right after
#   verify   halod (verify mode, health.peers false: no peer round, no packets) in self, Verify()
#            called N times over D-Bus, halod's CPU (utime + stime of all its threads, from
#            /proc/PID/stat, summed over the N calls) per verify; the packets its fabric interface
#            sent and received over the N calls; its VmRSS and VmHWM after them. One row per halod
#            binary: this build's, and each of BEFORE_HALOD (colon-separated: e.g. main before the
#            checks were merged), their turns interleaved in rounds of N/ROUNDS calls so that the
#            shared machine's load falls on all alike
# Usage (root): BUILD_DIR=build [BASE_TOOL=...] [BEFORE_HALOD=a/halod:b/halod] [N=200] [ROUNDS=4]
#               [CONN=16] [OTHER=0] bench/cost.sh [PEERS...]    (default 2 8)
# One Markdown table per part on stdout at the end, in the style of bench/RESULTS.md.
set -euo pipefail
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(2 8)
N=${N:-200}
ROUNDS=${ROUNDS:-4}
CONN=${CONN:-16}
OTHER=${OTHER:-0}
harness_init co
require_root
require_tools ip dbus-daemon busctl python3
require_build_file daemon/halod bench/transport-cost-tool
IFS=: read -r -a BEFORE <<<"${BEFORE_HALOD:-}"
HALODS=("$BUILD_DIR/daemon/halod" "${BEFORE[@]}")
WATCH_ROWS=()
VERIFY_ROWS=()

# The connections: a python3 process in peers accepting on every peer address, one in self holding
# CONN connections to them from s's address and OTHER over loopback (with their listener), idle.
cat >"$TEST_DIR/hold.py" <<'EOF'
import socket, sys, time
local, conn, other, peers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
held = []
if other:
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(other)
    port = srv.getsockname()[1]
    for _ in range(other):
        held.append(socket.create_connection(("127.0.0.1", port)))
        held.append(srv.accept()[0])
for i in range(conn):
    held.append(socket.create_connection((peers[i % len(peers)], 5201), source_address=(local, 0)))
print("held", len(held), flush=True)
time.sleep(1e9)
EOF
cat >"$TEST_DIR/sink.py" <<'EOF'
import select, socket, sys
srvs = []
for a in sys.argv[1:]:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a, 5201)); s.listen(256); srvs.append(s)
conns = []
while True:
    for s in select.select(srvs, [], [])[0]:
        conns.append(s.accept()[0])
EOF

iface_packets() { # NS IF: "tx_packets rx_packets"
        echo "$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets") $(ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets")"
}

cpu_ticks() { # PID: utime + stime of all its threads (dead ones too), in clock ticks
        awk '{ print $14 + $15 }' "/proc/$1/stat"
}

run_one() { # P
        local p=$1 k profile=$TEST_DIR/halod-$1.yaml peers=() ns_s ns_p if_s if_p
        ns_s=${HARNESS_PREFIX}ns-$$-$p-s
        ns_p=${HARNESS_PREFIX}ns-$$-$p-p
        if_s=co$$s$p
        if_p=co$$p$p
        netns_add "$ns_s"
        netns_add "$ns_p"
        ip link add name "$if_s" netns "$ns_s" type veth peer name "$if_p" netns "$ns_p"
        ip -n "$ns_s" addr add 10.78.0.1/24 dev "$if_s"
        ip -n "$ns_s" link set "$if_s" up
        ip -n "$ns_p" link set "$if_p" up
        for k in $(seq 2 $((p + 1))); do
                ip -n "$ns_p" addr add "10.78.0.$k/24" dev "$if_p"
                peers+=("10.78.0.$k")
        done
        {
                echo "cluster: cost"
                echo "mode: verify"
                echo "links: { fab0: { match: { name: $if_s } } }"
                echo "nodes:"
                echo "  s: { links: { fab0: 10.78.0.1/24 } }"
                for k in $(seq 2 $((p + 1))); do
                        echo "  p$k: { links: { fab0: 10.78.0.$k/24 } }"
                done
                echo "health: { interval: 3600s, peers: false }"
        } >"$profile"

        ip netns exec "$ns_p" python3 "$TEST_DIR/sink.py" "${peers[@]}" &
        track_pid $!
        sleep 0.5
        ip netns exec "$ns_s" python3 "$TEST_DIR/hold.py" 10.78.0.1 "$CONN" "$OTHER" "${peers[@]}" >"$TEST_DIR/hold-$p.out" &
        track_pid $!
        wait_until 60 grep -q held "$TEST_DIR/hold-$p.out"
        local sockets
        sockets=$(ip netns exec "$ns_s" ss -tanH state established | wc -l)
        log "$p peers: $sockets established TCP sockets in self ($CONN to the peers, $OTHER loopback pairs); in the root namespace $(ss -tanH | wc -l) (the kernel walks one table for all namespaces)"

        # watch: the tool alone, this tree's then the base's
        local tool out
        for tool in "$BUILD_DIR/bench/transport-cost-tool" ${BASE_TOOL:+"$BASE_TOOL"}; do
                out=$(ip netns exec "$ns_s" "$tool" "$profile" s "$N")
                log "$p peers, $tool: $out"
                WATCH_ROWS+=("$p $tool $out")
        done

        # verify: each halod in turn, on its own bus
        local i h pids=() buses=()
        for i in "${!HALODS[@]}"; do
                rm -rf "$TEST_DIR/dbus-h$i"
                start_dbus "h$i"
                dm_install_bus_policy "h$i"
                buses+=("$DBUS_SYSTEM_BUS_ADDRESS")
                ip netns exec "$ns_s" env HALOD_LOG_LEVEL=info "${HALODS[i]}" --profile "$profile" --node s \
                        --backend netlink --runtime-dir "$TEST_DIR/run-$p-$i" --cdi-dir "$TEST_DIR/cdi-$p-$i" \
                        >"$TEST_DIR/logs/halod-$p-$i.log" 2>&1 </dev/null &
                pids+=($!)
                track_pid $!
                wait_until 60 busctl --address="${buses[i]}" get-property "${HALOD_BUS[@]}" LastVerifyUSec
                # warm: the first verifies load what stays (libraries, the first sample)
                for k in 1 2 3; do busctl --address="${buses[i]}" call "${HALOD_BUS[@]}" Verify >/dev/null; done
        done
        local ticks=() pkts=() t0 p0
        for i in "${!HALODS[@]}"; do ticks+=(0) pkts+=("0 0"); done
        for _ in $(seq "$ROUNDS"); do
                for i in "${!HALODS[@]}"; do
                        t0=$(cpu_ticks "${pids[i]}")
                        p0=$(iface_packets "$ns_s" "$if_s")
                        for k in $(seq $((N / ROUNDS))); do
                                busctl --address="${buses[i]}" call "${HALOD_BUS[@]}" Verify >/dev/null
                        done
                        ticks[i]=$((ticks[i] + $(cpu_ticks "${pids[i]}") - t0))
                        read -r a b <<<"$(iface_packets "$ns_s" "$if_s")"
                        read -r c d <<<"$p0"
                        read -r e f <<<"${pkts[i]}"
                        pkts[i]="$((e + a - c)) $((f + b - d))"
                done
        done
        local hz calls=$((N / ROUNDS * ROUNDS)) rss hwm
        hz=$(getconf CLK_TCK)
        for i in "${!HALODS[@]}"; do
                rss=$(awk '/^VmRSS/ { print $2 }' "/proc/${pids[i]}/status")
                hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/${pids[i]}/status")
                h=${HALODS[i]}
                VERIFY_ROWS+=("$p|$h|$(awk -v t="${ticks[i]}" -v hz="$hz" -v n="$calls" 'BEGIN { printf "%.2f", t / hz * 1000 / n }')|${pkts[i]}|$rss|$hwm|$calls")
                log "$p peers, $h: $(awk -v t="${ticks[i]}" -v hz="$hz" -v n="$calls" 'BEGIN { printf "%.2f", t / hz * 1000 / n }') ms CPU per Verify() over $calls, packets tx rx ${pkts[i]}, VmRSS $rss KiB, VmHWM $hwm KiB"
        done
        for i in "${!HALODS[@]}"; do stop_pid "${pids[i]}"; done
}

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg); N=$N ROUNDS=$ROUNDS CONN=$CONN OTHER=$OTHER"
for p in "${COUNTS[@]}"; do
        run_one "$p"
done
log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| peers | tool | sockets kept | watch CPU/verify µs (min) | (median) | (max) | sock_diag dump alone µs (min) | (median) |"
echo "|---|---|---|---|---|---|---|---|"
for row in "${WATCH_ROWS[@]}"; do
        set -- $row
        # P TOOL samples N sockets K cpu_us min A median B max C dump_us min D median E
        echo "| $1 | $2 | ${6} | ${9} | ${11} | ${13} | ${16} | ${18} |"
done
echo
echo "| peers | halod | CPU per Verify() (ms) | fabric packets tx rx over the calls | VmRSS (KiB) | VmHWM (KiB) | calls |"
echo "|---|---|---|---|---|---|---|"
for row in "${VERIFY_ROWS[@]}"; do
        IFS='|' read -r a b c d e f g <<<"$row"
        echo "| $a | $b | $c | $d | $e | $f | $g |"
done
pass
