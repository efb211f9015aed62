#!/bin/bash
# SPDX-License-Identifier: MIT
# The CDI spec read by a real podman (Debian 12's 4.3.1), written by what halod-helper.service runs as
# root (haloctl apply --only cdi) for a fixture host (nic-e810-x4: irdma0 on uverbs0) whose
# /dev/infiniband/uverbs0 and rdma_cm are character devices made here: into /run/cdi, a tmpfs in a
# private mount namespace (podman 4.3 has no --cdi-spec-dir, and the host's /run/cdi stays untouched),
# the same spec as haloctl env --cdi prints; podman reads it there, and `--device halod.io/fabric=rdma0` gives
# a container started from a directory rootfs (a static busybox, no image, no registry) the device
# nodes and the fabric variables; `=all` the same; without the device, neither.
. "$(dirname "$0")/lib.sh"

harness_init cdi
require_root
require_tools podman runc unshare mknod jq
require_build_file daemon/haloctl
HALOCTL=$BUILD_DIR/daemon/haloctl
BUSYBOX=/bin/busybox # Debian's busybox-static, Fedora's busybox: statically linked
[ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
        skip "no static $BUSYBOX (Debian: busybox-static; Fedora: busybox); install it with tools/deps test"

log "a fixture host whose /dev/infiniband holds character devices for uverbs0 and rdma_cm"
HOST=$TEST_DIR/host
cp -a "$SOURCE_DIR/tests/data/hosts/nic-e810-x4" "$HOST"
mkdir -p "$HOST/dev/infiniband"
mknod -m 0666 "$HOST/dev/infiniband/uverbs0" c 231 192
mknod -m 0666 "$HOST/dev/infiniband/rdma_cm" c 10 58
cat >"$TEST_DIR/halod.yaml" <<'YAML'
cluster: cdi-test
mode: verify
links:
  rdma0: { match: { driver: ice }, mtu: 9000 }
nodes:
  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }
  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/30 } }
YAML

# The RDMA device and its GID index come from the tree's sysfs, as the uverbs device does (this
# kernel has no RDMA, and it is not asked). Exit 0: the spec is whole; without a roce-tos in the
# profile, NCCL_IB_TC and NCCL_IB_SL are not this node's and count as nothing (haloctl(1)).
SPEC=$TEST_DIR/cdi/halod.json
mkdir -p "$TEST_DIR/cdi"
run_rc 0 "$HALOCTL" --root "$HOST" --node head env --cdi "$TEST_DIR/halod.yaml"
printf '%s\n' "$OUT" | sed -n '/^{/,/^}/p' >"$SPEC"
jq -e . "$SPEC" >/dev/null || fail "haloctl env --cdi printed no JSON: $OUT"
assert_eq "$(jq -r '.devices[0].containerEdits.deviceNodes | map(.path + "=" + .hostPath) | join(" ")' "$SPEC")" \
        "/dev/infiniband/uverbs0=$HOST/dev/infiniband/uverbs0 /dev/infiniband/rdma_cm=$HOST/dev/infiniband/rdma_cm" \
        "the device nodes of rdma0 in the spec"

# podman reads /etc/cdi and /var/run/cdi (= /run/cdi); the mount point is made when the host has none.
if [ ! -d /run/cdi ]; then
        mkdir /run/cdi
        harness_on_exit "rmdir /run/cdi"
fi
ROOTFS=$TEST_DIR/rootfs
mkdir -p "$ROOTFS/bin" "$ROOTFS/dev" "$ROOTFS/proc" "$ROOTFS/sys" "$ROOTFS/etc" "$ROOTFS/tmp"
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
for applet in sh ls env cat; do ln -s busybox "$ROOTFS/bin/$applet"; done

