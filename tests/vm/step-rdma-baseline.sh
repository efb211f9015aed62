# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by tests/vm/test-vm-rdma.sh, after the probes: root's haloctl probe recorded the RDMA baseline
# in /var/lib/halod/rdma-baseline (root's, 0644, in a root directory of mode 0755), the first probe as
# the baseline ("new") and the later ones as the latest ("kept", or "retaken" had the node changed); and
# fabric.worker.baseline judges it both in haloctl check (root) and in halod (the user halod reads the
# root's file inside the shipped unit). Under the emulator the verdict on throughput is the emulator's:
# it is asserted to be a verdict (pass or warn), never which. Uses check_json/outcome/field of
# test-vm-rdma.sh and status_of of step-peer-rdma.sh.

# probe_record N: the "record" of probe N's RDMA baseline (its --json document)
probe_record() {
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peers"][0]["rdma"].get("baseline", {}).get("record", "absent"))' "$VM_RUN/vm1/probes/$1.json" 2>/dev/null || echo "unparsable"
}

step_rdma_baseline() {
        local stat doc i record
        log "the RDMA baseline: recorded by root's haloctl probe, judged by haloctl check and halod"
        [ "$(probe_record 1)" = new ] || fail "probe 1's RDMA baseline record is '$(probe_record 1)', not new: $(head -c 600 "$VM_RUN/vm1/probes/1.json")"
        for i in $(seq 2 "$PROBES"); do
                record=$(probe_record "$i")
                case $record in kept | retaken) ;; *) fail "probe $i's RDMA baseline record is '$record', not kept or retaken" ;; esac
        done
        stat=$(gx vm1 60 <<<'stat -c "%U %a" /var/lib/halod /var/lib/halod/rdma-baseline; grep -c "^\[worker \(baseline\|last\)\]$" /var/lib/halod/rdma-baseline') || true
        echo "$stat" >"$TEST_DIR/logs/rdma-baseline-stat.txt"
        [ "$stat" = "$(printf 'root 755\nroot 644\n2')" ] ||
                fail "vm1: /var/lib/halod and its rdma-baseline are not root's 0755/0644 with one [worker baseline] and one [worker last]: $stat"
        doc=$(check_json vm1 fabric.)
        echo "$doc" >"$TEST_DIR/logs/check-baseline.json"
        case $(outcome "$doc" fabric.worker.baseline) in pass | warn) ;; *)
                fail "vm1: haloctl check's fabric.worker.baseline is $(outcome "$doc" fabric.worker.baseline), not a verdict: $(field "$doc" fabric.worker.baseline summary)" ;;
        esac
        case $(field "$doc" fabric.worker.baseline summary) in "RDMA to worker over "*) ;; *)
                fail "vm1: fabric.worker.baseline does not judge the measurement: $(field "$doc" fabric.worker.baseline summary)" ;;
        esac
        log "haloctl check: fabric.worker.baseline $(outcome "$doc" fabric.worker.baseline): $(field "$doc" fabric.worker.baseline summary)"
        # halod reads the file at its next verify (health.interval 5 s).
        for i in $(seq 30); do
                doc=$(status_of vm1)
                case $(outcome "$doc" fabric.worker.baseline) in pass | warn) break ;; esac
                sleep 2
        done
        case $(outcome "$doc" fabric.worker.baseline) in pass | warn) ;; *)
                fail "vm1: halod's fabric.worker.baseline is $(outcome "$doc" fabric.worker.baseline), not a verdict (can the user halod read root's file?): $(field "$doc" fabric.worker.baseline summary)" ;;
        esac
        gx vm1 60 <<<'haloctl status --color never' >"$TEST_DIR/logs/status-baseline.txt" 2>&1 || true
        grep -q '^ RDMA path: ● worker  RDMA to worker over ' "$TEST_DIR/logs/status-baseline.txt" ||
                fail "vm1: haloctl status has no RDMA path row for worker: $(cat "$TEST_DIR/logs/status-baseline.txt")"
        log "halod: fabric.worker.baseline $(outcome "$doc" fabric.worker.baseline); haloctl status shows the RDMA path row"
}
