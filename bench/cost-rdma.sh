#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark (issue 27 item 5): what peer.<node>.rdma costs a peer round, and the transport watch on a
# node with an RDMA device, in the vm suite's two QEMU guests (tests/vm/README.md: soft-RoCE over
# virtio-net, halod from its Debian package under its unit, tests/vm/halod-vm.yaml: health.interval
# 5 s, peers: true). In vm1 (node head, one peer: worker), in one run, the profile with its rdma:
# section (the round runs peer.worker.rdma) and the same profile without it (the round skips it; the
# verify loses its rdma.* checks) take turns, ROUNDS times each:
#   round    halod's CPU (utime + stime of all its threads, /proc/PID/stat) and the fabric NIC's
#            packets (tx + rx, /sys/class/net) over WINDOW intervals, per interval (one verify and
#            one peer round each)
#   verify   halod's CPU per Verify() called VERIFIES times over D-Bus (a verify and the peer round it causes)
#   watch    bench/transport-cost-tool in vm1 (root, the profile with rdma:): the transport watch's
#            CPU per verify with rxe0's counters and the RDMA netlink QP dump, on an idle fabric, then
#            while ib_write_bw holds QPs between the guests; and its sock_diag dump alone.
# Under QEMU's emulator (no KVM) every CPU figure is the emulator's: only ratios within this run mean
# anything; the script prints the raw figures and the ratios.
# The interval's difference is an upper bound of peer.worker.rdma: it holds the periodic verify's
# rdma.* checks too (a Verify() over D-Bus costs more than the periodic one, so the two differences
# do not subtract).
# Usage (root): BUILD_DIR=build [HALOD_VM_DEB=halod.deb] [HALOD_VM_CACHE=dir] [ROUNDS=2] [WINDOW=6]
#               [VERIFIES=20] bench/cost-rdma.sh      (ROUNDS=0: the watch alone)
# Give it a HALOD_VM_CACHE of its own while others run guests: building an image removes the other
# images (and half-built ones) in its cache.
set -euo pipefail
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
harness_init vmc
. "$SOURCE_DIR/tests/e2e/build.sh"
. "$SOURCE_DIR/tests/vm/lib.sh"

ROUNDS=${ROUNDS:-2}
WINDOW=${WINDOW:-6}
VERIFIES=${VERIFIES:-20}
require_build_file bench/transport-cost-tool
vm_prepare
vm_package
install -m 0644 "$SOURCE_DIR/tests/vm/halod-vm.yaml" "$VM_SHARE/halod.yaml"
# The same profile without its rdma: section (the lines from "rdma:" to the next top-level key).
awk '/^rdma:/ { skip = 1; next } /^[a-z]/ { skip = 0 } !skip' "$SOURCE_DIR/tests/vm/halod-vm.yaml" >"$VM_SHARE/halod-nordma.yaml"
install -m 0755 "$BUILD_DIR/bench/transport-cost-tool" "$VM_SHARE/"
vm_boot
vm_setup_nodes

# use PROFILE: vm1's halod restarted on it, past its first two intervals
use() {
        gx vm1 300 >/dev/null <<EOF || fail "vm1: restarting halod on $1 failed"
install -m 0644 /host/$1 /etc/halod/halod.yaml
systemctl restart halod.service
sleep 12
EOF
}

# measure: "CPU_TICKS PACKETS" over WINDOW intervals of vm1's halod, then "TICKS" over VERIFIES Verify()
measure() {
        gx vm1 $((WINDOW * 5 * 4 + 300)) <<EOF
pid=\$(systemctl show -p MainPID --value halod.service)
nic=\$(cat /io/nic)
ticks() { awk '{ print \$14 + \$15 }' /proc/\$pid/stat; }
pkts() { echo \$((\$(cat /sys/class/net/\$nic/statistics/tx_packets) + \$(cat /sys/class/net/\$nic/statistics/rx_packets))); }
t0=\$(ticks); p0=\$(pkts)
sleep $((WINDOW * 5))
t1=\$(ticks); p1=\$(pkts)
for i in \$(seq $VERIFIES); do busctl call io.halod1 /io/halod1 io.halod1.Node Verify >/dev/null; done
t2=\$(ticks)
echo \$((t1 - t0)) \$((p1 - p0)) \$((t2 - t1)) \$(awk '/^VmRSS/ { print \$2 }' /proc/\$pid/status)
EOF
}

