# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by tests/vm/test-vm-rdma.sh: the fabric health checks in both guests' halod (health.interval
# 5 s) against rxe's real counters (drivers/infiniband/sw/rxe/rxe_hw_counters.c) and the virtio
# netdev's:
#   1. an idle fabric → fabric.rdma0.loss, nic.rdma0.errors and link.rdma0.flaps pass, and
#      fabric.rdma0.congestion says rxe does not count it (no CNP or ECN counter; virtio no pause);
#   2. ib_write_bw from vm1 to vm2 with `tc netem loss` on vm1's fabric link → vm2's
#      fabric.rdma0.loss warns, naming rxe's counter (out_of_seq_request) and its rate; netem removed
#      → it passes again; the journal has the warning once;
#   3. vm2's fabric link taken down and up three times → vm2's link.rdma0.flaps warns (rxe's
#      link_downed, counted on each NETDEV_DOWN), logged once.
# It runs last: the flaps stay in the check's hour. Each wait is bounded generously and asserts a
# verdict, never a duration. Uses outcome/field of test-vm-rdma.sh, status_of of step-peer-rdma.sh and
# stop_loop/journal_count of step-fabric-transport.sh.

# wait_health VM ID WANT TRIES [PATTERN]: polls VM's status every 2 s until check ID is WANT and its
# summary matches the glob PATTERN; the last document in $FH_DOC
wait_health() {
        local _
        for _ in $(seq "$4"); do
                FH_DOC=$(status_of "$1")
                if [ "$(outcome "$FH_DOC" "$2")" = "$3" ]; then
                        # shellcheck disable=SC2254
                        case $(field "$FH_DOC" "$2" summary) in ${5:-*}) return 0 ;; esac
                fi
                sleep 2
        done
        return 1
}
fh() { echo "$(outcome "$FH_DOC" "$1"): $(field "$FH_DOC" "$1" summary)"; }

fh_idle() {
        local vm
        for vm in vm1 vm2; do
                wait_health $vm fabric.rdma0.loss pass 90 || fail "$vm, idle fabric: fabric.rdma0.loss is $(fh fabric.rdma0.loss)"
                [ "$(outcome "$FH_DOC" nic.rdma0.errors)" = pass ] || fail "$vm, idle fabric: nic.rdma0.errors is $(fh nic.rdma0.errors)"
                [ "$(outcome "$FH_DOC" link.rdma0.flaps)" = pass ] || fail "$vm, idle fabric: link.rdma0.flaps is $(fh link.rdma0.flaps)"
                case "$(fh fabric.rdma0.congestion)" in
                "skip: not counted by rxe"*) ;;
                *) fail "$vm: fabric.rdma0.congestion does not say rxe does not count it: $(fh fabric.rdma0.congestion)" ;;
                esac
                echo "$FH_DOC" >"$TEST_DIR/logs/health-idle-$vm.json"
                log "$vm idle: loss $(fh fabric.rdma0.loss); errors $(fh nic.rdma0.errors); flaps $(fh link.rdma0.flaps); congestion $(fh fabric.rdma0.congestion)"
        done
}

