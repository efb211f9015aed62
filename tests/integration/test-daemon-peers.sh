#!/bin/bash
# SPDX-License-Identifier: MIT
# halod's cluster view between two nodes: two namespaces joined by a veth at MTU 9000, a halod in
# each on its own private system bus (io.halod1 is one name per bus), one profile (mode: verify, so
# that the test may break the links under it). Both become healthy with the peer checks; the Peers
# property and haloctl status show the rows; haloctl probe measures through the other halod; the
# worker at MTU 1500 fails peer.worker.mtu on the head at a later health.interval and recovers; a
# namespace outside the profile gets no answer; a worker with another profile makes both sides warn;
# a stopped worker turns its row unreachable (announced) and a restarted one is seen again within
# seconds; fabric.env and the Prometheus textfile are written, fabric.env only when it changes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dp
require_root
require_tools ip busctl dbus-daemon python3 jq
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
INTERVAL=2 # health.interval in seconds: only its timer re-probes a peer whose change the head cannot see
# How long to wait for what the interval timer or the peer back-off brings: a progress bound, generous
# on a shared machine; how soon it comes is not asserted (the timer's accuracy is a second, a round of
# probes takes up to 4 s).
PROGRESS=30

dm_head_worker 10.78.0 # dpns-$$-a is the head, dpns-$$-b the worker

# write_profile FILE INTERVAL: the one profile of both nodes. Each node reads its own copy, so that
# the worker can be given another one. The Prometheus textfile's path is the same on both nodes;
# each halod runs with its own directory bound there (see start_node).
write_profile() {
        dm_head_worker_profile "$1" dp-test "$2" "prometheus-textfile: $TEST_DIR/prom/halod.prom"
}
mkdir -p "$TEST_DIR/prom" "$TEST_DIR/prom-head" "$TEST_DIR/prom-worker"
write_profile "$TEST_DIR/head.yaml" ${INTERVAL}s
write_profile "$TEST_DIR/worker.yaml" ${INTERVAL}s

dm_two_buses

# start_node NODE: halod for NODE in its namespace, on its bus, with $TEST_DIR/prom-NODE bound over
# $TEST_DIR/prom in its own mount namespace (ip netns exec makes one). The head gets --runtime-dir,
# the worker $RUNTIME_DIRECTORY as systemd's RuntimeDirectory= sets it. Sets PID_<NODE>, LOG_<NODE>.
start_node() {
        local node=$1 ns=$NS_A
        [ "$node" = worker ] && ns=$NS_B
        local bind=(sh -c 'mount -n --bind "$1" "$2" && shift 2 && exec "$@"' sh "$TEST_DIR/prom-$node" "$TEST_DIR/prom")
        if [ "$node" = worker ]; then
                RUNTIME_DIRECTORY=$TEST_DIR/run-worker on worker dm_start_halod "$ns" worker "$TEST_DIR/worker.yaml" "${bind[@]}"
        else
                # debug: the log says when a drift re-runs the peer checks
                HALOD_LOG_LEVEL=debug on head dm_start_halod "$ns" head "$TEST_DIR/head.yaml" "${bind[@]}"
        fi
        printf -v "PID_$node" %s "$HALOD_PID"
        printf -v "LOG_$node" %s "$HALOD_LOG"
        wait_notify "$NOTIFY_OUT" 'READY=1'
}

# check_is NODE ID OUTCOME: succeed when NODE's published check ID has OUTCOME now.
check_is() {
        on "$1" busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                jq -e --arg id "$2" --arg o "$3" '.data[] | select(.[0] == $id and .[1] == $o)' >/dev/null
}

# checks_of NODE: NODE's published checks, one "ID OUTCOME SUMMARY" per line.
checks_of() {
        on "$1" busctl --json=short get-property "${HALOD_BUS[@]}" Checks | jq -r '.data[] | "\(.[0]) \(.[1]) \(.[2])"'
}

# peer_request NS SRC: send a well-formed echo request from SRC in NS to the worker's halod and
# print the size of the answer, or "none" within a second.
peer_request() {
        in_ns "$1" python3 - "$2" "$WORKER_ADDR" <<'EOP'
import socket, struct, sys
src, dst = sys.argv[1], sys.argv[2]
cl, no, dg = b"dp-test", b"head", bytes(32)
pad = 192 - (26 + len(cl) + len(no) + len(dg))
req = (b"HALO" + struct.pack(">BBHIQBBBBH", 1, 1, 0, 7, 0, 1, len(cl), len(no), len(dg), pad)
       + cl + no + dg + bytes(pad))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((src, 0))
s.settimeout(1)
s.sendto(req, (dst, 7739))
try:
    print(len(s.recv(65536)))
except socket.timeout:
    print("none")
EOP
}

