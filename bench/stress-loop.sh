#!/bin/bash
# SPDX-License-Identifier: MIT
# The event loop under load (bench/stress.sh --loop LABEL [RUNS]): how fast halod answers
# Get(Health) during storms of 30,000 link events, and how long Verify(), Apply(), Reload() and a stop take
# with 31 and 999 silent peers. Runs the stress tests test-storm.sh (short level, RUNS times, sampled
# every 2 ms) and test-silent-peers.sh (short and long, progress bound raised to 150 s so that a
# daemon which does not keep it is measured rather than failed) against the halod of BUILD_DIR,
# then adds or replaces the row LABEL of the "event loop" section of bench/RESULTS.md. Build
# another commit into its own directory to compare it with this one.
# Usage (root): bench/stress-loop.sh BUILD_DIR LABEL RUNS
set -euo pipefail
export LC_ALL=C.UTF-8
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=$(realpath -m "$1")
LABEL=$2
RUNS=$3
RESULTS_MD=$SOURCE_DIR/bench/RESULTS.md
OUT=$BUILD_DIR/loop-results
[ "$(id -u)" -eq 0 ] || { echo "bench/stress.sh --loop must run as root (network namespaces)." >&2; exit 1; }
[ -x "$BUILD_DIR/daemon/halod" ] && [ -x "$BUILD_DIR/tests/st-bus" ] ||
        { echo "No halod and st-bus in $BUILD_DIR: build it first (meson setup, ninja)." >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

# run NAME SCRIPT VAR=VALUE...: one stress test, its figures in $OUT/NAME/, its log in $OUT/NAME.log.
run() {
        local name=$1 script=$2
        shift 2
        env "$@" BUILD_DIR="$BUILD_DIR" SOURCE_DIR="$SOURCE_DIR" ST_RESULTS_DIR="$OUT/$name" \
                bash "$SOURCE_DIR/tests/stress/$script" >"$OUT/$name.log" 2>&1 || echo "($name failed: see $OUT/$name.log)" >&2
}
fig() { # NAME TEST KEY
        local f=$OUT/$1/$2.txt
        [ -f "$f" ] && sed -n "s/^$3=//p" "$f" | tail -n 1
}

for i in $(seq "$RUNS"); do
        echo "==> storm $i/$RUNS"
        run "storm-$i" test-storm.sh ST_LEVEL=short ST_PROBE_INTERVAL_MS=2
done
echo "==> 31 silent peers"
run silent-31 test-silent-peers.sh ST_LEVEL=short ST_PROGRESS_BOUND=150
echo "==> 999 silent peers"
run silent-999 test-silent-peers.sh ST_LEVEL=long ST_PROGRESS_BOUND=150

# The storms: each run's p50, p99 and max of Get(Health); the row gives the median run's p50 and p99,
# the worst p99, and the slowest call of all.
for i in $(seq "$RUNS"); do
        echo "$(fig "storm-$i" test-storm get_property_p50_us) $(fig "storm-$i" test-storm get_property_p99_us) $(fig "storm-$i" test-storm get_property_max_us) $(fig "storm-$i" test-storm get_property_samples)"
done | awk 'NF == 4' >"$OUT/storms.txt"
storms=$(wc -l <"$OUT/storms.txt")
ms() { awk -v u="$1" 'BEGIN { if (u == "") print "–"; else printf "%.2f", u / 1000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
p50=$(awk '{ print $1 }' "$OUT/storms.txt" | median)
p99=$(awk '{ print $2 }' "$OUT/storms.txt" | median)
p99_worst=$(awk '{ print $2 }' "$OUT/storms.txt" | sort -n | tail -n 1)
max=$(awk '{ print $3 }' "$OUT/storms.txt" | sort -n | tail -n 1)
samples=$(awk '{ s += $4 } END { print s + 0 }' "$OUT/storms.txt")
secs() { # MS or "none within ..."
        case $1 in
        "") echo "–" ;;
        none*) echo "${1#none }" | sed 's/^/no reply /; s/s$/ s/' ;;
        *) awk -v m="$1" 'BEGIN { printf "%.2f s", m / 1000 }' ;;
        esac
}
row="| $LABEL | $storms × 30,000 events, $samples calls | $(ms "$p50") | $(ms "$p99") (worst run $(ms "$p99_worst")) | $(ms "$max") |"
for n in 31 999; do
        row+=" $(secs "$(fig silent-$n test-silent-peers silent_verify_ms)") / $(secs "$(fig silent-$n test-silent-peers silent_apply_ms)")"
        row+=" / $(secs "$(fig silent-$n test-silent-peers silent_reload_ms)") / $(secs "$(fig silent-$n test-silent-peers silent_stop_ms)") |"
done
echo "$row"

begin='<!-- -- event loop (bench/stress.sh --loop) -- -->'
end='<!-- -- end event loop -- -->'
if ! grep -qxF "$begin" "$RESULTS_MD"; then
        cat >>"$RESULTS_MD" <<EOT

$begin
## the event loop under load: Get(Health) during event storms, silent peers

Written by \`bench/stress.sh --loop LABEL\` (root; \`BUILD_DIR=DIR bench/stress.sh --loop LABEL\` measures
the halod built in DIR, so that one commit can be compared with another on the same machine), one
row per LABEL. Get(Health) is called every 2 ms from one sd-bus connection during each storm of
tests/stress/test-storm.sh (100 veths down, MTU, up, 100 rounds: 30,000 link changes beside the
fabric link, halod in enforce mode); p50 and p99 are the medians of the runs' own, max the slowest
call of all runs. Silent peers: tests/stress/test-silent-peers.sh, a profile whose other nodes hold
addresses nobody answers on, in enforce mode; Verify() sent while the first round of probes runs,
then Apply(), Reload(), and SIGTERM while a round runs, each timed from the call to the reply (or
the exit). "–": not reached (the test stopped at the call before, which got no reply).

| build | storms | Get(Health) p50 ms | p99 ms | max ms | 31 silent peers: Verify / Apply / Reload / stop | 999 silent peers: Verify / Apply / Reload / stop |
| --- | --- | --- | --- | --- | --- | --- |
$end
EOT
fi
# The row replaces the one with the same label, or goes at the end of the table (the notes below it
# stay where they are).
awk -v begin="$begin" -v end="$end" -v label="| $LABEL |" -v row="$row" '
        $0 == begin { inside = 1 }
        inside && index($0, label) == 1 { if (!done) print row; done = 1; next }
        inside && intable && substr($0, 1, 1) != "|" { if (!done) print row; done = 1; intable = 0 }
        inside && substr($0, 1, 1) == "|" { intable = 1 }
        inside && $0 == end { if (!done) print row; done = 1; inside = 0 }
        { print }' "$RESULTS_MD" >"$RESULTS_MD.new"
mv "$RESULTS_MD.new" "$RESULTS_MD"
echo "==> bench/RESULTS.md: row '$LABEL' of the event loop section written; figures in $OUT"
