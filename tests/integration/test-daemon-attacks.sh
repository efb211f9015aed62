#!/bin/bash
# SPDX-License-Identifier: MIT
# What an attack on halod found (issue 17), each against the running daemon on a private bus:
# - the profile gone from a sticky directory while another user keeps linking a file of their own in
#   its place: no reload ever reads it (main's halod, which judged the path and then opened it again
#   by name, loaded it);
# - a FIFO, or a symlink, at fabric.env before halod starts: READY=1 all the same, and a regular
#   file in its place (main's halod blocked on the FIFO before READY=1);
# - Get, GetAll and Set naming an interface or property of 120,000 bytes: a short InvalidArgs error
#   (main's halod echoed the name back in a 120 kB error);
# and what held, so that it keeps holding: Set is refused to an unprivileged caller by the bus policy,
# and a second halod on the same bus exits at once with the reason while the first keeps running.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init ak
require_root
require_tools ip busctl dbus-daemon python3 setpriv
require_build_file daemon/halod
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

start_dbus
dm_install_bus_policy
netns_pair
# The profile lives in a sticky directory, as in /tmp: trusted as long as root's file is there.
STICKY=$TEST_DIR/sticky
mkdir -m 1777 "$STICKY"
PROFILE=$STICKY/halod.yaml
dm_write_profile "$PROFILE" verify 10.80.0.1/30 10.80.0.2/30
chmod 644 "$PROFILE"
ip -n "$NS_A" addr add 10.80.0.1/30 dev "$IF_A"
ip -n "$NS_A" link set "$IF_A" mtu 9000 up

log "a FIFO at fabric.env before the start: halod becomes ready and replaces it with the file"
RUN=$TEST_DIR/run-a
mkdir -p "$RUN"
mkfifo "$RUN/fabric.env"
dm_start_halod "$NS_A" a "$PROFILE"
# Nobody ever opens the FIFO for writing: a halod that waits on it never gets there.
wait_notify "$NOTIFY_OUT" 'READY=1'
[ -f "$RUN/fabric.env" ] && [ ! -p "$RUN/fabric.env" ] || fail "fabric.env is not a regular file: $(ls -l "$RUN/fabric.env")"
assert_contains "$(cat "$RUN/fabric.env")" "VLLM_HOST_IP=10.80.0.1" "fabric.env"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 10
stop_pid "$NOTIFY_PID" # the next start binds its socket anew
rm -f "$TEST_DIR/notify-a.sock"

log "a symlink at fabric.env: replaced, not followed (its target keeps its content)"
echo "not halod's" >"$TEST_DIR/elsewhere"
rm "$RUN/fabric.env"
ln -s "$TEST_DIR/elsewhere" "$RUN/fabric.env"
dm_start_halod "$NS_A" a "$PROFILE"
wait_notify "$NOTIFY_OUT" 'READY=1'
[ -f "$RUN/fabric.env" ] && [ ! -L "$RUN/fabric.env" ] || fail "fabric.env is not a regular file: $(ls -l "$RUN/fabric.env")"
assert_eq "$(cat "$TEST_DIR/elsewhere")" "not halod's" "the symlink's target"
dm_wait_prop Health healthy

log "a second halod on the same bus: exits at once with the reason, the first keeps running"
run_rc 1 ip netns exec "$NS_A" "$BUILD_DIR/daemon/halod" --profile "$PROFILE" --node a --backend netlink \
        --runtime-dir "$TEST_DIR/run-second"
assert_contains "$OUT" "already owns io.halod1"
kill -0 "$HALOD_PID" || fail "the first halod died"
assert_eq "$(dm_prop Health)" healthy "Health after a second start"

log "a caller that execs a setuid program after its call: its connection's uid counts, not the process's"
# The call waits in halod's socket (halod stopped) until the caller is su, set-user-ID root and
# blocked at its password prompt: a halod that asked /proc who the caller is now would see euid 0.
cat >"$TEST_DIR/raw-reload.py" <<'EOF'
# A D-Bus client in a few lines: authenticates, sends Hello and io.halod1.Node.Reload, then either
# reads the replies ("wait") or execs su with the connection open ("su").
import os, socket, struct, sys

def pad(b, n):
    return b + bytes(-len(b) % n)

def call(serial, path, interface, member, destination):
    fields = b""
    for code, sig, value in ((1, b"o", path), (2, b"s", interface), (3, b"s", member), (6, b"s", destination)):
        v = value.encode()
        fields = pad(fields, 8) + bytes([code, 1]) + sig + b"\0" + struct.pack("<I", len(v)) + v + b"\0"
    head = b"l" + bytes([1, 0, 1]) + struct.pack("<III", 0, serial, len(fields)) + fields
    return pad(head, 8)

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
if not s.recv(4096).startswith(b"OK"):
    sys.exit("the bus refused the authentication")
