#!/bin/bash
# SPDX-License-Identifier: MIT
# A local user can neither take the peer channel's ports between two runs of halod nor hold its
# throughput sink (issue 31, findings 2 and 3). Two namespaces joined by a veth, a real halod in each
# on its own private bus, as test-daemon-peer-flood.sh runs them; the worker's halod is started the
# way systemd starts it from halod.socket: a holder keeps UDP and TCP 0.0.0.0:7739 open (with
# SO_REUSEADDR, as systemd's socket_address_listen() sets it) and passes them (LISTEN_FDS) to each
# halod it starts. The unprivileged user nobody:
#  1. while the worker's halod is down (killed, as a crash), tries to bind the worker's fabric address
#     and port 7739, UDP (with and without SO_REUSEADDR) and TCP: every bind fails, and the head's
#     peer checks of the worker pass again once it is back;
#  2. while the head's halod is down, binds port 7740 (health.port + 1, the probe port before) and
#     floods the worker from it and from an ephemeral port, 1000 requests/s each, and tries to bind
#     the probe port 739, which fails: the head's halod, started again, keeps peer.worker.reachable
#     passing in every Verify() during the flood;
#  3. connects to the worker's sink from the head's address, sends the header and then one byte every
#     0.2 s, reconnecting as soon as it is dropped: root's haloctl probe on the head measures
#     throughput in each of three tries.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init ps
require_root
require_tools ip ss busctl dbus-daemon jq setpriv /usr/bin/python3
require_build_file daemon/halod daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
FLOOD_RATE=1000 # requests per second from each of the two source ports
FLOOD_SECONDS=20
# A progress bound for what must happen eventually, generous on a shared machine; never asserted
# as a duration.
PROGRESS=30

dm_head_worker 10.79.1 # psns-$$-a is the head, psns-$$-b the worker
dm_head_worker_profile "$TEST_DIR/profile.yaml" ps-test 2s
chmod 0644 "$TEST_DIR/profile.yaml"

# The holder: what the service manager does for halod.socket and halod.service. It binds the two
# sockets once, then starts halod with them as fds 3 and 4 (LISTEN_FDS=2, LISTEN_PID its pid), writes
# that halod's pid to PIDFILE, and when it has exited, starts the next one once GOFILE appears. SIGTERM
# stops halod and the holder.
cat >"$TEST_DIR/holder.py" <<'EOF'
import os, signal, socket, sys, time
pidfile, gofile, argv = sys.argv[1], sys.argv[2], sys.argv[4:]
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
for s in (udp, tcp):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 7739))
tcp.listen(4)
child = 0
def stop(signum, frame):
    if child:
        os.kill(child, signal.SIGTERM)
        os.waitpid(child, 0)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
runs = 0
while True:
    if runs:
        while not os.path.exists(gofile):
            time.sleep(0.05)
        os.unlink(gofile)
    child = os.fork()
    if child == 0:
        u, t = os.dup(udp.fileno()), os.dup(tcp.fileno())
        os.dup2(u, 3)
        os.dup2(t, 4)
        os.environ.update(LISTEN_FDS="2", LISTEN_PID=str(os.getpid()), LISTEN_FDNAMES="halod.socket:halod.socket")
        os.execv(argv[0], argv)
    with open(pidfile + ".new", "w") as f:
        f.write("%d\n" % child)
    os.rename(pidfile + ".new", pidfile)
    runs += 1
    os.waitpid(child, 0)
    child = 0
EOF

dm_two_buses



start_head() {
        on head dm_start_halod "$NS_A" head "$TEST_DIR/profile.yaml"
        PID_head=$HALOD_PID
        LOG_head=$HALOD_LOG
        wait_notify "$NOTIFY_OUT" 'READY=1'
}

worker_pid() { cat "$TEST_DIR/worker.pid"; }

log "both halods start, the worker's on the sockets a holder passes it, and become healthy"
start_head
on worker dm_start_halod "$NS_B" worker "$TEST_DIR/profile.yaml" \
        /usr/bin/python3 "$TEST_DIR/holder.py" "$TEST_DIR/worker.pid" "$TEST_DIR/worker.go" --
