#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark: halod's RDMA probe against perftest over the same soft-RoCE link, in one run, the rows
# interleaved per repetition, in the vm suite's two QEMU guests (tests/vm/README.md: the archive's
# stock kernel, rdma_rxe over virtio-net at MTU 9000, halod from its Debian package under its unit):
#   latency     the median round trip of `haloctl probe --json`'s RC ping-pong (64-byte SENDs, up
#               to 1000) against `ib_send_lat`'s t_typical (its median) for 1000 64-byte SENDs,
#               which perftest reports as half the round trip: the ratio is taken against
#               2 × t_typical. Target: halod ≤ 1.2 × ib_send_lat
#   throughput  the probe's RDMA WRITE run (64 KiB writes, 16 in flight, 2 s) against
#               `ib_write_bw -s 65536 -D 2`'s BW average. Target: halod ≥ 0.8 × ib_write_bw
#   RSS         halod's VmRSS in the responder guest after it served a probe, with libibverbs and
#               its rxe provider mapped. Target: ≤ 4 MiB
# Under QEMU's emulator (no kvm_intel/kvm_amd) the figures are the emulator's: only the ratios,
# taken in the same run, mean anything. With KVM the figures do too.
#
# Usage (root): BUILD_DIR=build bench/rdma.sh [REPETITIONS]    (default 3)
set -euo pipefail
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)
export SOURCE_DIR
. "$SOURCE_DIR/tests/integration/lib.sh"
harness_init vmb
. "$SOURCE_DIR/tests/e2e/build.sh"
. "$SOURCE_DIR/tests/vm/lib.sh"

REPS=${1:-3}
vm_prepare
vm_package
install -m 0644 "$SOURCE_DIR/tests/vm/halod-vm.yaml" "$VM_SHARE/halod.yaml"
vm_boot
vm_setup_nodes
gid2=$(gx vm2 60 <<<"$REAL_GID; real_gid $(gid_hex "${VM_ADDR[1]}")")
gid1=$(gx vm1 60 <<<"$REAL_GID; real_gid $(gid_hex "${VM_ADDR[0]}")")
[ -n "$gid1" ] && [ -n "$gid2" ] || fail "no RoCE v2 GID for the fabric addresses (vm1: '$gid1', vm2: '$gid2')"

# pair SERVER_CMD CLIENT_CMD: the server in vm2, then the client in vm1; the client's output
pair() {
        local id out
        id=$(gsubmit vm2 <<<"$1")
        sleep 3
        out=$(gx vm1 300 <<<"$2") || { gwait vm2 "$id" 60 >&2 || true; fail "client failed: $out"; }
        gwait vm2 "$id" 120 >/dev/null || fail "server failed"
        echo "$out"
}

rows=()
for rep in $(seq "$REPS"); do
        lat=$(pair "timeout 200 ib_send_lat -d rxe0 -x $gid2 -F -s 64 -n 1000" \
                "ib_send_lat -d rxe0 -x $gid1 -F -s 64 -n 1000 ${VM_ADDR[1]}" | awk '$1 == 64 { print $5 }')
        bw=$(pair "timeout 200 ib_write_bw -d rxe0 -x $gid2 -F --report_gbits -s 65536 -D 2" \
                "ib_write_bw -d rxe0 -x $gid1 -F --report_gbits -s 65536 -D 2 ${VM_ADDR[1]}" | awk '$1 == 65536 { print $4 }')
        probe=$(gx vm1 300 <<<"haloctl probe --json worker /etc/halod/halod.yaml") || true
        read -r rtt pings gbit < <(python3 -c 'import json,sys; r=json.loads(sys.argv[1])["peers"][0]["rdma"]; print(r["rtt-median-nsec"]/1000, r["pings"], r["bits-per-second"]/1e9)' "$probe") ||
                fail "the probe measured no RDMA: $probe"
        [ -n "$lat" ] && [ -n "$bw" ] || fail "perftest printed no figure (ib_send_lat '$lat', ib_write_bw '$bw')"
        rows+=("$rep $rtt $lat $gbit $bw $pings")
        log "rep $rep: probe RTT median $rtt µs ($pings pings) vs ib_send_lat 2×$lat µs; probe $gbit Gbit/s vs ib_write_bw $bw Gbit/s"
done
rss=$(gx vm2 60 <<'EOF'
pid=$(systemctl show -p MainPID --value halod.service)
grep VmRSS /proc/$pid/status | awk '{ print $2 }'
grep -c -e libibverbs -e librxe /proc/$pid/maps
EOF
)
read -r rss_kib maps <<<"$(echo $rss)"
# What the RSS is made of: anonymous and file-backed, and each mapping's KiB (smaps' Rss summed by
# path), the largest first.
breakdown=$(gx vm2 60 <<'EOF'
pid=$(systemctl show -p MainPID --value halod.service)
grep -E '^(RssAnon|RssFile|Threads)' /proc/$pid/status | tr -s ' \t' ' ' | paste -sd' '
awk '/^[0-9a-f]+-[0-9a-f]+ /{ n = $6 == "" ? "[anon]" : $6 } /^Rss:/{ r[n] += $2 }
        END { for (n in r) if (r[n] > 0) print r[n], n }' /proc/$pid/smaps | sort -rn
EOF
)

echo
echo "accelerator: $VM_ACCEL_NAME, guest kernel $VM_KVER, rxe over virtio-net at MTU 9000"
echo
echo "| rep | probe RTT median (µs) | ib_send_lat t_typical (µs, half a round trip) | ratio (probe / 2 × t_typical) | probe WRITE (Gbit/s) | ib_write_bw average (Gbit/s) | ratio | probe pings |"
echo "|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
        set -- $r
        awk -v rep="$1" -v rtt="$2" -v lat="$3" -v g="$4" -v bw="$5" -v p="$6" \
                'BEGIN { printf "| %s | %.1f | %.2f | %.2f | %.3f | %.3f | %.2f | %s |\n", rep, rtt, lat, rtt / (2 * lat), g, bw, g / bw, p }'
done
echo
echo "halod's RSS in the responder guest after serving the probes: $rss_kib KiB ($maps mappings of libibverbs/librxe)"
echo
echo "$breakdown" | sed '1s/^/    /;2,$s/^/    KiB /'