# in_container DEVICE COMMAND: the COMMAND's output in a container given halod.io/fabric=DEVICE, with the
# spec the helper's command wrote into the namespace's /run/cdi (and checked to be haloctl env --cdi's). The
# podman flags past --device are this VM's, not halod's: runc and cgroupfs for its hybrid cgroup
# hierarchy, the ulimits for the sandbox's hard limits; a real host needs none of them. Storage, state
# and the spec directory are the test's own.
in_container() {
        unshare --mount --propagation private sh -c '
                mount -t tmpfs -o mode=0755 tmpfs /run/cdi &&
                "$6" --root "$7" --node head apply --only cdi "$8" >>"$2/logs/helper.log" 2>&1 &&
                cmp /run/cdi/halod.json "$1" >>"$2/logs/helper.log" 2>&1 &&
                exec podman --root "$2/storage" --runroot "$2/runroot" --tmpdir "$2/tmp" --storage-driver vfs \
                        --events-backend none --runtime runc --cgroup-manager=cgroupfs \
                        run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                        --device "halod.io/fabric=$3" --rootfs "$4" /bin/sh -c "$5"' \
                sh "$SPEC" "$TEST_DIR" "$1" "$ROOTFS" "$2" "$HALOCTL" "$HOST" "$TEST_DIR/halod.yaml" \
                2>>"$TEST_DIR/logs/podman.log"
}

log "podman run --device halod.io/fabric=rdma0: the device nodes and the variables in the container"
OUT=$(in_container rdma0 'ls -l /dev/infiniband; env') ||
        fail "the helper's spec or podman run failed: $(tail -5 "$TEST_DIR/logs/helper.log" "$TEST_DIR/logs/podman.log")"
assert_contains "$(cat "$TEST_DIR/logs/helper.log")" "wrote the CDI spec /run/cdi/halod.json (kind halod.io/fabric)" "the helper's command"
printf '%s\n' "$OUT" >"$TEST_DIR/logs/container-rdma0.out"
assert_contains "$OUT" "231, 192" "uverbs0's device numbers in the container"
assert_contains "$(grep ' uverbs0$' <<<"$OUT")" "crw-rw-rw-" "uverbs0 in the container"
assert_contains "$(grep ' rdma_cm$' <<<"$OUT")" "crw-rw-rw-" "rdma_cm in the container"
for v in NCCL_SOCKET_IFNAME=enp194s0np0 NCCL_IB_HCA=irdma0 NCCL_IB_GID_INDEX=1 GLOO_SOCKET_IFNAME=enp194s0np0 \
        VLLM_HOST_IP=192.168.100.1; do
        grep -qx "$v" <<<"$OUT" || fail "$v not in the container's environment: $OUT"
done

log "podman run --device halod.io/fabric=all: the same for every link"
OUT=$(in_container all 'ls /dev/infiniband; echo "$NCCL_SOCKET_IFNAME"') ||
        fail "podman run failed: $(tail -5 "$TEST_DIR/logs/podman.log")"
assert_eq "$(printf '%s' "$OUT" | tr '\n' ' ')" "rdma_cm uverbs0 enp194s0np0" "the container given all"

log "without the spec's device, no /dev/infiniband: what the silent TCP fallback looks like"
OUT=$(unshare --mount --propagation private sh -c 'mount -t tmpfs tmpfs /run/cdi &&
        exec podman --root "$1/storage" --runroot "$1/runroot" --tmpdir "$1/tmp" --storage-driver vfs \
                --events-backend none --runtime runc --cgroup-manager=cgroupfs run --rm --network none \
                --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --rootfs "$2" /bin/sh -c \
                "ls /dev/infiniband 2>&1; env"' sh "$TEST_DIR" "$ROOTFS" 2>>"$TEST_DIR/logs/podman.log") ||
        fail "podman run failed: $(tail -5 "$TEST_DIR/logs/podman.log")"
assert_contains "$OUT" "No such file or directory" "a container without the device"
assert_not_contains "$OUT" "NCCL_SOCKET_IFNAME" "a container without the device"

pass