HOLDER_PID=$HALOD_PID
NOTIFY_worker=$NOTIFY_OUT
LOG_worker=$HALOD_LOG
wait_notify "$NOTIFY_worker" 'READY=1'
on head dm_wait_prop Health healthy $PROGRESS
on worker dm_wait_prop Health healthy $PROGRESS
wait_until $PROGRESS dm_check_is_pass head peer.worker.reachable
grep -q "Peer channel open on $WORKER_ADDR, UDP and TCP port 7739" "$LOG_worker" ||
        fail "the worker's log says nothing of its channel:"$'\n'"$(cat "$LOG_worker")"

log "1. the worker's halod is killed: nobody cannot take UDP or TCP 7739 on the worker's address"
kill -KILL "$(worker_pid)"
wait_until $PROGRESS sh -c "! kill -0 $(worker_pid) 2>/dev/null"
run_rc 1 ip netns exec "$NS_B" "${DM_NOBODY[@]}" /usr/bin/python3 -c "
import socket, sys
taken = []
for kind, reuse in ((socket.SOCK_DGRAM, True), (socket.SOCK_DGRAM, False), (socket.SOCK_STREAM, True)):
    s = socket.socket(socket.AF_INET, kind)
    if reuse:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(('$WORKER_ADDR', 7739))
        taken.append((kind, reuse))
    except OSError as e:
        print(kind, reuse, e)
print('nobody bound:', taken)
sys.exit(0 if taken else 1)"
log "$OUT"
: >"$NOTIFY_worker"
touch "$TEST_DIR/worker.go"
wait_notify "$NOTIFY_worker" 'READY=1'
json=$(on head "$HALOCTL" verify --json) || true
assert_eq "$(jq -r '.checks[] | select(.id == "peer.worker.reachable") | .outcome' <<<"$json")" pass \
        "the head's peer.worker.reachable once the worker's halod is back"

log "2. the head's halod stops; nobody cannot bind the probe port 739, binds 7740 and floods the worker"
kill -TERM "$PID_head"
dm_wait_exit "$PID_head" 10
run_rc 1 ip netns exec "$NS_A" "${DM_NOBODY[@]}" /usr/bin/python3 -c "
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.bind(('0.0.0.0', 739))
except PermissionError as e:
    print(e)
    sys.exit(1)
sys.exit(0)"
ip netns exec "$NS_A" "${DM_NOBODY[@]}" /usr/bin/python3 - "$HEAD_ADDR" "$WORKER_ADDR" $FLOOD_RATE $FLOOD_SECONDS \
        >"$TEST_DIR/flood.json" 2>"$TEST_DIR/logs/flood.log" <<'EOP' &
# Valid echo requests (halod(8), PEER CHANNEL) from the head's address, port 7740 and an ephemeral
# port, rate requests/s each, counting what comes back. 7740 is bound before the head's halod starts
# again. At most rate × seconds datagrams from each, and never longer than twice the planned time.
import json, select, socket, sys, time
src, dst, rate, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cl, no, dg = b"ps-test", b"head", bytes(32)
pad = 192 - (26 + len(cl) + len(no) + len(dg))
import struct
def request(seq):
    return (b"HALO" + struct.pack(">BBHIQBBBBH", 1, 1, 0, seq, 0, 1, len(cl), len(no), len(dg), pad)
            + cl + no + dg + bytes(pad))
socks = []
for port in (7740, 0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, port))
    s.setblocking(False)
    socks.append(s)
print(json.dumps({"bound": 7740}), flush=True)
count = {"sent": 0, "replies": 0, "notices": 0}
def drain():
    for s in socks:
        while True:
            try:
                d = s.recv(65536)
            except (BlockingIOError, ConnectionRefusedError):
                break
            kind = {2: "replies", 7: "notices"}.get(d[5] if len(d) > 5 else 0)
            if kind:
                count[kind] += 1
