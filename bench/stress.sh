#!/bin/bash
# SPDX-License-Identifier: MIT
# Endurance figures in one command: runs the meson suite 'long' (tests/stress/: soak, event storm,
# neighbours failing, D-Bus load, hostile input, silent peers, and the libFuzzer campaign, which also merges new
# coverage into tests/fuzz/corpus/), collects the figures each test records, and rewrites the
# "endurance" section of bench/RESULTS.md with them.
#
# Usage (root): bench/stress.sh [--keep-fuzz | --table-only]
#               bench/stress.sh --loop LABEL [RUNS]
#   BUILD_DIR             a plain build (default: build-stress-bench, set up if missing); a sanitizer
#                         build changes the memory figures
#   ST_FUZZ_MINUTES_MAIN  minutes for fuzz-profile and fuzz-peer-wire (default 10)
#   ST_FUZZ_MINUTES_OTHER minutes for every other fuzz target (default 2)
#   --keep-fuzz           run the long suite but the fuzzing campaign, whose last figures stay
#   --table-only          only rewrite the table from the figures of the last run
#   --loop LABEL [RUNS]   the event loop under load, for the halod of BUILD_DIR (which may be a build
#                         of another commit, to compare): Get(Health) during RUNS (default 10) storms
#                         of 30,000 link events (tests/stress/test-storm.sh, short, sampled every 2
#                         ms), and Verify(), Reload() and SIGTERM with 31 and 999 silent peers
#                         (tests/stress/test-silent-peers.sh, bound raised to 150 s); adds or replaces
#                         the row LABEL in the "event loop" section of bench/RESULTS.md
# A failing test still gets its figures into the table (the suite line says what failed); the exit
# status is then 1.
# The whole run takes about 35 minutes with the default fuzzing times (28 of them fuzzing).
set -euo pipefail
export LC_ALL=C.UTF-8
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=$(realpath -m "${BUILD_DIR:-$SOURCE_DIR/build-stress-bench}")
export ST_RESULTS_DIR=$BUILD_DIR/stress-results
RESULTS_MD=$SOURCE_DIR/bench/RESULTS.md

mode=${1:-all}
case $mode in
all | --keep-fuzz | --table-only) ;;
--loop)
        [ -n "${2:-}" ] || { echo "--loop needs a LABEL (the commit measured, say)." >&2; exit 64; }
        exec bash "$SOURCE_DIR/bench/stress-loop.sh" "$BUILD_DIR" "$2" "${3:-10}"
        ;;
*) echo "Unknown option '$mode'; see the comment at the top of $0." >&2; exit 64 ;;
esac
status=0
if [ "$mode" != --table-only ]; then
        [ "$(id -u)" -eq 0 ] || { echo "bench/stress.sh must run as root (network namespaces)." >&2; exit 1; }
        if [ ! -d "$BUILD_DIR" ]; then
                meson setup "$BUILD_DIR" "$SOURCE_DIR" -Dwerror=true >/dev/null
        fi
        ninja -C "$BUILD_DIR" >/dev/null
        tests=()
        if [ "$mode" = --keep-fuzz ]; then
                [ -f "$ST_RESULTS_DIR/fuzz.tsv" ] && cp "$ST_RESULTS_DIR/fuzz.tsv" "$BUILD_DIR/fuzz.tsv.kept"
                mapfile -t tests < <(meson test -C "$BUILD_DIR" --list --suite long 2>/dev/null |
                        sed -n 's|^halod:long / ||p' | grep -v 'fuzz campaign')
        fi
        rm -rf "$ST_RESULTS_DIR"
        mkdir -p "$ST_RESULTS_DIR"
        [ -f "$BUILD_DIR/fuzz.tsv.kept" ] && mv "$BUILD_DIR/fuzz.tsv.kept" "$ST_RESULTS_DIR/fuzz.tsv"
        date -u +%Y-%m-%d >"$ST_RESULTS_DIR/date"
        echo "$mode" >"$ST_RESULTS_DIR/mode"
        ST_FUZZ_MERGE=1 meson test -C "$BUILD_DIR" --suite long --print-errorlogs --num-processes 1 "${tests[@]}" \
                >"$ST_RESULTS_DIR/meson-test.log" 2>&1 || status=1
        grep -E '^ *[0-9]+/[0-9]+ ' "$ST_RESULTS_DIR/meson-test.log" || true
fi

# fig TEST KEY: a figure recorded by tests/stress/TEST.sh (st_record), or "–" when it did not run.
fig() {
        local f=$ST_RESULTS_DIR/$1.txt v=
        [ -f "$f" ] && v=$(sed -n "s/^$2=//p" "$f" | tail -n 1)
        echo "${v:-–}"
}
ms() { # MICROSECONDS
        [ "$1" = – ] && { echo –; return; }
        awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'
}
suite_line=$(grep -E '^(Ok|Fail|Timeout):' "$ST_RESULTS_DIR/meson-test.log" 2>/dev/null | tr -s ' ' |
        sed 's/ *$//' | paste -sd ',' | sed 's/,/, /g' || true)

