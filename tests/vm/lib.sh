# SPDX-License-Identifier: MIT
# The vm suite's harness: two QEMU guests (tests/vm/image.sh) joined only to each other by a QEMU
# netdev over unix sockets (no host networking), booted with systemd as PID 1, each with a 9p share
# carrying command files in and their output out (tests/vm/guest/vm-agent), and a read-only share
# with what the host built (halod's Debian package, test programs). Sourced after
# tests/integration/lib.sh (log, fail, skip, harness_on_exit).
#
#   vm_prepare            host tools, the image, the package   (sets VM_IMAGE_DIR, VM_SHARE)
#   vm_boot               both guests, until their agents answer
#   gx VM [TIMEOUT] <<EOF ... EOF      a script as root in vm1 or vm2: its output, its status
#   gsubmit VM <<EOF / gwait VM ID [TIMEOUT]  the same in two halves, for a server and its client
#
# Accelerator: KVM where kvm_intel or kvm_amd is loaded, QEMU's emulator (TCG) otherwise (a nested
# /dev/kvm such as kvm_pvm creates VMs but a stock kernel does not boot there). HALOD_VM_ACCEL=kvm|tcg
# overrides. Under TCG every duration is the emulator's: the tests never assert one.

# shellcheck source=image.sh
. "$SOURCE_DIR/tests/vm/image.sh"

VM_MEM=${HALOD_VM_MEM:-1024}
VM_MACS=(52:54:00:48:4c:01 52:54:00:48:4c:02)

vm_accel() {
        local a=${HALOD_VM_ACCEL:-auto}
        if [ "$a" = auto ]; then
                if [ -e /sys/module/kvm_intel ] || [ -e /sys/module/kvm_amd ] && [ -w /dev/kvm ]; then a=kvm; else a=tcg; fi
        fi
        case $a in
        kvm) VM_ACCEL=kvm VM_CPU=host ;;
        tcg) VM_ACCEL=tcg,thread=multi VM_CPU=max ;;
        *) fail "HALOD_VM_ACCEL=$a: kvm, tcg or auto" ;;
        esac
        VM_ACCEL_NAME=${a}
}

# vm_package: halod's Debian package from this tree (the e2e's code path, tests/e2e/test-e2e.sh's
# build_package), into the share as halod.deb.
# HALOD_VM_DEB=FILE installs that package instead (for iterating on the tests themselves).
vm_package() {
        PAYLOAD=$TEST_DIR/payload
        mkdir -p "$PAYLOAD"
        if [ -n "${HALOD_VM_DEB:-}" ]; then
                cp "$HALOD_VM_DEB" "$PAYLOAD/halod.deb" || fail "HALOD_VM_DEB=$HALOD_VM_DEB cannot be read"
        else
                build_package || fail "halod's Debian package did not build (see above); the guests install the package"
        fi
        cp "$PAYLOAD/halod.deb" "$VM_SHARE/halod.deb"
}

vm_prepare() {
        require_root
        require_tools qemu-system-x86_64 mmdebstrap mkfs.ext4 apt-cache apt-get dpkg-deb make gcc sha256sum
        vm_accel
        VM_SHARE=$TEST_DIR/share
        VM_RUN=$TEST_DIR/run
        mkdir -p "$VM_SHARE" "$VM_RUN"
        vm_image
        read -r VM_KVER VM_KPKGVER <"$VM_IMAGE_DIR/kver"
}

# The kernel command line QEMU gives a guest (-append): the harness's, unless vm_reboot passes the one
# the guest's own grub.cfg gives its default entry.
VM_APPEND="console=ttyS0 root=/dev/vda rw systemd.hostname=halo-N loglevel=4 panic=-1 systemd.show_status=0"

