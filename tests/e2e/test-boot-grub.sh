#!/bin/bash
# SPDX-License-Identifier: MIT
# kernel.boot: manage on GRUB without BLS (Debian, Ubuntu), with Debian 13's real update-grub
# (grub2-common, grub-pc-bin from the archive): an Ubuntu cloud image's /etc/default/grub and
# 50-cloudimg-settings.cfg, a kernel in /boot, grub.cfg from update-grub; then haloctl apply --only
# boot, a second apply, and --undo boot, each judged in the grub.cfg update-grub wrote and by
# kernel.cmdline and kernel.cmdline-next.
#
# grub-mkconfig asks grub-probe for the device of / and 10_linux writes no entry for a file-backed
# /dev/loopN: the root is the first partition of a disk image on a loop device (/dev/loopNp1, made
# with mknod where no udev makes it), mounted and given to systemd-nspawn with that device. No
# reboot: booting grub.cfg needs a machine (tests/vm), so kernel.cmdline still fails, saying a
# reboot is required.
#
# Run by meson (suite e2e, root). By hand:
#   sudo BUILD_DIR=build SOURCE_DIR=$PWD bash tests/e2e/test-boot-grub.sh   (HARNESS_KEEP=1 keeps $TEST_DIR)
STACK=debian13-networkd
# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh" || exit 1
harness_init eg
require_root
require_tools systemd-nspawn losetup partx mkfs.ext4 mknod meson python3

# shellcheck source=build.sh
. "$SOURCE_DIR/tests/e2e/build.sh"
e2e_plain_haloctl
ROOTFS=$(bash "$SOURCE_DIR/tests/e2e/rootfs.sh" --stack "$STACK") || exit $?

IMG=$TEST_DIR/disk.img
MNT=$TEST_DIR/root
LOOP=
PART=
MADE_NODE=
cleanup() {
        mountpoint -q "$MNT" && umount "$MNT"
        [ -n "$MADE_NODE" ] && rm -f "$PART"
        [ -n "$LOOP" ] && losetup -d "$LOOP"
        rm -f "$IMG"
}
harness_on_exit cleanup

log "a disk image with one partition, on a loop device, holding the $STACK rootfs"
truncate -s 1600M "$IMG"
# An MBR with one Linux partition from sector 2048 to the end.
python3 - "$IMG" <<'EOF' || fail "cannot write the partition table"
import struct, sys, os
sectors = os.path.getsize(sys.argv[1]) // 512
with open(sys.argv[1], "r+b") as f:
    f.seek(446)
    f.write(bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + struct.pack("<II", 2048, sectors - 2048))
    f.seek(510)
    f.write(b"\x55\xaa")
