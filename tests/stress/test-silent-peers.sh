#!/bin/bash
# SPDX-License-Identifier: MIT
# Silent peers: a profile whose other nodes all sit on addresses nobody answers on (the far end of
# the fabric veth holds no address, so not even an ARP reply comes back). halod (enforce mode) must
# still answer Verify(), Apply() and Reload() and stop on SIGTERM within a generous bound, whatever
# the number of silent
# peers: the probes run concurrently with one deadline for the round (lib/peer/peer-probe-round.c),
# and SIGTERM interrupts them (daemon/halod/manager-peers.c). Every silent peer ends up reported as not
# answering. The bound is a progress bound, not a performance figure: the figures (how long Verify()
# and the stop took) go to bench/RESULTS.md through bench/stress.sh.
# Short: 31 silent peers (a 32-node profile). Long: 999 (a 1000-node profile).
. "$SOURCE_DIR/tests/stress/stress-lib.sh"

harness_init st
require_root
require_tools ip busctl dbus-daemon python3 jq
require_build_file daemon/halod

N_SILENT=${ST_SILENT_PEERS:-$(st_pick 31 999)}
# Seconds within which halod must answer and stop at all: generous on a shared 2-core machine (a
# round of probes takes about 1.2 s), far below the 1.15 s per silent peer that a sequential pass
# costs. ST_PROGRESS_BOUND raises it, to measure a daemon that does not keep it.
BOUND=${ST_PROGRESS_BOUND:-10}

start_dbus
dm_install_bus_policy
netns_pair
ip -n "$NS_A" link set "$IF_A" up
ip -n "$NS_A" addr add 10.79.0.1/16 dev "$IF_A"

# The profile: node "head" here, nodes s1..sN on addresses of the same /16 that no host holds.
PROFILE=$TEST_DIR/halod.yaml
{
        echo "cluster: st-silent"
        echo "mode: enforce"
        echo "links:"
        echo "  fab0: {}"
        echo "nodes:"
        echo "  head: { links: { fab0: { address: 10.79.0.1/16, match: { name: $IF_A } } } }"
        for i in $(seq "$N_SILENT"); do
                echo "  s$i: { links: { fab0: { address: 10.79.$(((i + 1) / 256)).$(((i + 1) % 256))/16, match: { name: $IF_B } } } }"
        done
        echo "health: { interval: 60s, peers: true }"
} >"$PROFILE"

# elapsed_ms T0: milliseconds since T0 (date +%s%N).
elapsed_ms() {
        echo $((($(date +%s%N) - $1) / 1000000))
}

# timed_call METHOD FIGURE: call METHOD with a reply timeout of BOUND, record how long the reply
# took as FIGURE, fail when there was none. Prints the reply.
timed_call() {
        local t0 out ms
        t0=$(date +%s%N)
        if ! out=$(busctl --timeout="$BOUND" call "${HALOD_BUS[@]}" "$1" 2>&1); then
                st_record "$2" "none within ${BOUND}s"
                fail "$1() did not answer within ${BOUND}s with $N_SILENT silent peers: $out"
        fi
        ms=$(elapsed_ms "$t0")
        st_record "$2" "$ms"
        echo "$out"
}

# peer_rows OUTCOME: how many peer.*.reachable checks have OUTCOME.
peer_rows() {
        busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                jq --arg o "$1" '[.data[] | select((.[0] | test("^peer\\..*\\.reachable$")) and .[1] == $o)] | length'
}
all_silent_reported() {
        [ "$(peer_rows fail)" = "$N_SILENT" ]
}

log "halod with $N_SILENT silent peers"
st_record silent_peers "$N_SILENT"
st_start_halod "$NS_A" head "$PROFILE" netlink
wait_notify "$NOTIFY_OUT" 'READY=1'

log "Verify() while the first round of probes runs"
reply=$(timed_call Verify silent_verify_ms)
assert_contains "$reply" "s \"" "Verify()'s reply"
log "every silent peer is reported as not answering"
wait_until "$BOUND" all_silent_reported
summary=$(busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
        jq -r '.data[] | select(.[0] == "peer.s1.reachable") | .[2]')
assert_contains "$summary" "did not answer" "peer.s1.reachable"

log "Apply()"
timed_call Apply silent_apply_ms >/dev/null

log "Reload() with the same profile"
timed_call Reload silent_reload_ms >/dev/null

log "SIGTERM while a round of probes runs"
busctl --timeout="$BOUND" call "${HALOD_BUS[@]}" Verify >/dev/null 2>&1 &
VERIFY_PID=$!
track_pid "$VERIFY_PID"
sleep 0.3 # the local checks are done and the round's probes wait for answers
t0=$(date +%s%N)
kill -TERM "$HALOD_PID"
for i in $(seq $((BOUND * 100))); do
        kill -0 "$HALOD_PID" 2>/dev/null || break
        sleep 0.01
done
if kill -0 "$HALOD_PID" 2>/dev/null; then
        st_record silent_stop_ms "none within ${BOUND}s"
        fail "halod did not stop within ${BOUND}s of SIGTERM with $N_SILENT silent peers"
fi
st_record silent_stop_ms "$(elapsed_ms "$t0")"
dm_wait_exit "$HALOD_PID" 1
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
pass