table() {
        cat <<EOF
<!-- -- endurance (bench/stress.sh) -- -->
## endurance: soak, event storms, neighbours failing, D-Bus load, hostile input, fuzzing

Written by \`bench/stress.sh\` (root; it runs \`meson test --suite long\` in a plain
\`debugoptimized\` build and rewrites this section) on $(cat "$ST_RESULTS_DIR/date" 2>/dev/null || echo "an unknown date"), 2 cores.
Long suite: ${suite_line:-not recorded}$(grep -qx -- --keep-fuzz "$ST_RESULTS_DIR/mode" 2>/dev/null && echo " (the fuzzing campaign's figures are those of the run before)"). The short versions of the same tests run in
every \`meson test\` (suite \`stress\`).

| what | figure | bound |
| --- | --- | --- |
| soak: Verify() cycles, reloads (valid and broken, alternating) | $(fig test-soak cycles), $(fig test-soak reloads) in $(fig test-soak soak_seconds) s | |
| soak: RSS after the warm-up (100 verifies, 12 reloads) → at the end | $(fig test-soak rss_start_kib) → $(fig test-soak rss_end_kib) KiB | ±64 KiB |
| soak: open fds after the warm-up → at the end | $(fig test-soak fds_start) → $(fig test-soak fds_end) | ±0 |
| soak under a memory checker | $(fig test-soak memcheck) | no leak |
| storm: link changes in halod's namespace (100 veths down, MTU, up) | $(fig test-storm storm_events) in $(fig test-storm storm_seconds) s ($(fig test-storm storm_rounds) rounds) | |
| storm: event-driven re-checks; halod's CPU time | $(fig test-storm storm_rechecks); $(fig test-storm storm_halod_cpu_ms) ms | ≤ 10 re-checks/s |
| storm: Get(Health) sampled every 20 ms: samples; p50 / p99 / max | $(fig test-storm get_property_samples); $(ms "$(fig test-storm get_property_p50_us)") / $(ms "$(fig test-storm get_property_p99_us)") / $(ms "$(fig test-storm get_property_max_us)") | each answered within 5 s |
| storm: \`busctl get-property\` every 250 ms (process start included): samples, slowest | $(fig test-storm busctl_samples), $(fig test-storm busctl_max_ms) ms | recorded |
| storm: receive queue overflow (SIGSTOP during a burst) resynchronised | $(fig test-storm enobufs_resync) | logged, drift found |
| silent peers ($(fig test-silent-peers silent_peers)): Verify() / Apply() / Reload() replied after; stopped after SIGTERM | $(fig test-silent-peers silent_verify_ms) / $(fig test-silent-peers silent_apply_ms) / $(fig test-silent-peers silent_reload_ms) ms; $(fig test-silent-peers silent_stop_ms) ms | each within 10 s |
| neighbours (netlink backend): fault cases survived | $(fig test-neighbours fault_cases) | all |
| neighbours (NetworkManager backend): NetworkManager killed during an apply, restarted | $(fig test-neighbours-nm nm_restarts_survived) | all |
| D-Bus load: clients × seconds of GetAll, with drift ($(fig test-dbus-load dbus_drifts) drifts) | $(fig test-dbus-load dbus_clients) × $(fig test-dbus-load dbus_seconds) s: $(fig test-dbus-load dbus_calls) calls, $(fig test-dbus-load dbus_errors) errors | 0 errors |
| D-Bus load: reply time p50 / p99 / max | $(ms "$(fig test-dbus-load dbus_p50_us)") / $(ms "$(fig test-dbus-load dbus_p99_us)") / $(ms "$(fig test-dbus-load dbus_max_us)") | recorded |
| D-Bus load: RSS before → after | $(fig test-dbus-load dbus_rss_start_kib) → $(fig test-dbus-load dbus_rss_end_kib) KiB | ±64 KiB |
| hostile input: cases refused (loose profiles, over-long names, peer datagrams) | $(fig test-hostile hostile_cases_refused) | all |
| hostile input: peer channel flood, bytes in / out | $(fig test-hostile peer_amplification | sed 's/bytes_in=//; s/ bytes_out=/ \/ /') | out ≤ in |

Fuzzing (clang libFuzzer, ASan + UBSan, \`tests/stress/fuzz-campaign.sh\`; new coverage merged into
\`tests/fuzz/corpus/\`, edges only):

| target | seconds | executions | per second | corpus before → after | findings |
| --- | --- | --- | --- | --- | --- |
EOF
        if [ -f "$ST_RESULTS_DIR/fuzz.tsv" ]; then
                tail -n +2 "$ST_RESULTS_DIR/fuzz.tsv" |
                        awk -F '\t' '{ printf "| %s | %s | %s | %s | %s → %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
        else
                echo "| (not run) | | | | | |"
        fi
        echo "<!-- -- end endurance -- -->"
}

new=$ST_RESULTS_DIR/endurance.md
table >"$new"
if grep -q '^<!-- -- endurance (bench/stress.sh) -- -->$' "$RESULTS_MD"; then
        awk -v f="$new" '
                /^<!-- -- endurance \(bench\/stress.sh\) -- -->$/ { while ((getline l < f) > 0) print l; skip = 1; next }
                /^<!-- -- end endurance -- -->$/ { skip = 0; next }
                !skip { print }' "$RESULTS_MD" >"$RESULTS_MD.new"
        mv "$RESULTS_MD.new" "$RESULTS_MD"
else
        { echo; cat "$new"; } >>"$RESULTS_MD"
fi
echo "==> bench/RESULTS.md: endurance section rewritten from $ST_RESULTS_DIR"
[ "$status" -eq 0 ] || echo "Some long tests failed: see $ST_RESULTS_DIR/meson-test.log" >&2
exit "$status"
