#!/bin/bash
# SPDX-License-Identifier: MIT
# halod's TCP watch (lib/net/sock-diag.h, tcp-peer-bytes.h) against the real kernel: two network
# namespaces joined by a veth, a python3 sink in B on two addresses, and in A a connection to the peer
# that moves 5 MB before the first dump and 20 MB between the two, and one that moves 20 MB to the
# other address. The peer's bytes must grow by at least the 20 MB and not count the 5 MB; the socket
# to the other address must be seen but not counted; user nobody must see the same socket's bytes;
# in B, the sink's end (accepted by a dual-stack listener: AF_INET6, IPv4-mapped) counts as from A, and the
# kernel's filter keeps only the sockets on the addresses asked for (one of the two, then both).
# SEED=DIR (optional): keep the second dump's raw reply as a fuzz seed there.
set -euo pipefail
. "${SOURCE_DIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
harness_init sd
require_root
require_tools ip python3 setpriv
require_build_file tests/sock-diag-tool

netns_pair
A=10.77.0.1 B=10.77.0.2 OTHER=10.77.0.3
ip -n "$NS_A" addr add "$A/24" dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" up
ip -n "$NS_B" addr add "$B/24" dev "$IF_B"
ip -n "$NS_B" addr add "$OTHER/24" dev "$IF_B"

SIZE=$((20 * 1000 * 1000))
EARLY=$((5 * 1000 * 1000))
# The sink: on each connection, answers "ok" to every run of bytes that ends in a newline. Its listener
# is dual-stack, as iperf3's is: the connections it accepts are AF_INET6 with IPv4-mapped addresses.
cat >"$TEST_DIR/sink.py" <<'PY'
import socket, threading
srv = socket.socket(socket.AF_INET6); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
srv.bind(("::", 5001)); srv.listen(8)
print("listening", flush=True)
def serve(c):
    while True:
        b = c.recv(1 << 20)
        if not b: return
        for _ in range(b.count(b"\n")): c.sendall(b"ok")
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
# The client, driven line by line on stdin: "send ADDR BYTES" on its one connection to ADDR (opened on
# first use), answered "done" once the sink has read them; at the end of its input it exits.
cat >"$TEST_DIR/client.py" <<'PY'
import socket, sys
socks = {}
for line in sys.stdin:
    _, addr, n = line.split()
    if addr not in socks:
        socks[addr] = socket.create_connection((addr, 5001))
    s = socks[addr]; s.sendall(b"x" * int(n) + b"\n")
    assert s.recv(2) == b"ok"
    print("done", flush=True)
PY
# ip netns exec execs its command: $! is the python3 or the tool itself, which the teardown stops
ip netns exec "$NS_B" python3 "$TEST_DIR/sink.py" >"$TEST_DIR/sink.log" 2>&1 &
track_pid $!
wait_until 10 grep -q listening "$TEST_DIR/sink.log" || fail "the sink did not start: $(cat "$TEST_DIR/sink.log")"

mkfifo "$TEST_DIR/tool.in" "$TEST_DIR/client.in"
ip netns exec "$NS_A" python3 "$TEST_DIR/client.py" <"$TEST_DIR/client.in" >"$TEST_DIR/client.out" 2>&1 &
client=$!
track_pid $client
exec 4>"$TEST_DIR/client.in"
# client_send ADDR BYTES: the client sends them and the sink has read them all
client_send() {
        local before
        before=$(grep -c done "$TEST_DIR/client.out" || true)
        echo "send $1 $2" >&4
        for _ in $(seq 1 600); do
                [ "$(grep -c done "$TEST_DIR/client.out" || true)" -gt "$before" ] && return 0
                kill -0 $client 2>/dev/null || break
                sleep 0.1
        done
        fail "the client did not send $2 bytes to $1: $(cat "$TEST_DIR/client.out")"
}

# the connection to the peer moves EARLY bytes before the first dump: they must not count
client_send "$B" "$EARLY"

raw=()
[ -z "${SEED:-}" ] || raw=(--raw "$SEED/tcp-dump")
ip netns exec "$NS_A" "$BUILD_DIR/tests/sock-diag-tool" "${raw[@]}" "$A" "$B" <"$TEST_DIR/tool.in" >"$TEST_DIR/tool.out" 2>&1 &
tool=$!
track_pid $tool
exec 3>"$TEST_DIR/tool.in"
wait_until 10 grep -q dumped "$TEST_DIR/tool.out" || fail "sock-diag-tool's first dump failed: $(cat "$TEST_DIR/tool.out")"

