#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: what one Properties.Get naming an interface of SIZE bytes (default 30 MiB) costs halod:
# the size of the error reply and the CPU time halod spends on the call (utime + stime from
# /proc/PID/stat, in clock ticks of 10 ms), REPETITIONS times, over a private bus. halod answers with
# a short InvalidArgs error before sd-bus looks the name up (issue 17); sd-bus's own "Unknown
# interface" error repeated the name.
#
# Usage (root): BUILD_DIR=build bench/bus-longname.sh [REPETITIONS] [SIZE]   (default 5, 31457280)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

reps=${1:-5}
size=${2:-$((30 * 1024 * 1024))}
harness_init ln
require_root
require_tools ip busctl dbus-daemon python3
require_build_file daemon/halod

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" verify 10.82.0.1/30 10.82.0.2/30
dm_start_halod "$NS_A" a "$PROFILE"
wait_notify "$NOTIFY_OUT" 'READY=1'

# A D-Bus client in a few lines: Hello, then Get(interface of SIZE bytes, "Health"); prints the size
# of the error reply.
cat >"$TEST_DIR/longget.py" <<'EOF'
import os, socket, struct, sys

def pad(b, n):
    return b + bytes(-len(b) % n)

def string(b):
    return struct.pack("<I", len(b)) + b + b"\0"

def call(serial, path, interface, member, destination, signature=None, body=b""):
    fields = b""
    for code, t, value in ((1, b"o", path), (2, b"s", interface), (3, b"s", member), (6, b"s", destination)):
        fields = pad(fields, 8) + bytes([code, 1]) + t + b"\0" + string(value.encode())
    if signature:
        fields = pad(fields, 8) + bytes([8, 1]) + b"g\0" + bytes([len(signature)]) + signature + b"\0"
    head = b"l" + bytes([1, 0, 1]) + struct.pack("<III", len(body), serial, len(fields)) + fields
    return pad(head, 8) + body

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\nBEGIN\r\n")
s.sendall(call(1, "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "org.freedesktop.DBus"))
body = pad(string(b"x" * int(sys.argv[2])), 4) + string(b"Health")
s.sendall(call(2, "/io/halod1", "org.freedesktop.DBus.Properties", "Get", "io.halod1", b"ss", body))
buf = s.recv(4096).split(b"\r\n", 1)[1]  # after the server's "OK <guid>"
while True:
    while len(buf) < 16:
        buf += s.recv(1 << 20)
    length, fields = struct.unpack("<I", buf[4:8])[0], struct.unpack("<I", buf[12:16])[0]
    total = 16 + fields + (-(16 + fields) % 8) + length
    while len(buf) < total:
        buf += s.recv(1 << 20)
    message, buf = buf[:total], buf[total:]
    if message[1] == 3:  # an error: the answer to the Get
        print(total)
        break
EOF
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$HALOD_PID/stat"; }
log "Get with an interface name of $size bytes, $reps times"
for i in $(seq "$reps"); do
        before=$(cpu_ms)
        bytes=$(python3 "$TEST_DIR/longget.py" "${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}" "$size")
        echo "repetition $i: error reply $bytes bytes, halod CPU $(($(cpu_ms) - before)) ms"
done
pass