fh_loss() {
        local gid server client warned
        warned=$(journal_count vm2 'Check fabric.rdma0.loss warns')
        gid=$(gx vm2 60 <<EOF
$REAL_GID
real_gid $(gid_hex "${VM_ADDR[1]}")
EOF
) || true
        [ -n "$gid" ] || fail "vm2: no RoCE v2 GID for ${VM_ADDR[1]}"
        server=$(gsubmit vm2 <<EOF
rm -f /io/stop-ib_write_bw
for i in \$(seq 60); do
        timeout 900 ib_write_bw -d rxe0 -x $gid -F -u 18 -t 16 --run_infinitely >>/io/ib_write_bw-loss-server.log 2>&1
        [ -e /io/stop-ib_write_bw ] && exit 0
done
EOF
)
        sleep 5
        client=$(gsubmit vm1 <<EOF
rm -f /io/stop-ib_write_bw
for i in \$(seq 60); do
        timeout 900 ib_write_bw -d rxe0 -x $gid -F -u 18 -t 16 --run_infinitely ${VM_ADDR[1]} >>/io/ib_write_bw-loss-client.log 2>&1
        [ -e /io/stop-ib_write_bw ] && exit 0
        sleep 2
done
EOF
)
        # vm1 drops 0.3 % of what it sends: each loss is one out-of-sequence episode at vm2 (rxe_resp.c
        # counts the first packet past the gap, then NAKs), some 3e-3 of vm2's packets: over the
        # check's 1e-5, under its 1e-2.
        gx vm1 60 <<<"tc qdisc add dev $VM_NIC1 root netem loss 0.3%" >/dev/null || fail "vm1: tc netem failed"
        log "ib_write_bw vm1 → vm2 with netem loss 0.3% on vm1's $VM_NIC1"
        wait_health vm2 fabric.rdma0.loss warn 150 "packets lost on rdma0 *out of sequence *(out_of_seq_request)*" ||
                fail "vm1 drops 0.3% of its packets, yet vm2's fabric.rdma0.loss is $(fh fabric.rdma0.loss); ib_write_bw: $(tail -n 3 "$VM_RUN/vm1/ib_write_bw-loss-client.log" 2>/dev/null)"
        echo "$FH_DOC" >"$TEST_DIR/logs/health-loss.json"
        case $(field "$FH_DOC" fabric.rdma0.loss summary) in
        *"out of sequence "[0-9]*"/s (out_of_seq_request)"*) ;;
        *) fail "vm2's fabric.rdma0.loss does not give the counter's rate: $(fh fabric.rdma0.loss)" ;;
        esac
        log "netem loss: vm2 $(fh fabric.rdma0.loss)"
        gx vm1 60 <<<"tc qdisc del dev $VM_NIC1 root" >/dev/null || fail "vm1: removing netem failed"
        wait_health vm2 fabric.rdma0.loss pass 150 ||
                fail "netem removed, vm2's fabric.rdma0.loss is $(fh fabric.rdma0.loss)"
        log "netem removed: vm2 $(fh fabric.rdma0.loss)"
        stop_loop vm1 ib_write_bw
        stop_loop vm2 ib_write_bw
        gwait vm1 "$client" 120 >/dev/null || true
        gwait vm2 "$server" 120 >/dev/null || true
        cp "$VM_RUN/vm1/ib_write_bw-loss-client.log" "$VM_RUN/vm2/ib_write_bw-loss-server.log" "$TEST_DIR/logs/" 2>/dev/null || true
        [ "$(journal_count vm2 'Check fabric.rdma0.loss warns')" = $((warned + 1)) ] ||
                fail "the journal logged fabric.rdma0.loss's warning $(($(journal_count vm2 'Check fabric.rdma0.loss warns') - warned)) times, not once"
}

fh_flaps() {
        local warned i
        warned=$(journal_count vm2 'Check link.rdma0.flaps warns')
        for i in 1 2 3; do
                gx vm2 120 <<EOF >>"$TEST_DIR/logs/flaps.log" 2>&1 || fail "vm2: flap $i of $VM_NIC2 failed"
ip link set $VM_NIC2 down
for i in \$(seq 600); do read -r s </sys/class/infiniband/rxe0/ports/1/state; case \$s in *ACTIVE*) sleep 0.1;; *) break;; esac; done
ip link set $VM_NIC2 up
for i in \$(seq 600); do read -r s </sys/class/infiniband/rxe0/ports/1/state; case \$s in *ACTIVE*) break;; *) sleep 0.1;; esac; done
cat /sys/class/infiniband/rxe0/ports/1/hw_counters/link_downed /sys/class/net/$VM_NIC2/carrier_down_count
EOF
        done
        wait_health vm2 link.rdma0.flaps warn 90 "rdma0 * went down * times in the last hour*" ||
                fail "vm2's link went down three times, yet link.rdma0.flaps is $(fh link.rdma0.flaps); counters: $(tr '\n' ' ' <"$TEST_DIR/logs/flaps.log")"
        echo "$FH_DOC" >"$TEST_DIR/logs/health-flaps.json"
        log "three flaps: vm2 $(fh link.rdma0.flaps)"
        # a few verdicts later it still warns, and the journal has the warning once
        sleep 12
        wait_health vm2 link.rdma0.flaps warn 30 || fail "the flaps are in the last hour, yet link.rdma0.flaps is $(fh link.rdma0.flaps)"
        [ "$(journal_count vm2 'Check link.rdma0.flaps warns')" = $((warned + 1)) ] ||
                fail "the journal logged link.rdma0.flaps's warning $(($(journal_count vm2 'Check link.rdma0.flaps warns') - warned)) times, not once"
}

step_fabric_health() {
        log "fabric health checks in both guests (rxe's counters, the virtio netdev's)"
        fh_idle
        fh_loss
        fh_flaps
}
