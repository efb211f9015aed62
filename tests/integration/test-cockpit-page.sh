#!/bin/bash
# SPDX-License-Identifier: MIT
# halod's Cockpit page in a real browser: two halods in network namespaces on their own private
# buses (as test-daemon-peers.sh), the distribution's cockpit-ws and cockpit-bridge on the head's
# bus, the page installed as meson installs it, and headless Chromium over its DevTools protocol.
# The head's link has MTU 1500 where the profile wants 9000 (mode: verify, so nothing fixes it):
# the page shows Health, that failing check's id and summary first, and the worker's peer row with
# the worker's own health (degraded: jumbo frames do not reach the head). Deleting the head's
# fabric address makes link.fab0.address fail, and the same page shows it without a reload. The
# filter box keeps only what matches; a paced TCP transfer to the worker shows as the fabric's
# fallback to TCP; a man page link shows the page through the bridge (man, with MANPATH at the built
# pages). Viewed as the unprivileged user nobody (the shipped bus policy), Verify is refused with a
# message that says what to do; as root it runs. Last, the head's halod is restarted with kernel
# parameters in its profile and an Ubuntu GRUB tree (tests/data/hosts/kernel-ubuntu-cloudimg) over
# /boot and /etc/default: when its grub.cfg carries them, a Verify makes PendingReboot name them, and
# the page shows the reboot notice without a reload. The run's screenshots (the page; with the fallback,
# the one in doc/cockpit-page.png; after the drift) stay in $BUILD_DIR/meson-logs/cockpit-page
# beside meson's test log, or in $COCKPIT_SCREENSHOT_DIR when it is set.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
. "$(dirname "$0")/cockpit-lib.sh"

harness_init ck
require_root
require_tools ip busctl dbus-daemon jq runuser man
require_build_file daemon/halod
[ -f "$BUILD_DIR/man/io.halod1.5" ] || skip "$BUILD_DIR/man/io.halod1.5 not built; install scdoc (tools/deps build)"
ck_require

ck_start_cluster
HEAD_PID=$HALOD_PID
SHOTS=${COCKPIT_SCREENSHOT_DIR:-$BUILD_DIR/meson-logs/cockpit-page}
mkdir -p "$SHOTS"
rm -f "$SHOTS"/halod-page*.png

ck_install_page
ck_install_man
export DBUS_SYSTEM_BUS_ADDRESS=$BUS_HEAD
ck_start_ws nobody
VIEWER_PORT=$WS_PORT
ck_start_chromium
PAGE="http://127.0.0.1:$VIEWER_PORT/cockpit/@localhost/halod/index.html"

HARNESS_STEP="the page as an unprivileged viewer"
log "$HARNESS_STEP"
cdp navigate "$PAGE"
cdp wait 'document.getElementById("halod").dataset.state == "ready" && document.querySelector("#peers tbody tr") !== null' 30 >/dev/null ||
        fail "the page never rendered: $(ck_text 2>&1)"
cdp eval 'window.halodNotReloaded = true' >/dev/null
cdp screenshot "$SHOTS/halod-page.png"
text=$(ck_text)
assert_contains "$text" "degraded" "Health on the page"
assert_eq "$(cdp eval 'document.getElementById("health").dataset.health')" degraded "the Health label"
assert_eq "$(cdp eval 'document.getElementById("node-name").textContent')" head "the node's name"
assert_eq "$(on head busctl --json=short get-property "${HALOD_BUS[@]}" PendingReboot | jq -c .data)" "[]" \
        "PendingReboot"
assert_eq "$(cdp eval 'document.getElementById("reboot").hidden')" true "the reboot notice with nothing pending"
summary=$(on head dm_prop Summary)
assert_eq "$(cdp eval 'document.getElementById("summary").textContent')" "$summary" "Summary as the bus has it"
# The failing check: its id and its summary as halod published them, and first in the table.
mtu_summary=$(on head busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
        jq -r '.data[] | select(.[0] == "link.fab0.mtu") | .[2]')
[ -n "$mtu_summary" ] || fail "halod published no link.fab0.mtu"
assert_eq "$(cdp eval 'document.querySelector("#checks tbody tr").dataset.id')" link.fab0.mtu "the first check row"
assert_eq "$(cdp eval 'document.querySelector("#checks tbody tr").dataset.outcome')" fail "the first row's status"
assert_eq "$(cdp eval 'document.querySelector("#checks tbody tr").cells[2].textContent')" "$mtu_summary" \
        "link.fab0.mtu's summary"
