#!/bin/bash
# SPDX-License-Identifier: MIT
# A local user cannot silence the peer channel (issue 23, items 3 and 5). Two namespaces joined by a
# veth, a real halod in each on its own private bus, as test-daemon-peers.sh runs them. In the head's
# namespace the unprivileged user nobody sends 1000 valid echo requests a second from the head's
# fabric address to the worker's port 7739 for 20 s (bounded: 20000 datagrams, and 40 s): the
# worker's responder rate-limits the flood (the flooder gets rate-limited notices, and far fewer
# answers than requests), while the head's halod, whose probes leave from the port it holds and have
# a budget of their own, keeps peer.worker.* passing in every Verify() asked during the flood, and
# both stay healthy throughout (a latency warning from the machine's load aside: see below). Then the throughput sink: nobody connects from the head's address,
# sends 4 of the 8 header bytes and waits; haloctl probe's throughput part is measured or says busy,
# the stalled client is dropped without a count, and a haloctl probe after that is measured. Last, a
# head that starts without the capability to bind its probe port (a privileged one) says so and still
# probes, from ephemeral ports.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init pf
require_root
require_tools ip ss busctl dbus-daemon jq setpriv /usr/bin/python3
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
FLOOD_RATE=1000   # requests per second: the issue saw 400 make the head report the worker dead
FLOOD_SECONDS=20
# A progress bound for what must happen eventually, generous on a shared machine; never asserted
# as a duration.
PROGRESS=30

dm_head_worker 10.79.0 # pfns-$$-a is the head, pfns-$$-b the worker
dm_head_worker_profile "$TEST_DIR/profile.yaml" pf-test 2s
chmod 0644 "$TEST_DIR/profile.yaml"

dm_two_buses

start_node() {
        local node=$1 ns=$NS_A
        [ "$node" = worker ] && ns=$NS_B
        on "$node" dm_start_halod "$ns" "$node" "$TEST_DIR/profile.yaml"
        printf -v "PID_$node" %s "$HALOD_PID"
        printf -v "LOG_$node" %s "$HALOD_LOG"
        wait_notify "$NOTIFY_OUT" 'READY=1'
}

# peer_checks NODE: NODE's published peer checks, one "ID OUTCOME SUMMARY" per line.
peer_checks() {
        on "$1" busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                jq -r '.data[] | select(.[0] | startswith("peer.")) | "\(.[0]) \(.[1]) \(.[2])"'
}



log "both halods start and become healthy with the peer checks of the other"
start_node head
start_node worker
on head dm_wait_prop Health healthy $PROGRESS
on worker dm_wait_prop Health healthy $PROGRESS
assert_contains "$(peer_checks head)" "peer.worker.reachable pass" "head's peer checks"
# The head holds its probes' source port on every address, so nobody cannot send from it.
run_rc 0 ip netns exec "$NS_A" ss -Hulpn 'sport = :739'
assert_contains "$OUT" "0.0.0.0:739" "the head's probe port"
run_rc 1 ip netns exec "$NS_A" "${DM_NOBODY[@]}" /usr/bin/python3 -c "
import socket, sys
for addr in ('$HEAD_ADDR', '127.0.0.1'):
    for opt in (socket.SO_REUSEADDR, socket.SO_REUSEPORT):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, opt, 1)
        try:
            s.bind((addr, 739))
            print('nobody bound', addr, 739)
            sys.exit(0)
        except OSError as e:
            print(addr, e)
sys.exit(1)"

log "nobody floods the worker's port 7739 from the head's address: $FLOOD_RATE requests/s for ${FLOOD_SECONDS}s"
ip netns exec "$NS_A" "${DM_NOBODY[@]}" /usr/bin/python3 - "$HEAD_ADDR" "$WORKER_ADDR" $FLOOD_RATE $FLOOD_SECONDS \
        >"$TEST_DIR/flood.json" 2>"$TEST_DIR/logs/flood.log" <<'EOP' &