s.sendall(b"BEGIN\r\n")
s.sendall(call(1, "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "org.freedesktop.DBus"))
s.sendall(call(2, "/io/halod1", "io.halod1.Node", "Reload", "io.halod1"))
if sys.argv[2] == "wait":
    while s.recv(4096):  # the control: the connection stays, the replies are read and dropped
        pass
    sys.exit(0)
# su keeps the connection open and waits for a password on a pipe that nobody writes to.
r, w = os.pipe()
for fd in (s.fileno(), r, w):
    os.set_inheritable(fd, True)
os.dup2(r, 0)
print("exec su", flush=True)
os.execv("/usr/bin/su", ["su", "-c", "true", "root"])
EOF
reloads() { grep -c "reloaded" "$HALOD_LOG" || true; }
# The control: the same call from root reloads, so the call itself reaches halod.
reloads_before=$(reloads)
python3 "$TEST_DIR/raw-reload.py" "${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}" wait >"$TEST_DIR/logs/raw-control.log" 2>&1 &
CONTROL=$!
track_pid "$CONTROL"
reloaded_since() { [ "$(reloads)" -gt "$1" ]; }
wait_until 10 reloaded_since "$reloads_before"
stop_pid "$CONTROL"
reloads_before=$(reloads)
kill -STOP "$HALOD_PID"
"${NOBODY[@]}" python3 "$TEST_DIR/raw-reload.py" "${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}" su \
        >"$TEST_DIR/logs/setuid-caller.log" 2>&1 &
CALLER=$!
track_pid "$CALLER"
caller_is_setuid() { grep -Eq '^Uid:[[:space:]]+65534[[:space:]]+0[[:space:]]' "/proc/$CALLER/status"; }
wait_until 10 caller_is_setuid
kill -CONT "$HALOD_PID"
# Answered after the call before it: by now halod has judged the Reload.
assert_eq "$(dm_prop Cluster)" dm-test "Cluster after the setuid caller's Reload"
stop_pid "$CALLER"
assert_eq "$(reloads)" "$reloads_before" "reloads logged after the setuid caller's Reload"

log "the profile gone from the sticky directory while another user keeps linking theirs there: never read"
sed 's/^cluster: dm-test/cluster: dm-pwned/' "$PROFILE" >"$STICKY/theirs.yaml"
chown 65534 "$STICKY/theirs.yaml"
rm "$PROFILE"
# As fast as it can: a hard link of their own file to the profile's name, then away again.
"${NOBODY[@]}" python3 - "$STICKY/theirs.yaml" "$PROFILE" >"$TEST_DIR/logs/attacker.log" 2>&1 <<'EOF' &
import os, sys
src, dst = sys.argv[1], sys.argv[2]
print("linking", flush=True)
while True:
    try:
        os.link(src, dst)
    except FileExistsError:
        pass
    try:
        os.unlink(dst)
    except FileNotFoundError:
        pass
EOF
ATTACKER=$!
track_pid "$ATTACKER"
wait_until 10 grep -q linking "$TEST_DIR/logs/attacker.log"
refused=0
for i in $(seq 200); do
        rc=0
        OUT=$(busctl call "${HALOD_BUS[@]}" Reload 2>&1) || rc=$?
        if [ "$rc" -eq 0 ]; then
                fail "reload $i read the other user's file: Cluster is now $(dm_prop Cluster)"
        fi
        refused=$((refused + 1))
done
kill -0 "$ATTACKER" || fail "the attacker stopped early: $(cat "$TEST_DIR/logs/attacker.log")"
stop_pid "$ATTACKER"
log "$refused reloads refused"
assert_eq "$(dm_prop Cluster)" dm-test "Cluster after the reloads"
assert_not_contains "$(cat "$HALOD_LOG")" "dm-pwned" "halod's log"
assert_contains "$(cat "$HALOD_LOG")" "cannot read the profile" "halod's log"
assert_contains "$(cat "$HALOD_LOG")" "$PROFILE: profile not trusted: it is owned by" "halod's log"
rm -f "$PROFILE"
dm_write_profile "$PROFILE" verify 10.80.0.1/30 10.80.0.2/30
chmod 644 "$PROFILE"
busctl call "${HALOD_BUS[@]}" Reload >/dev/null || fail "root's profile back: Reload failed"

log "Get, GetAll and Set with a name of 120,000 bytes: a short InvalidArgs error, not the name back"
long=$(head -c 120000 /dev/zero | tr '\0' x)
# short_refusal WHAT COMMAND...: COMMAND fails with the short error.
short_refusal() {
        local what=$1
        shift
        run_rc 1 "$@"
        [ "${#OUT}" -lt 512 ] || fail "$what: an error of ${#OUT} bytes: ${OUT:0:200}..."
        assert_contains "$OUT" "name longer than 255 bytes" "$what"
}
PROPS=(io.halod1 /io/halod1 org.freedesktop.DBus.Properties)
short_refusal "Get, long interface" busctl call "${PROPS[@]}" Get ss "$long" Health
short_refusal "Get, long property" busctl call "${PROPS[@]}" Get ss io.halod1.Node "$long"
short_refusal "Get, long interface, unprivileged" "${NOBODY[@]}" busctl call "${PROPS[@]}" Get ss "$long" Health
short_refusal "GetAll, long interface" busctl call "${PROPS[@]}" GetAll s "$long"
short_refusal "Set, long property" busctl call "${PROPS[@]}" Set ssv io.halod1.Node "$long" s x
# 255 bytes is a name D-Bus allows: sd-bus's own answer, naming it.
name255=$(head -c 255 /dev/zero | tr '\0' y)
run_rc 1 busctl call "${PROPS[@]}" Get ss io.halod1.Node "$name255"
assert_contains "$OUT" "$name255" "Get of an unknown property of 255 bytes"
assert_not_contains "$OUT" "longer than 255" "Get of an unknown property of 255 bytes"
assert_eq "$(dm_prop Health)" healthy "Health after the long names"

log "Set from an unprivileged caller: refused by the bus policy, the property unchanged"
run_rc 1 "${NOBODY[@]}" busctl set-property "${HALOD_BUS[@]}" Health s failed
assert_contains "$OUT" "Access denied"
assert_eq "$(dm_prop Health)" healthy "Health after an unprivileged Set"

kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 10
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
pass