client_send "$B" "$SIZE"
client_send "$OTHER" "$SIZE"

echo go >&3
exec 3>&-
wait $tool || fail "sock-diag-tool failed: $(cat "$TEST_DIR/tool.out")"
cat "$TEST_DIR/tool.out" >&2

read -r _ _ _ sockets _ sent _ received < <(grep "^peer $B " "$TEST_DIR/tool.out") || fail "no line for peer $B"
[ "$sockets" = 1 ] || fail "peer $B: $sockets sockets seen, the client has 1"
[ "$sent" -ge "$SIZE" ] || fail "peer $B: $sent bytes sent counted, $SIZE were sent and acknowledged"
[ "$sent" -lt $((SIZE + EARLY)) ] || fail "peer $B: $sent bytes: what moved before the first dump ($EARLY) was counted"
[ "$received" -ge 2 ] || fail "peer $B: the sink's answer (2 bytes) not counted as received ($received)"
grep -q "^other $OTHER:5001$" "$TEST_DIR/tool.out" || fail "the socket to $OTHER was not in the dump"
log "peer $B: $sent bytes sent, $received received; $OTHER seen, not counted"

# Unprivileged (halod's unit runs as user halod): the dump and tcp_info's bytes of root's sockets.
echo go | ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$BUILD_DIR/tests/sock-diag-tool" "$A" "$B" >"$TEST_DIR/nobody.out" 2>&1 ||
        fail "sock-diag-tool as nobody failed: $(cat "$TEST_DIR/nobody.out")"
read -r _ _ _ acked _ _ < <(grep "^seen $B:5001 " "$TEST_DIR/nobody.out") ||
        fail "as nobody, no socket to $B: $(cat "$TEST_DIR/nobody.out")"
[ "$acked" -ge $((SIZE + EARLY)) ] || fail "as nobody, the socket to $B shows $acked bytes acked, $((SIZE + EARLY)) were"
log "as nobody: the socket to $B with $acked bytes acked"

# The sink's end of the same connection, in B: an AF_INET6 socket between IPv4-mapped addresses.
ip netns exec "$NS_B" ss -H -6 -tn state established | grep -q "::ffff:$B]:5001" ||
        fail "the sink's socket is not IPv4-mapped IPv6; the test does not test what it says: $(ip netns exec "$NS_B" ss -tn)"
raw=()
[ -z "${SEED:-}" ] || raw=(--raw "$SEED/tcp-dump-v4-mapped")
echo go | ip netns exec "$NS_B" "$BUILD_DIR/tests/sock-diag-tool" "${raw[@]}" "$B" "$A" >"$TEST_DIR/sink-side.out" 2>&1 ||
        fail "sock-diag-tool in B failed: $(cat "$TEST_DIR/sink-side.out")"
read -r _ _ _ _ _ received < <(grep "^seen $A:" "$TEST_DIR/sink-side.out") ||
        fail "in B, no socket to $A (the IPv4-mapped one): $(cat "$TEST_DIR/sink-side.out")"
[ "$received" -ge $((SIZE + EARLY)) ] || fail "in B, the socket from $A shows $received bytes received, $((SIZE + EARLY)) were sent"
log "in B: the dual-stack listener's socket from $A with $received bytes received"
# The kernel's filter (an inet_diag bytecode): in B the sink holds a socket on $B and one on $OTHER, both
# from $A; asked for $B, the dump has only the first; asked for both, it has both.
[ "$(grep -c "^seen $A:" "$TEST_DIR/sink-side.out")" = 1 ] ||
        fail "in B, the dump for $B holds other sockets than those on $B: $(cat "$TEST_DIR/sink-side.out")"
echo go | ip netns exec "$NS_B" "$BUILD_DIR/tests/sock-diag-tool" "$B,$OTHER" "$A" >"$TEST_DIR/sink-both.out" 2>&1 ||
        fail "sock-diag-tool in B for $B and $OTHER failed: $(cat "$TEST_DIR/sink-both.out")"
[ "$(grep -c "^seen $A:" "$TEST_DIR/sink-both.out")" = 2 ] ||
        fail "in B, the dump for $B and $OTHER does not hold the sockets on both: $(cat "$TEST_DIR/sink-both.out")"
log "in B: the kernel kept the socket on $B alone, then those on $B and $OTHER"
exec 4>&-
wait $client || true