# vm_qemu N [APPEND]: guest N on a copy-on-write overlay of the image in $VM_RUN (qcow2, backed by
# base.img, which stays read-only and is named on QEMU's command line for vm_image_evict), so that what
# the guest writes survives a vm_reboot and is gone with $TEST_DIR.
vm_qemu() {
        local n=$1 o=$((3 - $1)) append=${2:-${VM_APPEND/halo-N/halo-$1}}
        mkdir -p "$VM_RUN/vm$n/cmd"
        [ -f "$VM_RUN/vm$n.qcow2" ] || qemu-img create -q -f qcow2 -F raw -b "$VM_IMAGE_DIR/base.img" "$VM_RUN/vm$n.qcow2" ||
                fail "qemu-img create of vm$n's overlay failed"
        qemu-system-x86_64 -name "halod-vm$n" -machine q35 -accel "$VM_ACCEL" -cpu "$VM_CPU" -smp 1 -m "$VM_MEM" \
                -nodefaults -no-user-config -display none \
                -kernel "$VM_IMAGE_DIR/vmlinuz" -initrd "$VM_IMAGE_DIR/initrd.img" \
                -append "$append" \
                -drive "file=$VM_RUN/vm$n.qcow2,format=qcow2,if=virtio,backing.driver=raw,backing.file.filename=$VM_IMAGE_DIR/base.img" \
                -virtfs "local,path=$VM_RUN/vm$n,mount_tag=io,security_model=none,id=io" \
                -virtfs "local,path=$VM_SHARE,mount_tag=host,security_model=none,readonly=on,id=host" \
                -netdev "dgram,id=fab,local.type=unix,local.path=$VM_RUN/vm$n.sock,remote.type=unix,remote.path=$VM_RUN/vm$o.sock" \
                -device "virtio-net-pci,netdev=fab,mac=${VM_MACS[n - 1]},host_mtu=9000" \
                -device virtio-rng-pci \
                -serial "file:$TEST_DIR/logs/vm$n-console.log" -pidfile "$VM_RUN/vm$n.pid" -daemonize \
                2>"$TEST_DIR/logs/qemu-vm$n.log" || fail "qemu-system-x86_64 for vm$n failed (see $TEST_DIR/logs/qemu-vm$n.log)"
        harness_on_exit "vm_stop $n"
}

vm_stop() {
        local n=$1 p
        p=$(cat "$VM_RUN/vm$n.pid" 2>/dev/null) || return 0
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = qemu-system-x86 ] || return 0
        kill "$p" 2>/dev/null
        while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
        rm -f "$VM_RUN/vm$n.pid"
}

# vm_boot: both guests, then waits (generously: an emulated boot on a busy machine) for their agents.
vm_boot() {
        local n s
        log "booting two guests ($VM_ACCEL_NAME, kernel $VM_KVER, ${VM_MEM} MiB each)"
        # the dgram netdev sends to the other's socket: both paths must be free before either starts
        rm -f "$VM_RUN"/vm*.sock
        vm_qemu 1
        vm_qemu 2
        vm_wait_ready 1
        vm_wait_ready 2
        log "both guests answer"
        # HALOD_VM_HOLD=1: at the end, keep the guests until $TEST_DIR/release exists (for a look with gx)
        [ "${HALOD_VM_HOLD:-}" != 1 ] || harness_on_exit "vm_hold"
}

vm_wait_ready() { # vm_wait_ready N: until guest N's agent says it is ready
        local n=$1 s=$SECONDS
        until [ -f "$VM_RUN/vm$n/ready" ]; do
                if ((SECONDS - s > ${HALOD_VM_BOOT_WAIT:-600})); then
                        tail -n 40 "$TEST_DIR/logs/vm$n-console.log" >&2
                        fail "vm$n: its agent did not start within ${HALOD_VM_BOOT_WAIT:-600} s (console above)"
                fi
                sleep 0.5
        done
}

# vm_reboot N APPEND: guest N shuts down (systemctl poweroff: systemd stops everything and unmounts,
# QEMU exits), then QEMU boots the same kernel and initrd from the same disk with APPEND as the kernel's
# command line; returns when its agent answers. The guests are booted by QEMU's -kernel, not by GRUB:
# the caller gives the command line a boot loader would.
vm_reboot() {
        local n=$1 append=$2 p s=$SECONDS
        p=$(cat "$VM_RUN/vm$n.pid") || fail "vm$n is not running"
        rm -f "$VM_RUN/vm$n/ready"
        gsubmit "vm$n" <<<'systemctl poweroff' >/dev/null
        while kill -0 "$p" 2>/dev/null; do
                ((SECONDS - s < ${HALOD_VM_BOOT_WAIT:-600})) || fail "vm$n did not power off within ${HALOD_VM_BOOT_WAIT:-600} s"
                sleep 0.5
        done
        rm -f "$VM_RUN/vm$n.sock" "$VM_RUN/vm$n.pid"
        mv "$TEST_DIR/logs/vm$n-console.log" "$TEST_DIR/logs/vm$n-console-before-reboot.log"
        vm_qemu "$n" "$append"
        vm_wait_ready "$n"
}

