#!/bin/bash
# SPDX-License-Identifier: MIT
# Records real RDMA netlink QP dumps for tests/data/rdma/: boots the vm suite's two guests (no halod:
# only the fabric link and soft-RoCE), runs ib_write_bw between them and, while it runs, takes
# vm-rdma-capture's dumps in both guests (tests/vm/vm-rdma-capture.c), with the guest's kernel
# version and `rdma res show qp` beside them to compare with. Not a test: run by hand when the
# fixtures must be renewed.
#   sudo BUILD_DIR=build OUT=DIR bash tests/vm/capture-rdma-qp.sh
set -euo pipefail
. "${SOURCE_DIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
harness_init vmcap
# shellcheck source=lib.sh
. "$SOURCE_DIR/tests/vm/lib.sh"

OUT=${OUT:-$SOURCE_DIR/tests/data/rdma/capture}
require_build_file tests/vm-rdma-capture tests/vm-rdma-qps
vm_prepare
install -m 0755 "$BUILD_DIR/tests/vm-rdma-capture" "$BUILD_DIR/tests/vm-rdma-qps" "$VM_SHARE/"
vm_boot
for n in 1 2; do
        gx "vm$n" 600 <<EOF || fail "vm$n: link or rxe setup failed"
set -ex
MAC=${VM_MACS[n - 1]}
$NIC
ip link set "\$nic" mtu 9000
ip addr add ${VM_ADDR[n - 1]}/30 dev "\$nic"
ip link set "\$nic" up
modprobe -a rdma_rxe ib_uverbs rdma_ucm
rdma link add rxe0 type rxe netdev "\$nic"
EOF
done
log "ib_write_bw server in vm2, client in vm1"
srv=$(gsubmit vm2 <<EOF
$REAL_GID
timeout 400 ib_write_bw -d rxe0 -x \$(real_gid $(gid_hex "${VM_ADDR[1]}")) -D 60 >/io/srv.log 2>&1
EOF
)
sleep 5
cli=$(gsubmit vm1 <<EOF
$REAL_GID
timeout 400 ib_write_bw -d rxe0 -x \$(real_gid $(gid_hex "${VM_ADDR[0]}")) -D 60 ${VM_ADDR[1]} >/io/cli.log 2>&1
EOF
)
mkdir -p "$OUT"
for try in $(seq 1 60); do
        sleep 3
        gx vm1 60 <<'EOF' >"$TEST_DIR/probe" 2>&1 || true
pgrep -x ib_write_bw >/dev/null && rdma res show qp | grep -q ib_write_bw && echo running
EOF
        grep -q running "$TEST_DIR/probe" && break
done
for n in 1 2; do
        gx "vm$n" 120 <<EOF || fail "vm$n: capture failed"
set -e
mkdir -p /io/cap
/host/vm-rdma-capture /io/cap
rdma res show qp >/io/cap/rdma-res-show-qp.txt
rdma -j res show qp >/io/cap/rdma-res-show-qp.json || true
for c in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "\${c##*/} \$(cat \$c)"; done >/io/cap/hw_counters.txt || true
for c in /sys/class/infiniband/rxe0/ports/1/counters/*; do echo "\${c##*/} \$(cat \$c 2>&1)"; done >/io/cap/counters.txt 2>&1 || true
rdma statistic show link rxe0/1 >/io/cap/rdma-statistic.txt 2>&1 || true
uname -r >/io/cap/kernel
cat /io/cap/comm.txt /io/cap/rdma-res-show-qp.txt
# halod's reader, as root and as an unprivileged user (halod's unit runs as user halod)
/host/vm-rdma-qps | tee /io/cap/vm-rdma-qps.txt
setpriv --reuid=65534 --regid=65534 --clear-groups /host/vm-rdma-qps | tee /io/cap/vm-rdma-qps-nobody.txt || true
EOF
        mkdir -p "$OUT/vm$n"
        cp "$VM_RUN/vm$n/cap/"* "$OUT/vm$n/"
done
gwait vm1 "$cli" 600 || true
gwait vm2 "$srv" 600 || true
cp "$VM_RUN/vm1/cli.log" "$OUT/vm1/ib_write_bw.log" || true
cp "$VM_RUN/vm2/srv.log" "$OUT/vm2/ib_write_bw.log" || true
log "captured into $OUT"
