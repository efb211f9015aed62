# SPDX-License-Identifier: MIT
# Helpers for the Cockpit page tests and bench, sourced after lib.sh and daemon-lib.sh: the page
# installed under $TEST_DIR as meson installs it, the distribution's cockpit-ws and cockpit-bridge on
# the private bus (--local-session: no login, the bridge runs as the user cockpit-ws runs as), and
# a headless Chromium driven over its DevTools protocol by cockpit-cdp.py.

COCKPIT_WS=/usr/lib/cockpit/cockpit-ws
# DBUS_SESSION_BUS_ADDRESS names no socket (a path in TEST_DIR) for cockpit-ws and Chromium.
# With none set, libdbus and GLib there autolaunch a session dbus-daemon, which outlived the test
# (one was left per run).
CDP=(/usr/bin/python3 "$SOURCE_DIR/tests/integration/cockpit-cdp.py")

# ck_require: skip (fail with CI=true) unless cockpit-ws, cockpit-bridge, the shell's stylesheet,
# Chromium and python3-websocket are installed.
ck_require() {
        [ -x "$COCKPIT_WS" ] || skip "$COCKPIT_WS not found; install cockpit-ws (tools/deps test)"
        require_tools cockpit-bridge
        [ -d /usr/share/cockpit/shell ] || skip "/usr/share/cockpit/shell not found; install cockpit-system (tools/deps test)"
        CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
        [ -n "$CHROMIUM" ] || skip "chromium not found; install chromium (tools/deps test)"
        /usr/bin/python3 -c 'import websocket' 2>/dev/null ||
                skip "/usr/bin/python3 has no websocket module; install python3-websocket (tools/deps test)"
}

# ck_free_port: a TCP port free on 127.0.0.1 now.
ck_free_port() {
        /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ck_install_page: the page's files into $TEST_DIR/share/cockpit/halod, world-readable, as
# cockpit/meson.build installs them; XDG_DATA_DIRS for cockpit-ws then finds it.
ck_install_page() {
        mkdir -p "$TEST_DIR/share/cockpit/halod"
        cp "$SOURCE_DIR"/cockpit/{manifest.json,index.html,halod.js,halod.css} "$TEST_DIR/share/cockpit/halod/"
        chmod -R a+rX "$TEST_DIR/share"
}

# ck_install_man: the built man pages in $TEST_DIR/man/manN/, the MANPATH ck_start_ws gives the
# bridge, so that the page's man page links show them as on an installed system.
ck_install_man() {
        local f
        for f in "$BUILD_DIR"/man/*.[158]; do
                [ -f "$f" ] || continue
                install -D -m 644 "$f" "$TEST_DIR/man/man${f##*.}/$(basename "$f")"
        done
        chmod -R a+rX "$TEST_DIR/man"
}

# ck_start_ws USER: cockpit-ws for USER (root, or an unprivileged user through runuser) on a free
# port, its bridge on the bus in DBUS_SYSTEM_BUS_ADDRESS. Sets WS_PORT.
ck_start_ws() {
        local user=$1 run=()
        WS_PORT=$(ck_free_port)
        [ "$user" = root ] || run=(runuser -u "$user" --)
        install -d -m 700 -o "$user" "$TEST_DIR/home-$user" "$TEST_DIR/xdg-$user"
        "${run[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME="$TEST_DIR/home-$user" \
                XDG_DATA_DIRS="$TEST_DIR/share:/usr/share" XDG_RUNTIME_DIR="$TEST_DIR/xdg-$user" \
                MANPATH="$TEST_DIR/man:" \
                DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" DBUS_SESSION_BUS_ADDRESS="unix:path=$TEST_DIR/no-session-bus" \
                "$COCKPIT_WS" --port "$WS_PORT" --address 127.0.0.1 --local-session=cockpit-bridge \
                >"$TEST_DIR/logs/cockpit-ws-$user.log" 2>&1 </dev/null &
        track_pid $!
        wait_until 20 curl_ok "http://127.0.0.1:$WS_PORT/cockpit/@localhost/halod/manifest.json"
}

# curl_ok URL: the URL answers 200 (python, as curl may be missing).
curl_ok() {
        /usr/bin/python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$1"
}

# ck_start_chromium: headless Chromium with a DevTools port (CDP_PORT) and a blank page.
ck_start_chromium() {
        CDP_PORT=$(ck_free_port)
        DBUS_SESSION_BUS_ADDRESS="unix:path=$TEST_DIR/no-session-bus" "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
                --remote-debugging-port="$CDP_PORT" --user-data-dir="$TEST_DIR/chromium" \
                --window-size=1280,1000 about:blank >"$TEST_DIR/logs/chromium.log" 2>&1 </dev/null &
        track_pid $!
        wait_until 30 curl_ok "http://127.0.0.1:$CDP_PORT/json/version"
}

# cdp COMMAND ARGS...: cockpit-cdp.py against the browser.
cdp() {
        "${CDP[@]}" "$CDP_PORT" "$@"
}

# ck_text: the page's visible text.
ck_text() {
        cdp eval 'document.body.innerText'
}

# ck_start_cluster: two nodes in a namespace pair (head in NS_A, worker in NS_B), each with its halod
# on its own private bus (BUS_HEAD, BUS_WORKER; mode: verify, peers probed every 2 s). The head's
# link has MTU 1500 where the profile wants 9000, so link.fab0.mtu fails there, and the worker's
# peer.head.mtu with it: both are degraded, and the head knows the worker's health from its answers.
# Returns once both say so. Sets HEAD_ADDR, WORKER_ADDR.
ck_start_cluster() {
        dm_head_worker 10.79.0 1500
        dm_head_worker_profile "$TEST_DIR/halod.yaml" ck-test 2s
        dm_two_buses
        on worker dm_start_halod "$NS_B" worker "$TEST_DIR/halod.yaml"
        wait_notify "$NOTIFY_OUT" 'READY=1'
        on head dm_start_halod "$NS_A" head "$TEST_DIR/halod.yaml"
        wait_notify "$NOTIFY_OUT" 'READY=1'
        on head wait_until 30 dm_prop_is Health degraded
        on worker wait_until 30 dm_prop_is Health degraded
        on head wait_until 30 sh -c "busctl get-property ${HALOD_BUS[*]} Checks | grep -q 'worker of cluster ck-test (degraded)'"
}
