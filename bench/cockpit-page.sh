#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: halod's Cockpit page beside Cockpit's own networking page (cockpit-networkmanager's
# /network) on the same machine, in the same run, the same browser and the same cockpit-ws: the
# first full render (from the navigation's start until the page shows its data: halod's peer row and
# checks; the head's interface with its address on /network) and a drift's appearance (from just
# before `ip addr del` of the head's fabric address until the page shows it: link.fab0.address
# failed; the address gone from /network). The setup is tests/integration/test-cockpit-page.sh's:
# two halods in namespaces, each on its private bus, cockpit-ws and cockpit-bridge as root on the
# head's bus, NetworkManager in the head's namespace on that bus (the networking page's source),
# headless Chromium. Times come from the page's clock (cockpit-cdp.py render-time and watch: a
# MutationObserver); the pages take turns, ROUNDS times each; the first round loads a cold cache.
#
# Usage (root): BUILD_DIR=build bench/cockpit-page.sh [ROUNDS]   (default 7)
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"
. "$SOURCE_DIR/tests/integration/cockpit-lib.sh"

rounds=${1:-7}
harness_init cpb
require_root
require_tools ip busctl dbus-daemon jq NetworkManager nm-online
require_build_file daemon/halod
ck_require
[ -d /usr/share/cockpit/networkmanager ] || skip "cockpit-networkmanager is not installed (tools/deps test)"

ck_start_cluster
export DBUS_SYSTEM_BUS_ADDRESS=$BUS_HEAD
start_networkmanager "$NS_A" "$IF_A"
ck_install_page
ck_start_ws root
ck_start_chromium
BASE=http://127.0.0.1:$WS_PORT/cockpit/@localhost

HALOD_URL=$BASE/halod/index.html
HALOD_READY='document.getElementById("halod").dataset.state == "ready" && document.querySelector("#peers tbody tr") !== null && document.querySelector("#checks tbody tr") !== null'
HALOD_DRIFT='document.querySelector("#checks tr[data-id=\"link.fab0.address\"]")?.dataset.outcome == "fail"'
HALOD_BACK='document.querySelector("#checks tr[data-id=\"link.fab0.address\"]")?.dataset.outcome == "pass"'
NET_URL=$BASE/network/index.html
NET_READY="document.body.innerText.includes(\"$IF_A\") && document.body.innerText.includes(\"$HEAD_ADDR/30\")"
NET_DRIFT="document.body.innerText.includes(\"$IF_A\") && !document.body.innerText.includes(\"$HEAD_ADDR/30\")"
NET_BACK=$NET_READY

# measure NAME URL READY DRIFT BACK: one load and one drift; appends "render drift" (ms) to NAME.times.
measure() {
        local name=$1 url=$2 ready=$3 drift=$4 back=$5 render t0 seen
        render=$(cdp render-time "$url" "$ready" 60)
        cdp watch "$drift"
        t0=$(date +%s%3N)
        ip -n "$NS_A" addr del "$HEAD_ADDR/30" dev "$IF_A"
        seen=$(cdp wait 'window.ckSeen' 60)
        ip -n "$NS_A" addr add "$HEAD_ADDR/30" dev "$IF_A"
        cdp wait "$back" 60 >/dev/null
        echo "$render $((seen - t0))" >>"$TEST_DIR/$name.times"
        log "$name: render $render ms, drift $((seen - t0)) ms"
}

for i in $(seq "$rounds"); do
        measure halod "$HALOD_URL" "$HALOD_READY" "$HALOD_DRIFT" "$HALOD_BACK"
        measure network "$NET_URL" "$NET_READY" "$NET_DRIFT" "$NET_BACK"
done

# summary NAME: the first round (cold cache) and the median of the others.
summary() {
        local first rest
        first=$(head -n 1 "$TEST_DIR/$1.times")
        rest=$(tail -n +2 "$TEST_DIR/$1.times")
        printf '%-8s first round: render %s ms, drift %s ms; rounds 2-%s median (the lower of two middles): render %s ms, drift %s ms\n' "$1" \
                "${first% *}" "${first#* }" "$rounds" \
                "$(cut -d' ' -f1 <<<"$rest" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')" \
                "$(cut -d' ' -f2 <<<"$rest" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
}
echo "rounds: $rounds; chromium $("$CHROMIUM" --version 2>/dev/null | awk '{ print $2 }'), cockpit $(dpkg-query -W -f='${Version}' cockpit-ws 2>/dev/null)"
for n in halod network; do
        echo "$n: $(paste -sd' ' <(awk '{ print $1 "/" $2 }' "$TEST_DIR/$n.times"))  (render/drift ms per round)"
done
summary halod
summary network