vm_hold() {
        echo "guests held: touch $TEST_DIR/release to stop them (run dir $VM_RUN)" >&2
        until [ -e "$TEST_DIR/release" ]; do sleep 1; done
}

gsubmit() {
        local vm=$1 id
        id=$(date +%s%N)
        cat >"$VM_RUN/$vm/cmd/$id.tmp"
        mv "$VM_RUN/$vm/cmd/$id.tmp" "$VM_RUN/$vm/cmd/$id.sh"
        echo "$id"
}

gwait() {
        local vm=$1 id=$2 to=${3:-300} s=$SECONDS
        while [ ! -e "$VM_RUN/$vm/cmd/$id.rc" ]; do
                if ((SECONDS - s > to)); then
                        echo "[host: $vm gave no result within ${to}s; output so far:]"
                        cat "$VM_RUN/$vm/cmd/$id.out.tmp" 2>/dev/null
                        return 124
                fi
                sleep 0.2
        done
        cat "$VM_RUN/$vm/cmd/$id.out"
        return "$(cat "$VM_RUN/$vm/cmd/$id.rc")"
}

gx() {
        local vm=$1 to=${2:-300} id
        id=$(gsubmit "$vm")
        gwait "$vm" "$id" "$to"
}

VM_ADDR=(192.168.100.1 192.168.100.2)

# In a guest: the fabric NIC's name, found by its MAC (udev names it).
NIC='nic=; for d in /sys/class/net/*; do read -r a <"$d/address"; [ "$a" = "$MAC" ] && nic=${d##*/}; done; [ -n "$nic" ] || { echo "no NIC with MAC $MAC"; exit 1; }'
# In a guest: real_gid HEX, the RoCE v2 GID index of the IPv4 address whose mapped GID ends in HEX
# (c0a8:6402 for 192.168.100.2) as rxe has it in sysfs, or nothing. dash: no substrings.
REAL_GID='real_gid() { p=/sys/class/infiniband/rxe0/ports/1; for g in $p/gids/*; do i=${g##*/}; read -r v <"$g" || continue; [ "$v" = "0000:0000:0000:0000:0000:ffff:$1" ] || continue; read -r t <$p/gid_attrs/types/$i 2>/dev/null || continue; [ "$t" = "RoCE v2" ] && { echo $i; return; }; done; }'
# gid_hex IPV4: the last 32 bits of its IPv4-mapped GID as sysfs writes them
gid_hex() {
        local IFS=.
        # shellcheck disable=SC2086
        set -- $1
        printf '%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
}

# vm_setup_nodes: in each guest, the fabric link (MTU 9000, its address), soft-RoCE on it (rxe0),
# then halod from its package with the profile of the share (halod.yaml) under its unit. The NICs'
# names go to $VM_RUN/vmN/nic.
vm_setup_nodes() {
        local n
        for n in 1 2; do
                log "vm$n: fabric link, soft-RoCE, halod from its package"
                gx "vm$n" 600 >"$TEST_DIR/logs/setup-vm$n.log" 2>&1 <<EOF || { cat "$TEST_DIR/logs/setup-vm$n.log" >&2; fail "vm$n: setting up the link, rxe or halod failed (above)"; }
set -ex
MAC=${VM_MACS[n - 1]}
$NIC
echo "\$nic" >/io/nic
ip link set "\$nic" mtu 9000
ip addr add ${VM_ADDR[n - 1]}/30 dev "\$nic"
ip link set "\$nic" up
modprobe -a rdma_rxe ib_uverbs rdma_ucm
rdma link add rxe0 type rxe netdev "\$nic"
systemctl is-system-running --wait || true
dpkg -i /host/halod.deb
install -D -m 0644 /host/halod.yaml /etc/halod/halod.yaml
systemctl restart halod.service
systemctl is-active halod.service
EOF
        done
        read -r VM_NIC1 <"$VM_RUN/vm1/nic"
        read -r VM_NIC2 <"$VM_RUN/vm2/nic"
}