log "both halods start; each becomes healthy with the peer checks of the other"
start_node head
start_node worker
on head dm_wait_prop Health healthy 20
on worker dm_wait_prop Health healthy 20
for c in reachable mtu latency profile; do
        check_is head peer.worker.$c pass || fail "head: peer.worker.$c does not pass:"$'\n'"$(checks_of head)"
        check_is worker peer.head.$c pass || fail "worker: peer.head.$c does not pass:"$'\n'"$(checks_of worker)"
done
assert_contains "$(cat "$LOG_head")" "Peer channel open on $HEAD_ADDR, UDP and TCP port 7739" "head's log"

log "the Peers property: a(ssbtt), announced on change, one row per peer"
run_rc 0 on head busctl get-property "${HALOD_BUS[@]}" Peers
[[ "$OUT" =~ ^a\(ssbtt\)\ 1\ \"worker\"\ \"$WORKER_ADDR\"\ true\ [0-9]+\ [0-9]+$ ]] || fail "head's Peers: $OUT"
run_rc 0 on worker busctl get-property "${HALOD_BUS[@]}" Peers
[[ "$OUT" =~ ^a\(ssbtt\)\ 1\ \"head\"\ \"$HEAD_ADDR\"\ true\ [0-9]+\ [0-9]+$ ]] || fail "worker's Peers: $OUT"
assert_contains "$(on head busctl introspect "${HALOD_BUS[@]}" | grep '^\.Peers ')" 'a(ssbtt)' "introspection"
assert_contains "$(on head busctl introspect "${HALOD_BUS[@]}" | grep '^\.Peers ')" 'emits-change' "introspection"

log "haloctl status shows the peer rows; --json has them too"
run_rc 0 on head "$HALOCTL" status
echo "$OUT"
assert_contains "$OUT" "Peers:"
assert_contains "$OUT" "worker  $WORKER_ADDR"
assert_contains "$OUT" "reachable, round trip "
assert_contains "$OUT" "peer.worker.mtu"
# fabric.worker.baseline: judged by halod, and shown on its own row (this profile has no rdma:).
assert_contains "$OUT" "RDMA path: ● worker  Not checked: the profile has no rdma: section"
json=$(on head "$HALOCTL" status --json)
assert_eq "$(jq -r '.peers[0].node' <<<"$json")" worker "status --json .peers[0].node"
assert_eq "$(jq -r '.peers[0].address' <<<"$json")" $WORKER_ADDR "status --json .peers[0].address"
assert_eq "$(jq -r '.peers[0].reachable' <<<"$json")" true "status --json .peers[0].reachable"
assert_eq "$(jq -r '.peers[0].rtt_median_usec > 0' <<<"$json")" true "status --json .peers[0].rtt_median_usec"
assert_eq "$(on head "$HALOCTL" status --json --only link. | jq -r '.peers | length')" 0 "--only link.: no peer rows"

log "Verify() answers once the peer checks of that verify are in"
before=$(on head dm_prop LastVerifyUSec)
run_rc 0 on head busctl call "${HALOD_BUS[@]}" Verify
assert_contains "$OUT" 'healthy: '
latest=$(on head busctl --json=short get-property "${HALOD_BUS[@]}" Checks | jq -r '.data[] | select(.[0] == "peer.worker.latency") | .[2]')
[ "$(on head dm_prop LastVerifyUSec)" -gt "$before" ] || fail "LastVerifyUSec did not move on Verify()"
assert_contains "$latest" "Round trip to worker over fab0 (UDP): median " "peer.worker.latency after Verify()"

log "haloctl probe from the head measures through the worker's halod: latency and throughput rows"
run_rc 0 in_ns "$NS_A" "$HALOCTL" --node head probe worker "$TEST_DIR/head.yaml"
echo "$OUT"
assert_contains "$OUT" "worker $WORKER_ADDR via fab0 (from $HEAD_ADDR)"
assert_contains "$OUT" " µs / "
assert_contains "$OUT" " Gbit/s ("

log "haloctl check, the preflight, includes the peer checks against the worker's running halod"
# peer.worker.latency left out: its verdict follows the shared machine's load (a p99 over 10 ms warns).
run_rc 0 in_ns "$NS_A" "$HALOCTL" --node head check \
        --only peer.worker.reachable,peer.worker.mtu,peer.worker.profile,peer.worker.rdma "$TEST_DIR/head.yaml"
assert_contains "$OUT" "pass  peer.worker.reachable"
assert_contains "$OUT" "pass  peer.worker.mtu"
run_rc 0 in_ns "$NS_A" "$HALOCTL" --node head check --only peer.worker.mtu --json "$TEST_DIR/head.yaml"
assert_eq "$(echo "$OUT" | jq -r '[.checks[].id] | join(",")')" peer.worker.mtu "--only selects inside the peer group"

log "fabric.env: written by each halod, with the interface and the host address; rewritten only on change"
wait_until 5 test -s "$TEST_DIR/run-head/fabric.env"
env_head=$(cat "$TEST_DIR/run-head/fabric.env")
echo "$env_head"
assert_contains "$env_head" "NCCL_SOCKET_IFNAME=$IF_A"
assert_contains "$env_head" "GLOO_SOCKET_IFNAME=$IF_A"
assert_contains "$env_head" "VLLM_HOST_IP=$HEAD_ADDR"
wait_until 5 test -s "$TEST_DIR/run-worker/fabric.env"
assert_contains "$(cat "$TEST_DIR/run-worker/fabric.env")" "VLLM_HOST_IP=$WORKER_ADDR" "worker's fabric.env (RUNTIME_DIRECTORY)"
inode=$(stat -c %i "$TEST_DIR/run-head/fabric.env")
on head busctl call "${HALOD_BUS[@]}" Verify >/dev/null
assert_eq "$(stat -c %i "$TEST_DIR/run-head/fabric.env")" "$inode" "fabric.env's inode after an unchanged verify"

log "the Prometheus textfile: each node's own, with its checks and its peer's round trip"
wait_until 5 grep -q 'halod_peer_rtt_median_seconds{peer="worker"' "$TEST_DIR/prom-head/halod.prom"
prom=$(cat "$TEST_DIR/prom-head/halod.prom")
assert_contains "$prom" 'halod_node_info{cluster="dp-test",node="head",profile_digest="'
assert_contains "$prom" 'halod_check_status{check="peer.worker.mtu",outcome="pass"} 1'
assert_contains "$prom" "halod_peer_reachable{peer=\"worker\",address=\"$WORKER_ADDR\"} 1"
wait_until 5 grep -q 'node="worker"' "$TEST_DIR/prom-worker/halod.prom"
# The same profile on both: the same digest, which HalodProfileDigestMismatch compares.
digest_of() { sed -n 's/^halod_node_info{.*profile_digest="\([0-9a-f]\{64\}\)"} 1$/\1/p' "$TEST_DIR/prom-$1/halod.prom"; }
[ -n "$(digest_of head)" ] || fail "no profile_digest in head's textfile"
assert_eq "$(digest_of worker)" "$(digest_of head)" "the worker's profile_digest"
[ ! -e "$TEST_DIR/prom/halod.prom" ] || fail "a halod wrote past its bind mount into $TEST_DIR/prom"
if command -v promtool >/dev/null; then
        run_rc 0 promtool check metrics <"$TEST_DIR/prom-head/halod.prom"
fi

log "the worker's MTU drops to 1500: peer.worker.mtu fails on the head at a later health.interval"
# No event on the head: only its interval timer can find this.
start=$(date +%s%N)
ip -n "$NS_B" link set "$IF_B" mtu 1500
wait_until $PROGRESS check_is head peer.worker.mtu fail
log "peer.worker.mtu failed on the head after $((($(date +%s%N) - start) / 1000000)) ms (health.interval ${INTERVAL}s)"
checks_of head | grep '^peer.worker.mtu '
assert_contains "$(checks_of head | grep '^peer.worker.mtu ')" "do not cross to worker and back"
check_is head peer.worker.reachable pass || fail "peer.worker.reachable should still pass: $(checks_of head)"
on head dm_wait_prop Health degraded 5
assert_contains "$(on head dm_prop Summary)" "peer.worker.mtu" "head's Summary"
wait_until 5 grep -q 'halod_check_status{check="peer.worker.mtu",outcome="fail"} 1' "$TEST_DIR/prom-head/halod.prom"
assert_contains "$(cat "$LOG_head")" "Check peer.worker.mtu failed" "head's log"
log "and recovers when the MTU is restored"
ip -n "$NS_B" link set "$IF_B" mtu 9000
wait_until $PROGRESS check_is head peer.worker.mtu pass
on head dm_wait_prop Health healthy 10
on worker dm_wait_prop Health healthy 10
assert_contains "$(cat "$LOG_head")" "Check peer.worker.mtu recovered" "head's log"

log "the head's own link drifts (MTU 1500): its peer checks run again at once, not at the next interval"
ip -n "$NS_A" link set "$IF_A" mtu 1500
wait_until 5 check_is head peer.worker.mtu fail
assert_contains "$(checks_of head | grep '^peer.worker.mtu ')" "This node cannot send a 9000-byte datagram"
assert_contains "$(cat "$LOG_head")" "probing the peers over these links again" "head's log"
ip -n "$NS_A" link set "$IF_A" mtu 9000
wait_until 5 check_is head peer.worker.mtu pass
on head dm_wait_prop Health healthy 10

log "a namespace outside the profile gets no answer, while the route to the worker works"
NS_C=dpns-$$-c
netns_add "$NS_C"
ip link add name "dp$$c" netns "$NS_C" type veth peer name "dp$$d" netns "$NS_B"
ip -n "$NS_C" addr add 10.79.0.1/24 dev "dp$$c"
ip -n "$NS_B" addr add 10.79.0.2/24 dev "dp$$d"
ip -n "$NS_C" link set "dp$$c" up
ip -n "$NS_B" link set "dp$$d" up
ip -n "$NS_C" route add $WORKER_ADDR/32 via 10.79.0.2
udp_roundtrip "$NS_C" "$NS_B" 10.79.0.1 $WORKER_ADDR
assert_eq "$(peer_request "$NS_C" 10.79.0.1)" none "the worker's answer to a stranger"
# 26 bytes of header, "dp-test", "worker" and the digest: an echo reply carries no padding.
assert_eq "$(peer_request "$NS_A" $HEAD_ADDR)" 71 "the worker's answer to the head"

log "a worker with another profile (health.interval 3s): peer.worker.profile and peer.head.profile warn"
write_profile "$TEST_DIR/worker.yaml" 3s
kill -HUP "$PID_worker"
wait_until 10 grep -q "reloaded" "$LOG_worker"
wait_until $PROGRESS check_is head peer.worker.profile warn
wait_until 8 check_is worker peer.head.profile warn
assert_contains "$(checks_of head | grep '^peer.worker.profile ')" "worker runs a different profile: digest "
check_is head peer.worker.reachable pass || fail "peer.worker.reachable should still pass: $(checks_of head)"
write_profile "$TEST_DIR/worker.yaml" ${INTERVAL}s
kill -HUP "$PID_worker"
wait_until $PROGRESS check_is head peer.worker.profile pass
wait_until 8 check_is worker peer.head.profile pass

log "the worker's halod stops: the head's Peers row turns unreachable, announced by PropertiesChanged"
on head busctl --json=short monitor io.halod1 >"$TEST_DIR/monitor.json" 2>"$TEST_DIR/logs/monitor.log" &
MON_PID=$!
track_pid "$MON_PID"
wait_until 10 grep -q "Monitoring bus message stream" "$TEST_DIR/logs/monitor.log"
kill -TERM "$PID_worker"
dm_wait_exit "$PID_worker" 10
assert_eq "$EXIT_RC" 0 "the worker's exit status"
wait_until $PROGRESS check_is head peer.worker.reachable fail
run_rc 0 on head busctl get-property "${HALOD_BUS[@]}" Peers
assert_eq "$OUT" "a(ssbtt) 1 \"worker\" \"$WORKER_ADDR\" false 0 0" "head's Peers with the worker stopped"
wait_until 5 grep -q '"Peers":{"type":"a(ssbtt)"' "$TEST_DIR/monitor.json"
assert_contains "$(checks_of head | grep '^peer.worker.reachable ')" "Nothing listens on $WORKER_ADDR UDP port 7739"
check_is head peer.worker.latency skip || fail "peer.worker.latency should be skipped: $(checks_of head)"

log "a restarted worker is seen again within seconds"
start_node worker
wait_until $PROGRESS check_is head peer.worker.reachable pass
on head dm_wait_prop Health healthy 10
run_rc 0 on head busctl get-property "${HALOD_BUS[@]}" Peers
[[ "$OUT" =~ ^a\(ssbtt\)\ 1\ \"worker\"\ \"$WORKER_ADDR\"\ true\  ]] || fail "head's Peers after the restart: $OUT"

log "SIGTERM ends both, exit 0"
for node in head worker; do
        pid_var=PID_$node
        kill -TERM "${!pid_var}"
        dm_wait_exit "${!pid_var}" 10
        assert_eq "$EXIT_RC" 0 "$node's exit status"
done
pass
