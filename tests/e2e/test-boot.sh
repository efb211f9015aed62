#!/bin/bash
# SPDX-License-Identifier: MIT
# kernel.boot: manage on systemd-boot, with the real kernel-install of Debian 13 (systemd 257) in a
# container booted with systemd (systemd-nspawn -b, tests/e2e/container.sh): a host laid out as
# `bootctl install` and `kernel-install add` leave it (the ESP at /boot, loader/entries.srel "type1",
# a Type #1 entry written by 90-loaderentry.install from /etc/kernel/cmdline), then haloctl check,
# plan, apply --only boot, a second apply, a failing kernel-install plugin (rollback), and apply
# --undo boot, each judged by kernel.cmdline-next and by the entry kernel-install wrote.
#
# What a container cannot show: the running kernel's command line is the host's, so kernel.cmdline
# keeps failing after the apply ("reboot pending"); booting the new entry needs a machine (tests/vm).
# The ESP is a directory, not a vfat partition: SYSTEMD_RELAX_ESP_CHECKS=1, which systemd documents
# for that (docs/ENVIRONMENT.md), lets kernel-install take it; haloctl passes it on to the tool.
#
# Run by meson (suite e2e, root): BUILD_DIR and SOURCE_DIR come from the runner. By hand:
#   sudo BUILD_DIR=build SOURCE_DIR=$PWD bash tests/e2e/test-boot.sh   (HARNESS_KEEP=1 keeps $TEST_DIR)
STACK=debian13-networkd
# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh" || exit 1
harness_init eb
# shellcheck source=container.sh
. "$SOURCE_DIR/tests/e2e/container.sh"
trap ct_exit EXIT
require_root
require_tools systemd-nspawn nsenter meson python3

# shellcheck source=build.sh
. "$SOURCE_DIR/tests/e2e/build.sh"
e2e_plain_haloctl

ROOT=$(bash "$SOURCE_DIR/tests/e2e/rootfs.sh" --stack "$STACK") || exit $?
[ -x "$ROOT/usr/bin/kernel-install" ] || fail "the $STACK rootfs has no kernel-install (package systemd)"

# The shipped profile with kernel.boot: manage, and pcie_aspm=off where the host has pcie_aspm=force:
# replaced, not doubled.
PROFILE=$TEST_DIR/halod.yaml
sed 's/^  cmdline: .*/  boot: manage\n&/' "$SOURCE_DIR/conf/halod.yaml" >"$PROFILE"
grep -q '^  boot: manage$' "$PROFILE" || fail "could not add kernel.boot: manage to conf/halod.yaml"
grep -q -- '- pcie_aspm=off' "$PROFILE" || fail "conf/halod.yaml no longer asks pcie_aspm=off"

ct_boot node node "$ROOT" --bind-ro="$HALOCTL:/usr/local/bin/haloctl" --bind-ro="$PROFILE:/etc/halod/halod.yaml"

V=6.12.99-halod-test
ENTRY=/boot/loader/entries/$(ct node cat /etc/machine-id)-$V.conf
hc() { ct node env PATH=/usr/local/bin:/usr/sbin:/usr/bin SYSTEMD_RELAX_ESP_CHECKS=1 haloctl "$@" --node head /etc/halod/halod.yaml; }
options() { ct node sed -n 's/^options *//p' "$ENTRY"; }

log "a fresh systemd-boot host: the ESP at /boot, one kernel, its entry from /etc/kernel/cmdline"
ct node sh -c "mkdir -p /boot/EFI/systemd /boot/loader/entries /etc/kernel /usr/lib/modules/$V &&
        printf 'type1\n' >/boot/loader/entries.srel && : >/boot/loader/loader.conf &&
        printf 'not a kernel\n' >/usr/lib/modules/$V/vmlinuz &&
        printf 'root=/dev/vda2 ro quiet pcie_aspm=force\n' >/etc/kernel/cmdline" ||
        fail "cannot lay out the ESP"
run_rc 0 ct node env SYSTEMD_RELAX_ESP_CHECKS=1 kernel-install add "$V" "/usr/lib/modules/$V/vmlinuz"
assert_eq "$(options)" "root=/dev/vda2 ro quiet pcie_aspm=force systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry kernel-install wrote"

