#!/bin/bash
# SPDX-License-Identifier: MIT
# fabric.<node>.transport with a real halod (issue 27): two namespaces joined by a veth, halod for
# node a in the first with a short health.interval. A small request/response exchange over TCP
# between the two fabric addresses, kept open over several verifies, never warns; a sustained TCP
# transfer (about 100 Mbit/s, paced) warns at the first verdict whose 10 s window it covers (with
# health.interval 2 s the verifies in between repeat the last verdict), the journal (here halod's
# stderr) says so once; once it stops, the check passes again and the return is logged once, however
# many verifies repeat the verdict in between.
# No RDMA device is asked for: where the machine has none the check says so, and RDMA counts nothing,
# as a workload that fell back to sockets would have it. Verdicts are asserted, never durations: the
# waits count verifies (LastVerifyUSec) and are bounded only for progress.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init dt
require_root
require_tools ip busctl dbus-daemon python3 jq
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
PROGRESS=60 # a bound on waiting for a verify on a shared machine, not an assertion

start_dbus
dm_install_bus_policy
netns_pair
A_ADDR=10.79.0.1
B_ADDR=10.79.0.2
ip -n "$NS_B" addr add $B_ADDR/30 dev "$IF_B"
PROFILE=$TEST_DIR/halod.yaml
cat >"$PROFILE" <<EOF
cluster: dt-test
mode: enforce
links:
  fab0:
    mtu: 9000
nodes:
  a: { links: { fab0: { address: $A_ADDR/30, match: { name: $IF_A } } } }
  b: { links: { fab0: { address: $B_ADDR/30, match: { name: $IF_B } } } }
health: { interval: 2s, peers: false, prometheus-textfile: $TEST_DIR/prom/halod.prom }
EOF
ip -n "$NS_B" link set "$IF_B" mtu 9000 up
mkdir -p "$TEST_DIR/prom"

# check_of ID: "OUTCOME SUMMARY" of the published check ID.
check_of() {
        busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                jq -r --arg id "$1" '.data[] | select(.[0] == $id) | "\(.[1]) \(.[2])"'
}

# wait_check ID PATTERN: wait (bounded for progress only) until check ID's "OUTCOME SUMMARY" matches
# the grep pattern PATTERN.
wait_check() {
        local _
        for _ in $(seq $((PROGRESS * 4))); do
                grep -q -- "$2" <<<"$(check_of "$1")" && return 0
                sleep 0.25
        done
        fail "check $1 is not '$2' after ${PROGRESS}s: $(check_of "$1")"
}

# next_verify: wait for a verify after the one published now.
next_verify() {
        local before
        before=$(dm_prop LastVerifyUSec)
        wait_until $PROGRESS sh -c '[ "$(busctl get-property io.halod1 /io/halod1 io.halod1.Node LastVerifyUSec)" != "t '"$before"'" ]'
}

# A TCP server in b: echoes each small request (the control traffic), or swallows a bulk stream.
ip netns exec "$NS_B" python3 - "$B_ADDR" <<'EOP' &
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5201))
s.listen(8)
def serve(c):
    while True:
        d = c.recv(1 << 20)
        if not d:
            return
        if len(d) <= 200:
            c.sendall(d)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOP
track_pid $!

log "halod starts; fabric.b.transport measures at the first verify, then passes idle"
dm_start_halod "$NS_A" a "$PROFILE"
wait_notify "$NOTIFY_OUT" 'READY=1'
wait_until $PROGRESS sh -c "busctl --json=short get-property ${HALOD_BUS[*]} Checks | jq -e '.data[] | select(.[0] == \"fabric.b.transport\" and .[1] == \"pass\")'"
OUT=$(check_of fabric.b.transport)
assert_contains "$OUT" "idle: TCP to b"
run_rc 0 "$HALOCTL" status
assert_contains "$OUT" "Fabric use: ● b  idle: TCP to b"
assert_eq "$(check_of fabric.a.transport)" "" "no check for the node itself"

log "a small request/response exchange over TCP, kept open over several verifies: no warning"
ip netns exec "$NS_A" python3 - "$A_ADDR" "$B_ADDR" <<'EOP' &
import socket, sys, time
c = socket.create_connection((sys.argv[2], 5201), source_address=(sys.argv[1], 0))
while True:
    c.sendall(b"x" * 100)
    c.recv(200)
    time.sleep(0.05)
EOP
CONTROL=$!
track_pid $CONTROL
for i in 1 2 3 4; do
        next_verify
        OUT=$(check_of fabric.b.transport)
        assert_contains "$OUT" "pass idle: TCP to b" "verify $i under control traffic"
done
stop_pid $CONTROL

log "a sustained TCP transfer to b: warns by the second verify after it started, logged once"
ip netns exec "$NS_A" python3 - "$A_ADDR" "$B_ADDR" <<'EOP' &
import socket, sys, time
c = socket.create_connection((sys.argv[2], 5201), source_address=(sys.argv[1], 0))
chunk = b"y" * (1 << 20)
while True:
    # 100 Mbit/s: 12.5 MB a second, in 1 MiB writes paced over the second
    for _ in range(12):
        c.sendall(chunk)
        time.sleep(1 / 12)
EOP
BULK=$!
track_pid $BULK
wait_check fabric.b.transport '^warn '
OUT=$(check_of fabric.b.transport)
echo "$OUT"
assert_contains "$OUT" "warn bulk traffic to b over TCP" "the first warning after the transfer started"
assert_contains "$OUT" "fell back to sockets"
assert_contains "$OUT" "NET/Socket"
run_rc 1 "$HALOCTL" status
echo "$OUT"
assert_contains "$OUT" "Fabric use: ● b  bulk traffic to b over TCP"
assert_not_contains "$(grep 'Fabric use:' <<<"$OUT")" "Likely causes" "the Fabric use row"
next_verify
assert_eq "$(dm_prop Health)" degraded Health
# The metrics: the fallback and the TCP bytes to b (the 100 MB the transfer has moved at the least).
wait_until $PROGRESS grep -q '^halod_fabric_tcp_fallback{peer="b"} 1$' "$TEST_DIR/prom/halod.prom"
sent=$(sed -n 's/^halod_fabric_tcp_sent_bytes_total{peer="b"} //p' "$TEST_DIR/prom/halod.prom")
[ "${sent:-0}" -gt 10000000 ] || fail "halod_fabric_tcp_sent_bytes_total{peer=\"b\"} is ${sent:-absent}"
assert_eq "$(grep -c 'Fabric use towards b fell back to TCP' "$HALOD_LOG")" 1 "transitions into the fallback logged"

log "the transfer stops: the check passes again, the return logged once"
stop_pid $BULK
wait_check fabric.b.transport '^pass '
OUT=$(check_of fabric.b.transport)
assert_contains "$OUT" "pass idle: TCP to b" "after the transfer"
next_verify
assert_eq "$(grep -c 'Fabric use towards b is off the TCP fallback' "$HALOD_LOG")" 1 "transitions out of the fallback logged"
assert_eq "$(grep -c 'Fabric use towards b fell back to TCP' "$HALOD_LOG")" 1 "transitions into the fallback logged"
assert_eq "$(dm_prop Health)" healthy Health
wait_until $PROGRESS grep -q '^halod_fabric_tcp_fallback{peer="b"} 0$' "$TEST_DIR/prom/halod.prom"

pass
