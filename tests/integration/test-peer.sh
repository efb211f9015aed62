#!/bin/bash
# SPDX-License-Identifier: MIT
# The peer channel between two nodes: two namespaces joined by a veth at MTU 9000 (the DAC cable),
# a peer responder in each. peer.worker.* pass from the head; an MTU of 1500 on the worker makes
# peer.worker.mtu fail; strangers, garbage, truncated and oversized datagrams get no answer and are
# counted; a worker with another profile makes peer.worker.profile warn; haloctl probe shows the
# latency and throughput rows.
. "$SOURCE_DIR/tests/integration/lib.sh"

harness_init pr
require_root
require_tools ip python3
require_build_file tests/peer-responder tests/peer-check

RESPONDER=$BUILD_DIR/tests/peer-responder
CHECK=$BUILD_DIR/tests/peer-check

netns_pair # prns-$$-a (head) and prns-$$-b (worker)
ip -n "$NS_A" link set "$IF_A" mtu 9000 up
ip -n "$NS_B" link set "$IF_B" mtu 9000 up
ip -n "$NS_A" addr add 192.168.100.1/30 dev "$IF_A"
ip -n "$NS_B" addr add 192.168.100.2/30 dev "$IF_B"
# An address outside the profile on the head's side, with a route back from the worker.
ip -n "$NS_A" addr add 10.99.0.1/24 dev "$IF_A"
ip -n "$NS_B" addr add 10.99.0.2/24 dev "$IF_B"
link_is_up() { ip -n "$1" -o link show dev "$2" | grep -q LOWER_UP; }
wait_until 10 link_is_up "$NS_A" "$IF_A"
wait_until 10 link_is_up "$NS_B" "$IF_B"

write_profile() { # FILE INTERVAL
        cat >"$1" <<EOP
# The two-node reference profile, as the test's veth pair.
cluster: strix-halo
mode: verify
links:
  rdma0:
    match: { name: "pr*" }
    mtu: 9000
nodes:
  head:   { links: { rdma0: 192.168.100.1/30 } }
  worker: { links: { rdma0: 192.168.100.2/30 } }
health: { interval: $2, peers: true }
EOP
}
PROFILE=$TEST_DIR/halod.yaml
write_profile "$PROFILE" 60s

start_responder() { # NS NODE PROFILE: sets RESP_PID
        rm -f "$TEST_DIR/$2.ready"
        # ip netns exec execs the responder: $! is its pid, for the signals below.
        ip netns exec "$1" "$RESPONDER" "$3" "$2" --ready "$TEST_DIR/$2.ready" >>"$TEST_DIR/logs/responder-$2.log" 2>&1 &
        RESP_PID=$!
        track_pid "$RESP_PID"
        wait_until 10 test -e "$TEST_DIR/$2.ready"
}

stats_lines() { grep -c '^udp ' "$TEST_DIR/logs/responder-$1.log" || true; }
more_stats() { [ "$(stats_lines "$1")" -gt "$2" ]; }

# stats NODE PID: the responder's latest counters line for udp (it prints them on SIGUSR1).
stats() {
        local before
        before=$(stats_lines "$1")
        kill -USR1 "$2"
        wait_until 5 more_stats "$1" "$before"
        grep '^udp ' "$TEST_DIR/logs/responder-$1.log" | tail -n 1
}

start_responder "$NS_A" head "$PROFILE"
HEAD_PID=$RESP_PID
start_responder "$NS_B" worker "$PROFILE"
WORKER_PID=$RESP_PID

log "both nodes answer: every peer check passes, from both sides"
run_rc 0 in_ns "$NS_A" "$CHECK" "$PROFILE" head
echo "$OUT"
for c in reachable mtu latency profile; do
        assert_contains "$OUT" "pass peer.worker.$c " "head's peer checks"
done
assert_contains "$OUT" "Peers (worker, 192.168.100.2, true, "
assert_contains "$OUT" "9000-byte datagrams cross to worker and back"
run_rc 0 in_ns "$NS_B" "$CHECK" "$PROFILE" worker
for c in reachable mtu latency profile; do
        assert_contains "$OUT" "pass peer.head.$c " "worker's peer checks"
done

# send_udp NS SRC PAYLOAD_PY [WAIT]: send a datagram from SRC to the worker's responder and print
# the size of the answer, or "none" within WAIT seconds. The default, 10 s, is for a datagram that
# must be answered: a bound on progress on a busy machine, not a time limit (an answer takes well under
# a millisecond). A datagram that must go unanswered names the shorter time silence is listened for.
send_udp() {
        in_ns "$1" python3 - "$2" "${4:-10}" <<EOP
import socket, struct, sys
src, wait = sys.argv[1], float(sys.argv[2])
def request(size, type_=1):
    cl, no, dg = b"strix-halo", b"head", bytes(32)
    pad = size - (26 + len(cl) + len(no) + len(dg))
    return (b"HALO" + struct.pack(">BBHIQBBBBH", 1, type_, 0, 7, 0, 1, len(cl), len(no), len(dg), pad)
            + cl + no + dg + bytes(pad))
payload = $3
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if len(payload) <= 8972:  # whole frames only, as halod sends them; larger ones are fragmented
    s.setsockopt(socket.IPPROTO_IP, 10, 2)  # IP_MTU_DISCOVER = IP_PMTUDISC_DO
s.bind((src, 0))
s.settimeout(wait)
s.sendto(payload, ("192.168.100.2", 7739))
try:
    print(len(s.recv(65536)))
except socket.timeout:
    print("none")
EOP
}