total = rate * seconds
start = time.monotonic()
while count["sent"] < 2 * total and time.monotonic() - start < 2 * seconds:
    due = min(total, int((time.monotonic() - start) * rate) + 1)
    while count["sent"] < 2 * due:
        try:
            socks[count["sent"] % 2].sendto(request(count["sent"]), (dst, 7739))
        except BlockingIOError:
            break
        count["sent"] += 1
    drain()
    select.select(socks, [], [], 0.001)
drain()
print(json.dumps(count))
EOP
FLOOD_PID=$!
track_pid "$FLOOD_PID"
wait_until $PROGRESS grep -q bound "$TEST_DIR/flood.json"
start_head
verifies=0
: >"$TEST_DIR/during.txt"
while kill -0 "$FLOOD_PID" 2>/dev/null; do
        json=$(on head "$HALOCTL" verify --json) || true
        if kill -0 "$FLOOD_PID" 2>/dev/null; then
                verifies=$((verifies + 1))
                jq -r '.checks[] | select(.id == "peer.worker.reachable") | "\(.outcome) \(.summary)"' \
                        <<<"$json" >>"$TEST_DIR/during.txt"
        fi
        sleep 0.5
done
dm_wait_exit "$FLOOD_PID" 1
assert_eq "$EXIT_RC" 0 "the flooder's exit status ($(cat "$TEST_DIR/logs/flood.log"))"
flood=$(tail -n 1 "$TEST_DIR/flood.json")
log "flood: $flood; $verifies Verify() calls answered during it"
assert_eq "$(jq -r .sent <<<"$flood")" $((2 * FLOOD_RATE * FLOOD_SECONDS)) "datagrams the flooder sent"
[ "$(jq -r .notices <<<"$flood")" -gt 0 ] || fail "the flooder got no rate-limited notice: $flood"
[ "$verifies" -ge 3 ] || fail "only $verifies Verify() calls were answered during the flood"
bad=$(grep -v '^pass ' "$TEST_DIR/during.txt" | sort | uniq -c || true)
[ -z "$bad" ] || fail "peer.worker.reachable during the flood from port 7740:"$'\n'"$bad"

log "3. nobody trickles into the worker's sink, reconnecting when dropped; root's haloctl probe measures"
ip netns exec "$NS_A" "${DM_NOBODY[@]}" /usr/bin/python3 - "$HEAD_ADDR" "$WORKER_ADDR" 60 \
        >"$TEST_DIR/trickle.txt" 2>"$TEST_DIR/logs/trickle.log" <<'EOP' &
# The header, then a byte every 0.2 s; a new connection the moment the sink drops this one. Says how
# many connections it made. Stops after the given number of seconds at the latest.
import socket, sys, time
src, dst, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + seconds
connections = 0
while time.monotonic() < end:
    try:
        s = socket.create_connection((dst, 7739), timeout=5, source_address=(src, 0))
        connections += 1
        print("connected", connections, flush=True)
        s.sendall(b"HALOBLK\x01")
        while time.monotonic() < end:
            time.sleep(0.2)
            s.sendall(b"x")
    except OSError:
        pass
print("connections", connections, flush=True)
EOP
TRICKLE_PID=$!
track_pid "$TRICKLE_PID"
wait_until $PROGRESS grep -q connected "$TEST_DIR/trickle.txt"
for try in 1 2 3; do
        OUT=$(in_ns "$NS_A" "$HALOCTL" --node head probe worker "$TEST_DIR/profile.yaml" 2>&1) || true
        line=$(grep "fabric, UDP/TCP" <<<"$OUT" || true)
        log "haloctl probe $try while nobody trickles:$line"
        [[ "$line" =~ Gbit/s ]] || fail "haloctl probe $try while nobody trickles: $OUT"
done
kill "$TRICKLE_PID"
dm_wait_exit "$TRICKLE_PID" 10
log "the trickler: $(tail -n 1 "$TEST_DIR/trickle.txt")"

log "SIGTERM ends both, exit 0"
kill -TERM "$PID_head"
dm_wait_exit "$PID_head" 10
assert_eq "$EXIT_RC" 0 "the head's exit status"
kill -TERM "$HOLDER_PID"
dm_wait_exit "$HOLDER_PID" 10
pass
