#!/bin/bash
# SPDX-License-Identifier: MIT
# halod's TCP watch (lib/net/sock-diag.h, tcp-peer-bytes.h) against the real kernel: two network
# namespaces joined by a veth, a python3 sink in B on two addresses, and in A, between two dumps,
# 20 MB sent to the peer address and 20 MB to the other one. The per-peer bytes must grow by at least
# what was sent to the peer; the socket to the other address must be seen but not counted.
# SEED=DIR (optional): keep the second dump's raw reply as a fuzz seed there.
set -euo pipefail
. "${SOURCE_DIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
harness_init sd
require_root
require_tools ip python3
require_build_file tests/sock-diag-tool

netns_pair
A=10.77.0.1 B=10.77.0.2 OTHER=10.77.0.3
ip -n "$NS_A" addr add "$A/24" dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" up
ip -n "$NS_B" addr add "$B/24" dev "$IF_B"
ip -n "$NS_B" addr add "$OTHER/24" dev "$IF_B"
ip -n "$NS_B" link set lo up
ip -n "$NS_A" link set lo up

SIZE=$((20 * 1000 * 1000))
# The sink: each connection reads SIZE bytes, answers "ok", then holds the socket until the client closes.
cat >"$TEST_DIR/sink.py" <<'EOF'
import socket, sys, threading
size = int(sys.argv[1])
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", 5001)); srv.listen(8)
print("listening", flush=True)
def serve(c):
    n = 0
    while n < size:
        b = c.recv(1 << 20)
        if not b: return
        n += len(b)
    c.sendall(b"ok")
    while c.recv(4096): pass
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
# The client: SIZE bytes to each address, waits for "ok" (all received), says "sent", holds its
# sockets open until its stdin closes (so that the second dump still sees them).
cat >"$TEST_DIR/client.py" <<'EOF'
import socket, sys
size = int(sys.argv[1])
socks = []
for addr in sys.argv[2:]:
    s = socket.create_connection((addr, 5001)); s.sendall(b"x" * size)
    assert s.recv(2) == b"ok"; socks.append(s)
print("sent", flush=True)
sys.stdin.read()
EOF
in_ns "$NS_B" python3 "$TEST_DIR/sink.py" "$SIZE" >"$TEST_DIR/sink.log" 2>&1 &
track_pid $!
for _ in $(seq 1 100); do grep -q listening "$TEST_DIR/sink.log" && break; sleep 0.1; done
grep -q listening "$TEST_DIR/sink.log" || fail "the sink did not start: $(cat "$TEST_DIR/sink.log")"

mkfifo "$TEST_DIR/tool.in" "$TEST_DIR/client.in"
raw=()
[ -z "${SEED:-}" ] || raw=(--raw "$SEED/tcp-dump")
in_ns "$NS_A" "$BUILD_DIR/tests/sock-diag-tool" "${raw[@]}" "$A" "$B" <"$TEST_DIR/tool.in" >"$TEST_DIR/tool.out" 2>&1 &
tool=$!
track_pid $tool
exec 3>"$TEST_DIR/tool.in"
for _ in $(seq 1 100); do grep -q dumped "$TEST_DIR/tool.out" && break; sleep 0.1; done
grep -q dumped "$TEST_DIR/tool.out" || fail "sock-diag-tool's first dump failed: $(cat "$TEST_DIR/tool.out")"

in_ns "$NS_A" python3 "$TEST_DIR/client.py" "$SIZE" "$B" "$OTHER" <"$TEST_DIR/client.in" >"$TEST_DIR/client.out" 2>&1 &
client=$!
track_pid $client
exec 4>"$TEST_DIR/client.in"
for _ in $(seq 1 600); do grep -q sent "$TEST_DIR/client.out" && break; kill -0 $client 2>/dev/null || break; sleep 0.1; done
grep -q sent "$TEST_DIR/client.out" || fail "the client did not send: $(cat "$TEST_DIR/client.out")"

echo go >&3
exec 3>&-
wait $tool || fail "sock-diag-tool failed: $(cat "$TEST_DIR/tool.out")"
exec 4>&-
wait $client || true
cat "$TEST_DIR/tool.out" >&2

read -r _ addr _ sockets _ sent _ received < <(grep "^peer $B " "$TEST_DIR/tool.out") || fail "no line for peer $B"
[ "$sockets" -ge 1 ] || fail "peer $B: no socket seen"
[ "$sent" -ge "$SIZE" ] || fail "peer $B: $sent bytes sent counted, $SIZE were sent and acknowledged"
[ "$received" -ge 2 ] || fail "peer $B: the sink's answer (2 bytes) not counted as received ($received)"
grep -q "^other $OTHER:5001$" "$TEST_DIR/tool.out" || fail "the socket to $OTHER was not in the dump"
# only the one socket to B is counted: its bytes, not both transfers'
[ "$sent" -lt $((2 * SIZE)) ] || fail "peer $B: $sent bytes: the transfer to $OTHER was counted too"
log "peer $B: $sent bytes sent, $received received over $sockets socket(s); $OTHER seen, not counted"