# Valid echo requests (as halod(8), PEER CHANNEL lays them out) at a steady rate, counting what comes
# back: echo replies and rate-limited notices. At most rate × seconds datagrams, and never longer
# than twice the planned time.
import json, select, socket, struct, sys, time
src, dst, rate, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cl, no, dg = b"pf-test", b"head", bytes(32)
pad = 192 - (26 + len(cl) + len(no) + len(dg))
def request(seq):
    return (b"HALO" + struct.pack(">BBHIQBBBBH", 1, 1, 0, seq, 0, 1, len(cl), len(no), len(dg), pad)
            + cl + no + dg + bytes(pad))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((src, 0))
s.setblocking(False)
count = {"sent": 0, "replies": 0, "notices": 0, "other": 0}
def drain():
    while True:
        try:
            d = s.recv(65536)
        except (BlockingIOError, ConnectionRefusedError):
            return
        kind = {2: "replies", 7: "notices"}.get(d[5] if len(d) > 5 else 0, "other")
        count[kind] += 1
total = rate * seconds
start = time.monotonic()
while count["sent"] < total and time.monotonic() - start < 2 * seconds:
    due = min(total, int((time.monotonic() - start) * rate) + 1)
    while count["sent"] < due:
        try:
            s.sendto(request(count["sent"]), (dst, 7739))
        except BlockingIOError:
            break
        count["sent"] += 1
    drain()
    select.select([s], [], [], 0.001)
count["seconds"] = time.monotonic() - start
end = time.monotonic() + 0.5
while time.monotonic() < end:
    select.select([s], [], [], 0.05)
    drain()
print(json.dumps(count))
EOP
FLOOD_PID=$!
track_pid "$FLOOD_PID"

# While it runs: Verify() on the head (each answers once a fresh round of peer checks is in, every
# peer measured in full), and both nodes' published checks and health between the calls.
verifies=0
: >"$TEST_DIR/during.txt"
while kill -0 "$FLOOD_PID" 2>/dev/null; do
        json=$(on head "$HALOCTL" verify --json) || true
        if kill -0 "$FLOOD_PID" 2>/dev/null; then
                verifies=$((verifies + 1))
                jq -r '.checks[] | select(.id | startswith("peer.")) | "head verify: \(.id) \(.outcome) \(.summary)"' \
                        <<<"$json" >>"$TEST_DIR/during.txt"
        fi
        for node in head worker; do
                echo "$node health: $(on $node dm_prop Summary)" >>"$TEST_DIR/during.txt"
                peer_checks $node | sed "s/^/$node published: /" >>"$TEST_DIR/during.txt"
        done
        sleep 0.5
done
dm_wait_exit "$FLOOD_PID" 1
assert_eq "$EXIT_RC" 0 "the flooder's exit status ($(cat "$TEST_DIR/logs/flood.log"))"
flood=$(cat "$TEST_DIR/flood.json")
log "flood: $flood; $verifies Verify() calls answered during it"

# The flood was what it says, and the worker's responder rate-limited it.
assert_eq "$(jq -r .sent <<<"$flood")" $((FLOOD_RATE * FLOOD_SECONDS)) "datagrams the flooder sent"
[ "$(jq -r .notices <<<"$flood")" -gt 0 ] || fail "the flooder got no rate-limited notice: $flood"
[ "$(jq -r '.replies * 2 < .sent' <<<"$flood")" = true ] || fail "the worker answered most of the flood: $flood"
# Fresh rounds ran during it, and every one of them found the worker.
[ "$verifies" -ge 3 ] || fail "only $verifies Verify() calls were answered during the flood"
grep -q "head verify: peer.worker.reachable pass" "$TEST_DIR/during.txt" ||
        fail "no Verify() during the flood says peer.worker.reachable pass:"$'\n'"$(cat "$TEST_DIR/during.txt")"
# Every peer check passes in every sample. The one exception is a latency warning (a p99 above
# 10 ms) and the degraded health it alone brings: on this shared 2-core machine the scheduler
# makes those now and then with or without a flood, and the flood attacks reachability, which is
# asserted without exception; they are counted and shown. peer.*.rdma is skipped: the profile has no
# rdma: section (the netns have no RDMA).
bad=$(grep -vE "^(head|worker) (verify|published): peer\.[^ ]+ pass |^(head|worker) (verify|published): peer\.[^ ]+\.latency warn |^(head|worker) (verify|published): peer\.[^ ]+\.rdma skip Not checked: the profile has no rdma: section$|^(head|worker) health: healthy: |^(head|worker) health: degraded: peer\.[^ ]+\.latency: " \
        "$TEST_DIR/during.txt" | sort | uniq -c || true)
