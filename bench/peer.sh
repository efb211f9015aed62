#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: halod's peer channel against the standard tools over the same veth, in one run, the rows
# interleaved per repetition. Two namespaces joined by a veth at MTU 9000 stand in for the DAC cable;
# the worker runs tests/peer-responder (halod's UDP responder and TCP throughput sink, the same
# library code halod hosts) and an iperf3 server:
#   latency     median round trip of `haloctl probe --json` (100 UDP echo probes through the peer
#               channel) against the median of `ping -c 100 -i 0` (ICMP echo, answered in the
#               kernel); target: halod ≤ 1.5 × ping. For scale, the median of `sockperf ping-pong
#               --full-rtt` (a user-space UDP echo server tuned for latency, 192-byte messages as
#               halod's requests) over the same veth: the floor of any responder that is a process
#   throughput  `haloctl probe`'s TCP transfer (2 s, one connection) against `iperf3 -t 2` (one
#               stream); target: halod ≥ 0.8 × iperf3
#
# Usage (root): BUILD_DIR=build bench/peer.sh [REPETITIONS]   (default 7; a plain build, not a
# sanitizer one). Installs iperf3, ping, sockperf and jq when they are missing.
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"

reps=${1:-7}
harness_init mx # namespaces mxns-$$-a (head) and mxns-$$-b (worker), veth mx$$a / mx$$b
require_root
missing=0
for t in iperf3 ping sockperf jq; do command -v "$t" >/dev/null || missing=1; done
if [ "$missing" = 1 ]; then
        if command -v apt-get >/dev/null; then
                log "installing iperf3, iputils-ping, sockperf and jq"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iperf3 iputils-ping sockperf jq \
                        >"$TEST_DIR/logs/apt.log" 2>&1 || fail "apt-get install failed (see $TEST_DIR/logs/apt.log)"
        elif command -v dnf >/dev/null; then
                dnf install -y -q iperf3 iputils sockperf jq >"$TEST_DIR/logs/dnf.log" 2>&1 || fail "dnf install failed (see $TEST_DIR/logs/dnf.log)"
        fi
fi
require_tools ip ss ping iperf3 sockperf jq
require_build_file tests/peer-responder daemon/haloctl
RESPONDER=$BUILD_DIR/tests/peer-responder
HALOCTL=$BUILD_DIR/daemon/haloctl

netns_pair
for side in "$NS_A $IF_A 192.168.100.1/30" "$NS_B $IF_B 192.168.100.2/30"; do
        set -- $side
        ip -n "$1" link set "$2" mtu 9000 up
        ip -n "$1" link set lo up
        ip -n "$1" addr add "$3" dev "$2"
done
link_is_up() { ip -n "$1" -o link show dev "$2" | grep -q LOWER_UP; }
wait_until 10 link_is_up "$NS_A" "$IF_A"
wait_until 10 link_is_up "$NS_B" "$IF_B"

PROFILE=$TEST_DIR/halod.yaml
cat >"$PROFILE" <<EOP
cluster: bench
mode: verify
links:
  rdma0:
    match: { name: "mx*" }
    mtu: 9000
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
EOP

ip netns exec "$NS_B" "$RESPONDER" "$PROFILE" worker --ready "$TEST_DIR/worker.ready" >"$TEST_DIR/logs/responder.log" 2>&1 &
track_pid $!
wait_until 10 test -e "$TEST_DIR/worker.ready"
ip netns exec "$NS_B" iperf3 -s -B 192.168.100.2 -p 5201 >"$TEST_DIR/logs/iperf3-server.log" 2>&1 &
track_pid $!
iperf_listens() { ip netns exec "$NS_B" ss -ltn 'sport = :5201' | grep -q LISTEN; }
wait_until 10 iperf_listens
ip netns exec "$NS_B" sockperf server -i 192.168.100.2 -p 5202 >"$TEST_DIR/logs/sockperf-server.log" 2>&1 &
track_pid $!
sockperf_listens() { ip netns exec "$NS_B" ss -lun 'sport = :5202' | grep -q 5202; }
wait_until 10 sockperf_listens
# Resolve the neighbours once, untimed.
ip netns exec "$NS_A" ping -c 1 -W 1 192.168.100.2 >/dev/null

median() { sort -g | awk '{a[NR]=$1} END{if (NR == 0) print "nan"; else print a[int((NR+1)/2)]}'; }

ping_median_us() {
        ip netns exec "$NS_A" ping -n -c 100 -i 0 -W 1 -I 192.168.100.1 192.168.100.2 |
                sed -n 's/.* time=\([0-9.]*\) ms/\1/p' | awk '{print $1 * 1000}' | median
}

sockperf_median_us() {
        ip netns exec "$NS_A" sockperf ping-pong -i 192.168.100.2 -p 5202 -t 1 -m 192 --full-rtt 2>&1 |
                sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p'
}

# One haloctl probe: median round trip (µs) and throughput (bit/s) on one line.
probe_halod() {
        ip netns exec "$NS_A" "$HALOCTL" --node head --json probe worker "$PROFILE" |
                jq -r '.peers[0] | "\(.udp["rtt-median-usec"]) \(.tcp["bits-per-second"])"'
}

iperf_bps() {
        ip netns exec "$NS_A" iperf3 -c 192.168.100.2 -B 192.168.100.1 -p 5201 -t 2 -J |
                jq -r '.end.sum_received.bits_per_second'
}

echo "halod peer channel vs ping and iperf3 over one veth (MTU 9000), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "repetitions: $reps; per repetition: ping -c 100 -i 0, sockperf ping-pong -t 1, haloctl probe (100 UDP echoes + 2 s TCP), iperf3 -t 2"
echo
printf "%-4s %10s %12s %14s %15s %18s\n" rep "ping µs" "sockperf µs" "halod UDP µs" "iperf3 Gbit/s" "halod TCP Gbit/s"
: >"$TEST_DIR/rows"
for i in $(seq "$reps"); do
        p=$(ping_median_us)
        s=$(sockperf_median_us)
        read -r h hbps < <(probe_halod)
        ibps=$(iperf_bps)
        awk -v i="$i" -v p="$p" -v s="$s" -v h="$h" -v ib="$ibps" -v hb="$hbps" \
                'BEGIN { printf "%-4s %10s %12s %14s %15.2f %18.2f\n", i, p, s, h, ib / 1e9, hb / 1e9 }'
        echo "$p $h $ibps $hbps $s" >>"$TEST_DIR/rows"
done

pm=$(awk '{print $1}' "$TEST_DIR/rows" | median)
hm=$(awk '{print $2}' "$TEST_DIR/rows" | median)
im=$(awk '{print $3}' "$TEST_DIR/rows" | median)
tm=$(awk '{print $4}' "$TEST_DIR/rows" | median)
sm=$(awk '{print $5}' "$TEST_DIR/rows" | median)
echo
awk -v pm="$pm" -v hm="$hm" -v im="$im" -v tm="$tm" -v sm="$sm" 'BEGIN {
        lr = hm / pm; tr = tm / im
        printf "latency:    halod %s µs vs ping %s µs (medians of the run medians): %.2f× ping, target ≤ 1.5×: %s\n", hm, pm, lr, (lr <= 1.5) ? "met" : "MISSED"
        printf "            sockperf (user-space UDP echo) %s µs: halod is %.2f× sockperf\n", sm, hm / sm
        printf "throughput: halod %.2f vs iperf3 %.2f Gbit/s (medians): %.2f× iperf3, target ≥ 0.8×: %s\n", tm / 1e9, im / 1e9, tr, (tr >= 0.8) ? "met" : "MISSED"
}'
pass