declare -A TICKS PKTS VTICKS RSS
for cfg in halod.yaml halod-nordma.yaml; do TICKS[$cfg]=0 PKTS[$cfg]=0 VTICKS[$cfg]=0; done
for r in $(seq "$ROUNDS"); do
        for cfg in halod.yaml halod-nordma.yaml; do
                use "$cfg"
                read -r t p v rss < <(measure) || fail "vm1: measuring on $cfg failed"
                log "round $r, $cfg: $t ticks and $p packets over $WINDOW intervals; $v ticks over $VERIFIES Verify(); VmRSS $rss KiB"
                TICKS[$cfg]=$((TICKS[$cfg] + t))
                PKTS[$cfg]=$((PKTS[$cfg] + p))
                VTICKS[$cfg]=$((VTICKS[$cfg] + v))
                RSS[$cfg]=$rss
        done
done
# peer.worker.rdma passed in that run (the profile with rdma: is the last used first in each turn)
use halod.yaml
# (haloctl status exits non-zero unless Health is healthy; rdma.memlock fails under systemd's defaults)
doc=$(gx vm1 120 <<<'sleep 10; haloctl status --json' || true)
rdma=$(python3 -c 'import json,sys; c=[c for c in json.loads(sys.argv[1])["checks"] if c["id"]=="peer.worker.rdma"]; print(c[0]["outcome"], c[0]["summary"]) if c else print("absent")' "$doc" || echo "unreadable: $doc")
log "peer.worker.rdma: $rdma"

# The watch on an idle fabric (halod's own QPs come and go), then with QPs held: ib_write_bw between
# the guests for the tool's run (rxe's work for its traffic runs in softirq, charged to whichever
# thread runs: the second figures include some of it)
idle=$(gx vm1 600 <<<'/host/transport-cost-tool /etc/halod/halod.yaml head 50')
log "watch in vm1, idle fabric: $idle"
gid2=$(gx vm2 60 <<<"$REAL_GID; real_gid $(gid_hex "${VM_ADDR[1]}")")
gid1=$(gx vm1 60 <<<"$REAL_GID; real_gid $(gid_hex "${VM_ADDR[0]}")")
id=$(gsubmit vm2 <<<"timeout 300 ib_write_bw -d rxe0 -x $gid2 -F -s 65536 -D 120")
sleep 3
id1=$(gsubmit vm1 <<<"ib_write_bw -d rxe0 -x $gid1 -F -s 65536 -D 120 ${VM_ADDR[1]}")
sleep 10
watch=$(gx vm1 600 <<<'rdma res show qp | grep -c ib_write_bw; /host/transport-cost-tool /etc/halod/halod.yaml head 50')
gwait vm1 "$id1" 300 >/dev/null || true
gwait vm2 "$id" 300 >/dev/null || true
log "watch in vm1 (QPs of ib_write_bw, then the tool): $(echo $watch)"

hz=100
[ "$ROUNDS" -gt 0 ] || { echo "watch in vm1: idle: $idle; with ib_write_bw: $(echo $watch)"; pass; exit 0; }
echo
echo "accelerator: $VM_ACCEL_NAME, guest kernel $VM_KVER, one peer, interval 5 s, $ROUNDS × $WINDOW intervals and $ROUNDS × $VERIFIES Verify() per profile"
echo
echo "| profile | CPU per interval (ms) | packets per interval (tx + rx) | CPU per Verify() (ms) | VmRSS (KiB) |"
echo "|---|---|---|---|---|"
for cfg in halod.yaml halod-nordma.yaml; do
        awk -v c="$cfg" -v t="${TICKS[$cfg]}" -v p="${PKTS[$cfg]}" -v v="${VTICKS[$cfg]}" -v n=$((ROUNDS * WINDOW)) -v nv=$((ROUNDS * VERIFIES)) -v hz=$hz -v rss="${RSS[$cfg]}" \
                'BEGIN { printf "| %s | %.1f | %.1f | %.2f | %s |\n", c, t / hz * 1000 / n, p / n, v / hz * 1000 / nv, rss }'
done
awk -v ta="${TICKS[halod.yaml]}" -v tb="${TICKS[halod-nordma.yaml]}" -v va="${VTICKS[halod.yaml]}" -v vb="${VTICKS[halod-nordma.yaml]}" \
        -v pa="${PKTS[halod.yaml]}" -v pb="${PKTS[halod-nordma.yaml]}" -v n=$((ROUNDS * WINDOW)) -v nv=$((ROUNDS * VERIFIES)) -v hz=$hz \
        'BEGIN { i = (ta - tb) / hz * 1000 / n; v = (va - vb) / hz * 1000 / nv;
                 printf "\npeer.worker.rdma per round (one peer): %.1f ms CPU (interval %.1f - verify %.1f), %.1f packets; without it a round and verify cost %.1f ms\n", i - v, i, v, (pa - pb) / n, tb / hz * 1000 / n }'
echo "watch in vm1: idle: $idle; with ib_write_bw: $(echo $watch)"
pass
