#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: the peer channel at 2, 8 and 32 nodes. N network namespaces joined to one bridge (a
# switched fabric subnet, 10.77.0.0/24, MTU 9000) in a namespace of its own, one halod per node, each
# on its own private dbus-daemon, all with one profile (mode: verify, health.peers: true,
# health.interval INTERVAL). Per node count:
#   traffic   what each node sends per interval (probes and the answers to the others' probes), read
#             from the bridge's ports (rx of port K = tx of node K) over WINDOW intervals of steady
#             state: packets and bytes, the mean over the nodes and the busiest node
#   cpu       each halod's user + system time (/proc/PID/stat) over the same window, per interval:
#             the mean over the nodes and the busiest node (the whole daemon: its verify too)
#   loss      the last node's link taken down (in its namespace): seconds until every other node has
#             logged "Check peer.nN.reachable failed", and after the link is up again until every one
#             logged it recovered (the slowest node of the N - 1)
# Usage (root): BUILD_DIR=build [HALOD=path/to/halod] [INTERVAL=5] [WINDOW=4] bench/peers-scale.sh [N...]
# (default 2 8 32). HALOD runs another build's halod (a "before" binary) with the same setting; one
# table row per N on stdout at the end, in the Markdown of bench/RESULTS.md.
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(2 8 32)
INTERVAL=${INTERVAL:-5}
WINDOW=${WINDOW:-4}
harness_init ps
require_root
require_tools ip dbus-daemon busctl python3
require_build_file daemon/halod
HALOD=${HALOD:-$BUILD_DIR/daemon/halod}
ROWS=()

# The watcher: reads the logs from their current end, runs the command (the event), and prints the
# seconds from the event until the last log showed the pattern (or "timeout N/M" when some never did).
cat >"$TEST_DIR/watch.py" <<'EOF'
import os, subprocess, sys, time
pattern, timeout, cmd = sys.argv[1].encode(), float(sys.argv[2]), sys.argv[3]
files = sys.argv[4:]
offsets = {f: os.path.getsize(f) for f in files}
seen = {}
t0 = time.monotonic()
subprocess.run(cmd, shell=True, check=True)
while len(seen) < len(files) and time.monotonic() - t0 < timeout:
    for f in files:
        if f in seen:
            continue
        with open(f, "rb") as h:
            h.seek(offsets[f])
            if pattern in h.read():
                seen[f] = time.monotonic() - t0
    time.sleep(0.05)
if len(seen) < len(files):
    print("timeout %d/%d" % (len(seen), len(files)))
else:
    print("%.1f" % max(seen.values()))
EOF

# Sums over the bridge's ports: "PORT rx_packets rx_bytes" per line.
port_stats() {
        ip -n "$SW" -s -j link show | python3 -c '
import json, sys
for l in json.load(sys.stdin):
    s = l.get("stats64", l.get("stats", {})).get("rx", {})
    print(l["ifname"], s.get("packets", 0), s.get("bytes", 0))'
}

cpu_ticks() { # PID: utime + stime in clock ticks
        awk '{ print $14 + $15 }' "/proc/$1/stat"
}

peers_reachable() { # K N: node K's Peers property shows N - 1 peers reachable
        local n
        n=$(busctl --address="unix:path=$TEST_DIR/dbus-n$1/system_bus_socket" get-property "${HALOD_BUS[@]}" Peers 2>/dev/null |
                grep -o ' true ' | wc -l)
        [ "$n" -eq $(($2 - 1)) ]
}

all_reachable() { # N
        local k
        for k in $(seq "$1"); do
                peers_reachable "$k" "$1" || return 1
        done
}