[ -z "$bad" ] || fail "during the flood:"$'\n'"$bad"
slow=$(grep -cE "latency warn " "$TEST_DIR/during.txt" || true)
[ "$slow" = 0 ] || log "latency warnings during the flood (the machine's load): $slow"$'\n'"$(grep -E "latency warn " "$TEST_DIR/during.txt" | sort -u)"
dm_check_is_pass head peer.worker.reachable || fail "head after the flood:"$'\n'"$(peer_checks head)"
dm_check_is_pass worker peer.head.reachable || fail "worker after the flood:"$'\n'"$(peer_checks worker)"

log "the throughput sink: a client that sends 4 of the 8 header bytes and waits is dropped"
ip netns exec "$NS_A" "${DM_NOBODY[@]}" /usr/bin/python3 - "$HEAD_ADDR" "$WORKER_ADDR" >"$TEST_DIR/stalled.txt" \
        2>"$TEST_DIR/logs/stalled.log" <<'EOP' &
# Connects from the head's address, sends half the header, and says when the sink let it go and
# how: "eof" or "reset" (never a count). The 60 s timeout only guards a sink that never does.
import socket, sys
s = socket.create_connection((sys.argv[2], 7739), timeout=60, source_address=(sys.argv[1], 0))
s.sendall(b"HALO")
print("connected", flush=True)
try:
    d = s.recv(8)
    print("eof" if not d else "data %r" % d, flush=True)
except ConnectionResetError:
    print("reset", flush=True)
except socket.timeout:
    print("timeout", flush=True)
EOP
STALLED_PID=$!
track_pid "$STALLED_PID"
wait_until $PROGRESS grep -q connected "$TEST_DIR/stalled.txt"
# Its exit status says a warning when the throughput part is busy: the line says which.
OUT=$(in_ns "$NS_A" "$HALOCTL" --node head probe worker "$TEST_DIR/profile.yaml" 2>&1) || true
line=$(grep "fabric, UDP/TCP" <<<"$OUT")
log "haloctl probe while the stalled client waits:$line"
[[ "$line" =~ Gbit/s|busy:\ the\ peer\ is\ measuring\ another\ sender ]] || fail "haloctl probe with a stalled client: $OUT"
dm_wait_exit "$STALLED_PID" $PROGRESS
[[ "$(cat "$TEST_DIR/stalled.txt")" =~ connected.(eof|reset)$ ]] || fail "the stalled client: $(cat "$TEST_DIR/stalled.txt")"
run_rc 0 in_ns "$NS_A" "$HALOCTL" --node head probe worker "$TEST_DIR/profile.yaml"
assert_contains "$(grep "fabric, UDP/TCP" <<<"$OUT")" "Gbit/s" "haloctl probe after the stalled client was dropped"

log "a head without CAP_NET_BIND_SERVICE cannot hold the probe port: it says so and probes all the same"
kill -TERM "$PID_head"
dm_wait_exit "$PID_head" 10
# Root without the capability in its bounding set has none after exec (capabilities(7)).
on head dm_start_halod "$NS_A" head "$TEST_DIR/profile.yaml" setpriv --bounding-set=-net_bind_service
PID_head=$HALOD_PID
LOG_head=$HALOD_LOG
wait_notify "$NOTIFY_OUT" 'READY=1'
wait_until $PROGRESS grep -q "Failed to hold UDP port 739, the source port of this node's peer probes: Permission denied" "$LOG_head"
grep -q "halod needs CAP_NET_BIND_SERVICE" "$LOG_head" || fail "the head's log does not name the capability: $(cat "$LOG_head")"
on head dm_wait_prop Health healthy $PROGRESS
json=$(on head "$HALOCTL" verify --json) || true
assert_eq "$(jq -r '.checks[] | select(.id == "peer.worker.reachable") | .outcome' <<<"$json")" pass \
        "peer.worker.reachable without the probe port"

log "SIGTERM ends both, exit 0"
for node in head worker; do
        pid_var=PID_$node
        kill -TERM "${!pid_var}"
        dm_wait_exit "${!pid_var}" 10
        assert_eq "$EXIT_RC" 0 "$node's exit status"
done
pass