# The peer row: name, address, reachable, and the worker's own health from its answer.
assert_eq "$(cdp eval 'document.querySelector("#peers tbody tr").dataset.node')" worker "the peer row"
assert_eq "$(cdp eval 'document.querySelector("#peers tbody tr").cells[1].textContent')" $WORKER_ADDR "its address"
assert_eq "$(cdp eval 'document.querySelector("#peers tbody tr").cells[2].textContent')" reachable "its reachability"
assert_eq "$(cdp eval 'document.querySelector("#peers tbody tr").cells[5].textContent')" "$(on worker dm_prop Health)" \
        "its own health"
# fabric.worker.transport (the fabric's use towards the worker) has its row.
assert_eq "$(cdp eval 'document.querySelector("#fabric tbody tr").cells[0].textContent')" worker "the fabric use row"

HARNESS_STEP="the filter box"
log "$HARNESS_STEP"
# filter TEXT: types TEXT into the filter box, as a user would (an input event).
filter() {
        cdp eval "(f => { f.value = '$1'; f.dispatchEvent(new Event('input')); return '' })(document.getElementById('filter'))" >/dev/null
}
filter peer.worker
ids=$(cdp eval '[...document.querySelectorAll("#checks tbody tr")].map(r => r.dataset.id).join(" ")')
[ -n "$ids" ] || fail "the filter 'peer.worker' left no rows"
for id in $ids; do
        [[ $id == peer.worker.* ]] || fail "the filter 'peer.worker' kept $id"
done
filter ""

HARNESS_STEP="the fabric's use: bulk TCP to the worker is a fallback"
log "$HARNESS_STEP"
# A sink in the worker's namespace and a paced 100 Mbit/s sender from the head, as
# test-daemon-transport.sh does: with no RDMA device, fabric.worker.transport's verdict is the TCP
# fallback once its 10 s window is covered.
ip netns exec "$NS_B" /usr/bin/python3 -c '
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5201))
s.listen(4)
def sink(c):
    while c.recv(1 << 20):
        pass
while True:
    threading.Thread(target=sink, args=(s.accept()[0],), daemon=True).start()
' "$WORKER_ADDR" &
track_pid $!
wait_until 10 sh -c "ip netns exec '$NS_B' ss -Hltn 'sport = :5201' | grep -q ."
ip netns exec "$NS_A" /usr/bin/python3 -c '
import socket, sys, time
c = socket.create_connection((sys.argv[2], 5201), source_address=(sys.argv[1], 0))
chunk = b"y" * (1 << 20)
while True:
    for _ in range(12):
        c.sendall(chunk)
        time.sleep(1 / 12)
' "$HEAD_ADDR" "$WORKER_ADDR" &
BULK=$!
track_pid $BULK
cdp wait 'document.querySelector("#fabric tbody tr")?.dataset.outcome == "warn"' 60 >/dev/null ||
        fail "fabric.worker.transport never warned on the page: $(cdp eval 'document.getElementById("fabric").innerText' 2>&1)"
assert_eq "$(cdp eval 'document.querySelector("#fabric tbody tr").cells[1].textContent')" "fallback to TCP" "the transport"
assert_contains "$(cdp eval 'document.querySelector("#fabric tbody tr").cells[3].textContent')" "fell back to sockets" \
        "the fallback's summary"
cdp screenshot "$SHOTS/halod-page-fallback.png"
stop_pid $BULK

HARNESS_STEP="a drift appears without a reload"
log "$HARNESS_STEP"
ip -n "$NS_A" addr del $HEAD_ADDR/30 dev "$IF_A"
cdp wait 'document.querySelector("#checks tbody tr[data-id=\"link.fab0.address\"]")?.dataset.outcome == "fail"' 30 >/dev/null ||
        fail "link.fab0.address never turned failed on the page: $(ck_text 2>&1)"
assert_eq "$(cdp eval 'window.halodNotReloaded === true')" true "the page was not reloaded"
cdp screenshot "$SHOTS/halod-page-drift.png"
addr_summary=$(on head busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
        jq -r '.data[] | select(.[0] == "link.fab0.address") | .[2]')
assert_eq "$(cdp eval 'document.querySelector("#checks tbody tr[data-id=\"link.fab0.address\"]").cells[2].textContent')" \
        "$addr_summary" "link.fab0.address's summary after the drift"

HARNESS_STEP="the man page links"
log "$HARNESS_STEP"
cdp eval 'document.querySelector("a[data-man=\"5 io.halod1\"]").click(); ""' >/dev/null
cdp wait 'document.getElementById("man-text").textContent.includes("the D-Bus API of halod")' 30 >/dev/null ||
        fail "io.halod1(5) not shown: $(cdp eval 'document.getElementById("man-text").textContent' 2>&1 | head -5)"
