# SPDX-License-Identifier: MIT
# Helpers for the endurance and fault tests (tests/stress/test-*.sh), sourced after the integration
# harness (tests/integration/lib.sh and daemon-lib.sh): the short/long level, halod's memory and fd
# counts, a results file for bench/stress.sh, and halod with either backend.
#
# ST_LEVEL=short (the 'stress' suite, minutes) or long (the 'long' suite, the full figures).
# ST_RESULTS_DIR, when set (bench/stress.sh sets it), receives one "key=value" file per test.

. "$SOURCE_DIR/tests/integration/lib.sh"
. "$SOURCE_DIR/tests/integration/daemon-lib.sh"

ST_LEVEL=${ST_LEVEL:-short}
case $ST_LEVEL in
short | long) ;;
*) echo "ST_LEVEL must be short or long, not '$ST_LEVEL'" >&2; exit 1 ;;
esac
ST_BUS=$BUILD_DIR/tests/st-bus

# st_pick SHORT LONG: print the value for the current level.
st_pick() {
        if [ "$ST_LEVEL" = long ]; then echo "$2"; else echo "$1"; fi
}

# st_record KEY VALUE: log a figure and keep it for bench/stress.sh's table.
st_record() {
        log "figure: $1=$2"
        if [ -n "${ST_RESULTS_DIR:-}" ]; then
                mkdir -p "$ST_RESULTS_DIR"
                echo "$1=$2" >>"$ST_RESULTS_DIR/$(basename "$0" .sh).txt"
        fi
}

# st_rss PID: the resident set in KiB (VmRSS).
st_rss() {
        awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# st_fds PID: the number of open file descriptors halod keeps: the fewest of ten looks 0.1 s apart. A
# leaked descriptor is there at every look; one held for a job in flight (the socket of a re-check or
# of a probe that the last call set off) is not, and counted once it made a soak fail (15 → 18 fds).
st_fds() {
        local i n fewest=
        for i in $(seq 10); do
                n=$(ls "/proc/$1/fd" | wc -l)
                [ -z "$fewest" ] || [ "$n" -lt "$fewest" ] && fewest=$n
                sleep 0.1
        done
        echo "$fewest"
}

# st_cpu_ms PID: the CPU time (user + system) the process has used, in milliseconds.
st_cpu_ms() {
        awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"
}

# st_kv KEY FILE: the value of "KEY=value" in FILE (st-bus's output).
st_kv() {
        sed -n "s/^$1=//p" "$2" | tail -n 1
}

# st_halod_alive: fail unless halod still runs.
st_halod_alive() {
        kill -0 "$HALOD_PID" 2>/dev/null || fail "halod (pid $HALOD_PID) died; its log: $(tail -n 20 "$HALOD_LOG")"
}

# st_memcheck_wrapper: set ST_WRAPPER to valgrind's command line on a plain build, or to nothing on
# a sanitizer build (AddressSanitizer/LeakSanitizer watch already and fail the exit status on a leak).
st_memcheck_wrapper() {
        if grep -q __asan_init "$BUILD_DIR/daemon/halod"; then
                log "sanitizer build: LeakSanitizer instead of valgrind"
                ST_WRAPPER=()
        else
                require_tools valgrind
                ST_WRAPPER=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible
                        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 --track-fds=no)
        fi
}

# st_assert_memcheck_clean: after halod exited (EXIT_RC set by dm_wait_exit), fail on a non-zero
# status or any valgrind/sanitizer report in its log.
st_assert_memcheck_clean() {
        [ "$EXIT_RC" -eq 0 ] || fail "halod exited $EXIT_RC under ${ST_WRAPPER[0]:-LeakSanitizer}: $(tail -n 40 "$HALOD_LOG")"
        if grep -Eq '==[0-9]+==|ERROR: (Address|Leak)Sanitizer|runtime error' "$HALOD_LOG"; then
                fail "memory checker reported: $(grep -E -A10 '==[0-9]+==|Sanitizer|runtime error' "$HALOD_LOG" | head -n 60)"
        fi
}

# st_write_profile FILE MODE IFACE_A IFACE_B [INTERVAL] [ZONE]: dm_write_profile's two-node profile
# with the given interface names, health.interval (default 60s) and firewall zone (default none).
st_write_profile() {
        local file=$1 mode=$2 ia=$3 ib=$4 interval=${5:-60s} zone=${6:-}
        {
                echo "cluster: st-test"
                echo "mode: $mode"
                echo "links:"
                echo "  fab0:"
                echo "    mtu: 9000"
                [ -z "$zone" ] || echo "    firewall-zone: $zone"
                echo "nodes:"
                echo "  a: { links: { fab0: { address: 10.78.0.1/30, match: { name: $ia } } } }"
                echo "  b: { links: { fab0: { address: 10.78.0.2/30, match: { name: $ib } } } }"
                echo "health: { interval: $interval, peers: false }"
        } >"$file"
}

# st_start_halod NS NODE PROFILE BACKEND [WRAPPER...]: dm_start_halod with a chosen backend. Sets
# HALOD_PID, HALOD_LOG and NOTIFY_OUT (a fresh receiver per start, so that READY=1 is this start's).
ST_STARTS=0
st_start_halod() {
        local ns=$1 node=$2 profile=$3 backend=$4 runtime=()
        shift 4
        # fabric.env never goes to the host's /run/halod, the CDI spec never to /run/cdi (as dm_start_halod).
        [ -n "${RUNTIME_DIRECTORY:-}" ] || runtime=(--runtime-dir "$TEST_DIR/run-$node")
        ST_STARTS=$((ST_STARTS + 1))
        NOTIFY_OUT=$TEST_DIR/notify-$node-$ST_STARTS.out
        HALOD_LOG=$TEST_DIR/logs/halod-$node-$ST_STARTS.log
        start_notify_receiver "$TEST_DIR/notify-$node-$ST_STARTS.sock" "$NOTIFY_OUT"
        ip netns exec "$ns" env NOTIFY_SOCKET="$TEST_DIR/notify-$node-$ST_STARTS.sock" \
                HALOD_LOG_LEVEL=${HALOD_LOG_LEVEL:-info} \
                "$@" "$BUILD_DIR/daemon/halod" --profile "$profile" --node "$node" --backend "$backend" \
                "${runtime[@]}" --cdi-dir "$TEST_DIR/cdi-$node" >"$HALOD_LOG" 2>&1 </dev/null &
        HALOD_PID=$!
        track_pid "$HALOD_PID"
}

# st_check_outcome ID: print the outcome (pass, fail, ...) of check ID from the Checks property.
st_check_outcome() {
        busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
                jq -r --arg id "$1" '.data[] | select(.[0] == $id) | .[1]'
}

# st_check_is ID OUTCOME: succeed when check ID has OUTCOME now.
st_check_is() {
        [ "$(st_check_outcome "$1" 2>/dev/null)" = "$2" ]
}