log "a well-formed request from a profile peer is answered; an MTU request with a reply of its size"
assert_eq "$(send_udp "$NS_A" 192.168.100.1 'request(192)')" 74 "echo reply size"
assert_eq "$(send_udp "$NS_A" 192.168.100.1 'request(8972, 3)')" 8972 "MTU reply size"

log "a datagram from an address outside the profile gets no answer"
assert_eq "$(send_udp "$NS_A" 10.99.0.1 'request(192)' 1)" none "answer to 10.99.0.1"

log "garbage, truncated, too short and oversized datagrams get no answer and are counted"
assert_eq "$(send_udp "$NS_A" 192.168.100.1 'b"\x00garbage" * 40' 0.3)" none "answer to garbage"
assert_eq "$(send_udp "$NS_A" 192.168.100.1 'request(192)[:150]' 0.3)" none "answer to a truncated request"
assert_eq "$(send_udp "$NS_A" 192.168.100.1 'request(100)' 0.3)" none "answer to a short request"
assert_eq "$(send_udp "$NS_A" 192.168.100.1 'request(16384, 3) + bytes(600)' 0.3)" none "answer to an oversized datagram"
S=$(stats worker "$WORKER_PID")
log "worker: $S"
assert_contains "$S" "refused_source=1 "
assert_contains "$S" "oversized=1 "
assert_contains "$S" "malformed=3 "

log "haloctl probe shows the latency and throughput rows"
if [ -x "$BUILD_DIR/daemon/haloctl" ] && "$BUILD_DIR/daemon/haloctl" --help | grep -q '^  probe'; then
        run_rc 0 in_ns "$NS_A" "$BUILD_DIR/daemon/haloctl" --node head probe worker "$PROFILE"
        echo "$OUT"
        assert_contains "$OUT" "worker 192.168.100.2 via rdma0 (from 192.168.100.1)"
        assert_contains "$OUT" "fabric, UDP/TCP"
        assert_contains "$OUT" " µs / "
        assert_contains "$OUT" " Gbit/s ("
        assert_contains "$OUT" "RDMA, RC QP        no RDMA device on this node"
        run_rc 0 in_ns "$NS_A" "$BUILD_DIR/daemon/haloctl" --node head --json probe worker "$PROFILE"
        assert_contains "$OUT" '"rtt-median-usec"'
fi

log "haloctl env derives the interface and the host address; without RDMA it says why and exits 1"
if [ -x "$BUILD_DIR/daemon/haloctl" ] && "$BUILD_DIR/daemon/haloctl" --help | grep -q '^  env'; then
        run_rc 1 ip netns exec "$NS_A" "$BUILD_DIR/daemon/haloctl" --node head env "$PROFILE"
        echo "$OUT"
        assert_contains "$OUT" "export NCCL_SOCKET_IFNAME=$IF_A"
        assert_contains "$OUT" "export GLOO_SOCKET_IFNAME=$IF_A"
        assert_contains "$OUT" "export VLLM_HOST_IP=192.168.100.1"
        assert_contains "$OUT" "NCCL_IB_HCA not set: $IF_A (rdma0): "
        assert_contains "$OUT" "NCCL_IB_GID_INDEX not set: "
        run_rc 1 ip netns exec "$NS_A" "$BUILD_DIR/daemon/haloctl" --node head --json env "$PROFILE"
        assert_contains "$OUT" "\"VLLM_HOST_IP\": \"192.168.100.1\""
fi

log "the worker's MTU drops to 1500: peer.worker.mtu fails, the rest still passes"
ip -n "$NS_B" link set "$IF_B" mtu 1500
run_rc 0 in_ns "$NS_A" "$CHECK" "$PROFILE" head
echo "$OUT"
assert_contains "$OUT" "fail peer.worker.mtu 9000-byte datagrams with don't-fragment set do not cross to worker and back"
assert_contains "$OUT" "pass peer.worker.reachable "
log "and recovers when restored"
ip -n "$NS_B" link set "$IF_B" mtu 9000
run_rc 0 in_ns "$NS_A" "$CHECK" "$PROFILE" head
assert_contains "$OUT" "pass peer.worker.mtu "

log "a worker running a different profile: peer.worker.profile warns with both digests"
stop_pid "$WORKER_PID"
write_profile "$TEST_DIR/other.yaml" 30s
start_responder "$NS_B" worker "$TEST_DIR/other.yaml"
WORKER_PID=$RESP_PID
run_rc 0 in_ns "$NS_A" "$CHECK" "$PROFILE" head
echo "$OUT"
assert_contains "$OUT" "warn peer.worker.profile worker runs a different profile: digest "
assert_contains "$OUT" "pass peer.worker.reachable "

log "the worker's responder stops: peer.worker.reachable fails and says why"
stop_pid "$WORKER_PID"
run_rc 0 in_ns "$NS_A" "$CHECK" "$PROFILE" head
echo "$OUT"
assert_contains "$OUT" "fail peer.worker.reachable Nothing listens on 192.168.100.2 UDP port 7739"
assert_contains "$OUT" "skip peer.worker.latency "
assert_contains "$OUT" "Peers (worker, 192.168.100.2, false, 0, 0)"

stop_pid "$HEAD_PID"
pass