run_rc 2 hc check --only kernel.cmdline-next
assert_contains "$OUT" "fail  kernel.cmdline-next" "kernel.cmdline-next before the apply"
assert_contains "$OUT" "pcie_aspm=off (have pcie_aspm=force)"

log "haloctl plan names the file and the tool"
run_rc 2 hc plan
assert_contains "$OUT" "kernel: + iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856 (replacing pcie_aspm=force) via /etc/kernel/cmdline and kernel-install"
assert_contains "$OUT" "kernel:   run kernel-install add $V /usr/lib/modules/$V/vmlinuz"

log "a kernel-install plugin that fails: everything is put back"
ct node sh -c 'mkdir -p /etc/kernel/install.d && printf "#!/bin/sh\nexit 3\n" >/etc/kernel/install.d/95-fail.install &&
        chmod +x /etc/kernel/install.d/95-fail.install' || fail "cannot add the failing plugin"
run_rc 2 hc apply --only boot
assert_contains "$OUT" "kernel-install add $V /usr/lib/modules/$V/vmlinuz failed (exit status 3"
assert_contains "$OUT" "the boot configuration was put back as it was"
assert_eq "$(ct node cat /etc/kernel/cmdline)" "root=/dev/vda2 ro quiet pcie_aspm=force" "/etc/kernel/cmdline after the rollback"
assert_eq "$(options)" "root=/dev/vda2 ro quiet pcie_aspm=force systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry after the rollback"
ct node test ! -e /etc/halod/boot-undo.conf || fail "the rollback left /etc/halod/boot-undo.conf"
ct node rm /etc/kernel/install.d/95-fail.install

log "haloctl apply --only boot: /etc/kernel/cmdline, then kernel-install add"
run_rc 0 hc apply --only boot
assert_contains "$OUT" "reboot required to bring the parameters into force (halod never reboots)"
assert_eq "$(ct node cat /etc/kernel/cmdline)" \
        "root=/dev/vda2 ro quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856"
assert_eq "$(options)" \
        "root=/dev/vda2 ro quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856 systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry kernel-install wrote from halod's /etc/kernel/cmdline"
run_rc 0 ct node head -n1 /etc/halod/boot-undo.conf
assert_eq "$OUT" "# Written by halod (haloctl apply); remove with haloctl apply --undo boot" "the undo record's marker"

log "after the apply: the next boot carries them, the running kernel does not (no reboot in a container)"
run_rc 2 hc check --only kernel.cmdline,kernel.cmdline-next
assert_contains "$OUT" "warn  kernel.cmdline-next  reboot pending: the next boot (systemd-boot entry $ENTRY"
assert_contains "$OUT" "fail  kernel.cmdline       the running kernel lacks"
assert_contains "$OUT" "; reboot required to bring them into force (the next boot carries them)"

log "a second apply changes nothing"
before=$(ct node stat -c %Y.%i "$ENTRY" /etc/kernel/cmdline)
run_rc 0 hc apply --only boot
assert_contains "$OUT" "nothing to change: the next boot carries the kernel parameters of the profile"
assert_eq "$(ct node stat -c %Y.%i "$ENTRY" /etc/kernel/cmdline)" "$before" "the entry and /etc/kernel/cmdline after a second apply"

log "haloctl apply --undo boot: /etc/kernel/cmdline as it was, the entry written again"
run_rc 0 hc apply --undo boot
assert_contains "$OUT" "kernel:   put back /etc/kernel/cmdline"
assert_eq "$(ct node cat /etc/kernel/cmdline)" "root=/dev/vda2 ro quiet pcie_aspm=force" "/etc/kernel/cmdline after the undo"
assert_eq "$(options)" "root=/dev/vda2 ro quiet pcie_aspm=force systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry after the undo"
ct node test ! -e /etc/halod/boot-undo.conf || fail "the undo left /etc/halod/boot-undo.conf"
run_rc 0 hc apply --undo boot
assert_contains "$OUT" "nothing to undo"

ct_poweroff node
pass "kernel.boot: manage with the real kernel-install"