assert_eq "$(cdp eval 'document.getElementById("man-title").textContent')" "io.halod1(5)" "the man page's title"
assert_eq "$(cdp eval 'document.getElementById("journal-link").textContent')" "halod's journal" "the journal link"

HARNESS_STEP="Verify as nobody is refused with a clear message"
log "$HARNESS_STEP"
cdp eval 'document.getElementById("verify").click(); ""' >/dev/null
cdp wait 'document.getElementById("message-title").textContent.startsWith("Not permitted")' 30 >/dev/null ||
        fail "no refusal shown: $(ck_text 2>&1)"
assert_contains "$(cdp eval 'document.getElementById("message-text").textContent')" "io.halod1.manage" "the refusal"

HARNESS_STEP="Verify as root runs"
log "$HARNESS_STEP"
ck_start_ws root
cdp navigate "http://127.0.0.1:$WS_PORT/cockpit/@localhost/halod/index.html"
cdp wait 'document.getElementById("halod").dataset.state == "ready"' 30 >/dev/null || fail "the root page never rendered"
before=$(on head dm_prop LastVerifyUSec)
cdp eval 'document.getElementById("verify").click(); ""' >/dev/null
cdp wait 'document.getElementById("message-title").textContent == "Verify done"' 30 >/dev/null ||
        fail "Verify did not complete: $(cdp eval 'document.getElementById("message").innerText' 2>&1)"
[ "$(on head dm_prop LastVerifyUSec)" -gt "$before" ] || fail "LastVerifyUSec did not move after Verify"
assert_eq "$(cdp eval 'document.getElementById("message-text").textContent')" "$(on head dm_prop Summary)" \
        "Verify's reply, the new Summary"
HARNESS_STEP="a pending reboot shows as a notice"
log "$HARNESS_STEP"
kill -TERM "$HEAD_PID"
dm_wait_exit "$HEAD_PID" 60
HOST=$TEST_DIR/host
cp -a "$SOURCE_DIR/tests/data/hosts/kernel-ubuntu-cloudimg" "$HOST"
cp "$TEST_DIR/halod.yaml" "$TEST_DIR/halod-reboot.yaml"
echo 'kernel: { cmdline: [halod.test=1] }' >>"$TEST_DIR/halod-reboot.yaml"
rm -f "$TEST_DIR/notify-head.sock" # the first head's receiver keeps running until the end
on head dm_start_halod "$NS_A" head "$TEST_DIR/halod-reboot.yaml" "${DM_BIND_BOOT_TREE[@]}" "$HOST"
wait_notify "$NOTIFY_OUT" 'READY=1'
cdp navigate "http://127.0.0.1:$WS_PORT/cockpit/@localhost/halod/index.html"
cdp wait 'document.getElementById("halod").dataset.state == "ready"' 30 >/dev/null || fail "the page never rendered"
cdp eval 'window.halodNotReloaded = true' >/dev/null
assert_eq "$(cdp eval 'document.getElementById("reboot").hidden')" true "the reboot notice while grub.cfg lacks them"
sed -i -E 's/^(\s+linux\s+\S+ root=\S+ ro) /\1 halod.test=1 /' "$HOST/boot/grub/grub.cfg"
grep -q 'ro halod.test=1 ' "$HOST/boot/grub/grub.cfg" || fail "could not edit the fixture's grub.cfg"
on head run_rc 0 busctl --timeout=60 call "${HALOD_BUS[@]}" Verify
assert_eq "$(on head busctl --json=short get-property "${HALOD_BUS[@]}" PendingReboot | jq -c .data)" \
        '[["kernel.cmdline","kernel command line: halod.test=1"]]' "PendingReboot"
cdp wait '!document.getElementById("reboot").hidden' 30 >/dev/null ||
        fail "the reboot notice never showed: $(ck_text 2>&1)"
assert_eq "$(cdp eval 'window.halodNotReloaded === true')" true "the page was not reloaded"
assert_eq "$(cdp eval 'document.querySelector("#reboot-list li").textContent')" \
        "kernel command line: halod.test=1 (kernel.cmdline)" "the notice's line"
assert_eq "$(cdp eval 'document.querySelector("#reboot-list li").dataset.check')" kernel.cmdline "the notice's check"
assert_contains "$(cdp eval 'document.getElementById("reboot").innerText')" "Reboot required" "the notice"
cdp screenshot "$SHOTS/halod-page-reboot.png"
pass
