#!/bin/bash
# SPDX-License-Identifier: MIT
# A libFuzzer campaign over every fuzz target (tests/fuzz/fuzz-*.c): builds them with clang,
# -Dfuzzing=true and AddressSanitizer + UndefinedBehaviorSanitizer, runs each for a set time from its
# committed corpus, merges the inputs that reach new coverage back into that corpus (-merge=1: only
# those, so it stays small), and records executions and findings per target.
#
# Usage: tests/stress/fuzz-campaign.sh [--minutes-main N] [--minutes-other N] [--build-dir DIR]
#                                      [--results FILE] [--no-merge] [TARGET...]
#   --minutes-main   minutes for fuzz-profile and fuzz-peer-wire (default 10)
#   --minutes-other  minutes for every other target (default 2)
#   --build-dir      the clang fuzzing build (default build-fuzz, created or reconfigured)
#   --results        a tab-separated table: target, seconds, executions, execs/s, corpus before,
#                    corpus after, findings (default BUILD_DIR/fuzz-campaign.tsv)
#   --no-merge       leave the committed corpora untouched (overridden by ST_FUZZ_MERGE=1)
# Environment: ST_FUZZ_MINUTES_MAIN and ST_FUZZ_MINUTES_OTHER override the default minutes;
# ST_RESULTS_DIR (bench/stress.sh) makes the default results file ST_RESULTS_DIR/fuzz.tsv.
#   TARGET...        only these (fuzz-profile ...); default: every tests/fuzz/fuzz-*.c
# A finding (crash, leak, timeout, out-of-memory) is kept in BUILD_DIR/fuzz-artifacts/TARGET/, named
# in the output, and makes the exit status 1: reproduce it with `BUILD_DIR/tests/TARGET FILE`, fix
# the bug, and add FILE to the target's corpus as the regression.
set -euo pipefail
export LC_ALL=C.UTF-8

SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
minutes_main=${ST_FUZZ_MINUTES_MAIN:-10}
minutes_other=${ST_FUZZ_MINUTES_OTHER:-2}
build_dir=$SOURCE_DIR/build-fuzz
results=
merge=1
targets=()

while [ $# -gt 0 ]; do
        case $1 in
        --minutes-main) minutes_main=$2; shift 2 ;;
        --minutes-other) minutes_other=$2; shift 2 ;;
        --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
        --results) results=$(realpath -m "$2"); shift 2 ;;
        --no-merge) merge=; shift ;;
        -h | --help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "Unknown option '$1'; see --help." >&2; exit 64 ;;
        *) targets+=("$1"); shift ;;
        esac
done
[ "${ST_FUZZ_MERGE:-}" = 1 ] && merge=1
if [ -z "$results" ] && [ -n "${ST_RESULTS_DIR:-}" ]; then
        mkdir -p "$ST_RESULTS_DIR"
        results=$ST_RESULTS_DIR/fuzz.tsv
fi
results=${results:-$build_dir/fuzz-campaign.tsv}

command -v clang >/dev/null || { echo "clang not found: install it with tools/deps test (libFuzzer comes with clang)." >&2; exit 1; }

if [ ${#targets[@]} -eq 0 ]; then
        for f in "$SOURCE_DIR"/tests/fuzz/fuzz-*.c; do
                t=$(basename "$f" .c)
                [ "$t" = fuzz-main ] || targets+=("$t")
        done
fi

echo "==> building the fuzz targets in $build_dir (clang, libFuzzer, ASan+UBSan)"
if [ -d "$build_dir" ]; then
        meson configure "$build_dir" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
else
        CC=clang meson setup "$build_dir" "$SOURCE_DIR" -Dfuzzing=true -Db_sanitize=address,undefined \
                -Db_lundef=false -Dwerror=true >/dev/null
fi
mkdir -p "$build_dir/fuzz-logs"
if ! ninja -C "$build_dir" "${targets[@]/#/tests/}" >"$build_dir/fuzz-logs/build.log" 2>&1; then
        tail -n 30 "$build_dir/fuzz-logs/build.log" >&2
        echo "Building the fuzz targets failed (log: $build_dir/fuzz-logs/build.log)." >&2
        exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
printf 'target\tseconds\texecutions\texecs_per_s\tcorpus_before\tcorpus_after\tfindings\n' >"$results"
status=0
for t in "${targets[@]}"; do
        case $t in
        fuzz-profile | fuzz-peer-wire) minutes=$minutes_main ;;
        *) minutes=$minutes_other ;;
        esac
        seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
        exe=$build_dir/tests/$t
        corpus=$SOURCE_DIR/tests/fuzz/corpus/$t
        work=$build_dir/fuzz-work/$t
        artifacts=$build_dir/fuzz-artifacts/$t
        log=$build_dir/fuzz-logs/$t.log
        mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
        rm -rf "$work"
        mkdir -p "$work"
        before=$(find "$corpus" -type f | wc -l)

        echo "==> $t: ${seconds}s from $before corpus inputs"
        # New inputs go to the scratch directory; the committed corpus is only read (merged below).
        rc=0
        "$exe" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
                -max_len=16384 -artifact_prefix="$artifacts/" "$work" "$corpus" >"$log" 2>&1 || rc=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
        execs=${execs:-0}
        took=${took:-$seconds}
        findings=$(find "$artifacts" -type f | wc -l)
        if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
                echo "FINDING in $t (exit $rc): $(find "$artifacts" -type f | tr '\n' ' ')" >&2
                grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 5 >&2 || true
                [ "$findings" -gt 0 ] || findings=1
                status=1
        fi

        if [ -n "$merge" ]; then
                # Only inputs that reach an edge the committed corpus does not are copied in (hit counts
                # are not features here: they would bring in hundreds of near-duplicates).
                "$exe" -merge=1 -use_counters=0 -max_len=16384 "$corpus" "$work" >>"$log" 2>&1 ||
                        echo "warning: merging the new $t inputs failed, see $log" >&2
        fi
        after=$(find "$corpus" -type f | wc -l)
        rate=$(awk -v e="$execs" -v s="$took" 'BEGIN { printf "%d", (s > 0 ? e / s : e) }')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$took" "$execs" "$rate" "$before" "$after" "$findings" >>"$results"
        echo "    $execs executions ($rate/s), corpus $before -> $after, findings: $findings"
done

echo "==> results in $results"
column -t -s $'\t' "$results"
exit "$status"