run_one() { # N
        local n=$1 k p=$TEST_DIR/halod-$1.yaml pids=() dbus_pids=() logs=() before after t0 t1 tick
        SW=${HARNESS_PREFIX}sw-$$-$n
        netns_add "$SW"
        ip -n "$SW" link add br0 mtu 9000 type bridge
        ip -n "$SW" link set br0 up
        {
                echo "cluster: scale"
                echo "mode: verify"
                echo "links: { fab0: { mtu: 9000 } }"
                echo "nodes:"
                for k in $(seq "$n"); do
                        echo "  n$k: { links: { fab0: { address: 10.77.0.$k/24, match: { name: ps$$x$k } } } }"
                done
                echo "health: { interval: ${INTERVAL}s, peers: true }"
        } >"$p"
        for k in $(seq "$n"); do
                local ns=${HARNESS_PREFIX}ns-$$-$n-$k
                netns_add "$ns"
                ip link add name "ps$$x$k" netns "$ns" mtu 9000 type veth peer name "p$k" netns "$SW" mtu 9000
                ip -n "$SW" link set "p$k" master br0 up
                ip -n "$ns" addr add "10.77.0.$k/24" dev "ps$$x$k"
                ip -n "$ns" link set "ps$$x$k" up
        done
        for k in $(seq "$n"); do
                local ns=${HARNESS_PREFIX}ns-$$-$n-$k
                rm -rf "$TEST_DIR/dbus-n$k"
                start_dbus "n$k"
                dbus_pids+=("$DBUS_PID")
                dm_install_bus_policy "n$k"
                ip netns exec "$ns" env HALOD_LOG_LEVEL=info "$HALOD" --profile "$p" --node "n$k" --backend netlink \
                        --runtime-dir "$TEST_DIR/run-$n-$k" --cdi-dir "$TEST_DIR/cdi-$n-$k" \
                        >"$TEST_DIR/logs/halod-$n-$k.log" 2>&1 </dev/null &
                pids+=($!)
                track_pid $!
                logs+=("$TEST_DIR/logs/halod-$n-$k.log")
        done
        log "$n nodes started; waiting until every node sees its $((n - 1)) peers"
        wait_until $((60 + n * 4)) all_reachable "$n"
        sleep "$INTERVAL" # one more round: the start's retries are over

        before=$(port_stats)
        t0=$(date +%s.%N)
        tick=()
        for k in $(seq "$n"); do tick+=("$(cpu_ticks "${pids[k - 1]}")"); done
        sleep $((INTERVAL * WINDOW))
        after=$(port_stats)
        t1=$(date +%s.%N)
        local cpu=()
        for k in $(seq "$n"); do cpu+=($(($(cpu_ticks "${pids[k - 1]}") - tick[k - 1]))); done

        local traffic
        traffic=$(python3 - "$n" "$t0" "$t1" "$INTERVAL" "$(getconf CLK_TCK)" "${cpu[*]}" <<EOF
import sys
n, t0, t1, interval, hz = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
cpu = [int(x) for x in sys.argv[6].split()]
def parse(s):
    return {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in s.strip().splitlines()}
b, a = parse("""$before"""), parse("""$after""")
intervals = (t1 - t0) / interval
pk = [(a["p%d" % k][0] - b["p%d" % k][0]) / intervals for k in range(1, n + 1)]
by = [(a["p%d" % k][1] - b["p%d" % k][1]) / intervals for k in range(1, n + 1)]
ms = [c / hz * 1000 / intervals for c in cpu]
print("%.0f | %.0f | %.1f | %.1f | %.1f | %.1f" % (sum(pk) / n, max(pk), sum(by) / n / 1024, max(by) / 1024, sum(ms) / n, max(ms)))
EOF
)
        log "$n nodes: packets/node/interval mean | max | KiB mean | max | CPU ms mean | max: $traffic"

        local victim=n$n others=("${logs[@]:0:n-1}") ns=${HARNESS_PREFIX}ns-$$-$n-$n loss back
        loss=$(python3 "$TEST_DIR/watch.py" "Check peer.$victim.reachable failed" $((INTERVAL * 4 + 20)) \
                "ip -n $ns link set ps$$x$n down" "${others[@]}")
        log "$n nodes: $victim's link down, seen by all in $loss s"
        back=$(python3 "$TEST_DIR/watch.py" "Check peer.$victim.reachable recovered" $((INTERVAL * 4 + 20)) \
                "ip -n $ns link set ps$$x$n up" "${others[@]}")
        log "$n nodes: $victim's link up, seen by all in $back s"
        ROWS+=("| $n | $traffic | $loss | $back |")

        for k in $(seq "$n"); do stop_pid "${pids[k - 1]}"; done
        for k in $(seq "$n"); do stop_pid "${dbus_pids[k - 1]}"; done
        for k in $(seq "$n"); do ip netns del "${HARNESS_PREFIX}ns-$$-$n-$k"; done
        ip netns del "$SW"
}

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg); halod: $HALOD; interval ${INTERVAL}s, window ${WINDOW} intervals"
for n in "${COUNTS[@]}"; do
        run_one "$n"
done
log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| nodes | packets sent/node/interval (mean) | (max) | KiB sent/node/interval (mean) | (max) | CPU ms/node/interval (mean) | (max) | loss seen by all (s) | return seen by all (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