EOF
LOOP=$(losetup -f --show -P "$IMG") || fail "losetup -P failed"
PART=${LOOP}p1
dev=/sys/block/${LOOP#/dev/}/${LOOP#/dev/}p1/dev
# losetup -P asks the kernel to scan the table; where it did not add the partition, partx does.
[ -r "$dev" ] || partx -a "$LOOP" || fail "partx -a $LOOP failed"
[ -r "$dev" ] || fail "the kernel found no partition on $LOOP"
if [ ! -b "$PART" ]; then
        d=$(cat "$dev")
        mknod "$PART" b "${d%:*}" "${d#*:}" || fail "cannot make $PART"
        MADE_NODE=1
fi
mkfs.ext4 -q -F "$PART" || fail "mkfs.ext4 $PART failed"
mkdir -p "$MNT"
mount "$PART" "$MNT" || fail "cannot mount $PART"
cp -a "$ROOTFS/." "$MNT/" || fail "cannot copy the rootfs"

nsp() {
        systemd-nspawn -q -D "$MNT" --register=no --keep-unit --bind="$PART" \
                --setenv=PATH=/usr/local/bin:/usr/sbin:/usr/bin --pipe "$@" </dev/null
}

log "GRUB from the archive, an Ubuntu cloud image's settings, a kernel"
nsp sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends grub2-common grub-pc-bin && apt-get clean' \
        >"$TEST_DIR/logs/apt.log" 2>&1 || { tail -n 20 "$TEST_DIR/logs/apt.log" >&2; fail "cannot install grub2-common and grub-pc-bin"; }
mkdir -p "$MNT/boot/grub" "$MNT/etc/default/grub.d" "$MNT/etc/halod"
cat >"$MNT/etc/default/grub" <<'EOF'
GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR=`( . /etc/os-release && echo ${NAME} )`
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX=""
EOF
cp "$SOURCE_DIR/tests/data/hosts/kernel-ubuntu-cloudimg/etc/default/grub.d/50-cloudimg-settings.cfg" "$MNT/etc/default/grub.d/"
printf 'not a kernel\n' >"$MNT/boot/vmlinuz-6.12.99-halod-test"
printf 'not an initrd\n' >"$MNT/boot/initrd.img-6.12.99-halod-test"
sed 's/^  cmdline: .*/  boot: manage\n&/' "$SOURCE_DIR/conf/halod.yaml" >"$MNT/etc/halod/halod.yaml"
install -m 0755 "$HALOCTL" "$MNT/usr/local/bin/haloctl"
run_rc 0 nsp update-grub

params='iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856'
linux_lines() { grep -E '^[[:space:]]+linux[[:space:]]' "$MNT/boot/grub/grub.cfg"; }
hc() { nsp haloctl "$@" --node head /etc/halod/halod.yaml; }

run_rc 2 hc check --only kernel.cmdline-next
assert_contains "$OUT" "fail  kernel.cmdline-next  the next boot (/boot/grub/grub.cfg entry 'Debian GNU/Linux'"

log "haloctl apply --only boot: the drop-in after the cloud image's, then update-grub"
run_rc 0 hc apply --only boot
assert_contains "$OUT" "kernel: + $params via /etc/default/grub.d/99-halod.cfg and update-grub"
assert_contains "$OUT" "Found linux image: /boot/vmlinuz-6.12.99-halod-test"
lines=$(linux_lines)
[ "$(grep -c -- "$params" <<<"$lines")" -eq 3 ] ||
        fail "not every linux line of grub.cfg (the default, advanced and recovery entries) has the parameters:"$'\n'"$lines"
assert_contains "$(head -n1 <<<"$lines")" "$params console=tty1 console=ttyS0" "the default entry (the cloud image's console= kept)"
assert_eq "$(head -n1 "$MNT/etc/default/grub.d/99-halod.cfg")" "# Written by halod (haloctl apply); remove with haloctl apply --undo boot"

run_rc 2 hc check --only kernel.cmdline,kernel.cmdline-next
assert_contains "$OUT" "warn  kernel.cmdline-next  reboot pending: the next boot (/boot/grub/grub.cfg entry 'Debian GNU/Linux'"
assert_contains "$OUT" "; reboot required to bring them into force (the next boot carries them)"

log "a second apply changes nothing"
before=$(stat -c %Y.%i "$MNT/boot/grub/grub.cfg" "$MNT/etc/default/grub.d/99-halod.cfg")
run_rc 0 hc apply --only boot
assert_contains "$OUT" "nothing to change"
assert_eq "$(stat -c %Y.%i "$MNT/boot/grub/grub.cfg" "$MNT/etc/default/grub.d/99-halod.cfg")" "$before" "grub.cfg and the drop-in"

log "haloctl apply --undo boot: the drop-in goes, update-grub runs"
run_rc 0 hc apply --undo boot
[ ! -e "$MNT/etc/default/grub.d/99-halod.cfg" ] || fail "the undo left the drop-in"
assert_not_contains "$(linux_lines)" "iommu=pt" "grub.cfg after the undo"
assert_contains "$(linux_lines)" "console=tty1 console=ttyS0" "grub.cfg after the undo"

pass "kernel.boot: manage with the real update-grub"
