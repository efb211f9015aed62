#!/bin/bash
# SPDX-License-Identifier: MIT
# kernel.boot: manage through the helper: halod plans the kernel command line on an Ubuntu cloud
# image's boot configuration (the fixture tree tests/data/hosts/kernel-ubuntu-cloudimg, bound over
# /boot and /etc/default in halod's own mount namespace) and asks halod-helper.service for it, naming
# the drop-in and update-grub; it never runs the tool itself. A helper run that did not write it fails the
# helper check, naming halod-helper-boot.service's journal too. What the helper then does (the drop-in,
# and the grub.cfg update-grub writes, as tests/e2e/test-boot-grub.sh proves on the real one) the test
# does, with the helper's stamps: the helper check passes, and kernel.cmdline fails saying that a reboot
# is required, which Health's summary says too.
#
# halod runs in a network namespace with the netlink backend, on a private bus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init db
require_root
require_tools ip busctl dbus-daemon python3 unshare nsenter mount
require_build_file daemon/halod

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" enforce 10.79.0.1/30 10.79.0.2/30
echo 'kernel: { boot: manage, cmdline: [iommu=pt, pcie_aspm=off, halod.test=1] }' >>"$PROFILE"
HOST=$TEST_DIR/host
cp -a "$SOURCE_DIR/tests/data/hosts/kernel-ubuntu-cloudimg" "$HOST"

log "the next boot lacks the parameters: halod asks the helper for the drop-in and update-grub"
mkdir -p "$TEST_DIR/run-a"
# shellcheck disable=SC2016 # for the inner sh
dm_start_halod "$NS_A" a "$PROFILE" sh -c '
        mount --bind "$0/boot" /boot && mount --bind "$0/etc/default" /etc/default &&
        mount -t tmpfs -o mode=0755 halod-test-run /run && exec "$@"' "$HOST"
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_eq "$(dm_check_outcome helper)" warn "the helper check at READY=1"
request=$(cat "$TEST_DIR/run-a/request")
assert_contains "$request" "kernel: + iommu=pt pcie_aspm=off halod.test=1 via /etc/default/grub.d/99-halod.cfg and update-grub" "the request"
assert_contains "$request" "kernel:   in force after the next reboot (halod never reboots)" "the request"
[ ! -e "$HOST/etc/default/grub.d/99-halod.cfg" ] || fail "halod wrote the drop-in itself"

log "a helper run that did not write it (halod-helper-boot.service failed): the check names both journals"
nsenter -t "$HALOD_PID" -m sh -c 'mkdir -p -m 0755 /run/halod-helper && touch /run/halod-helper/started &&
        echo "exit status 2" >/run/halod-helper/result.new && mv /run/halod-helper/result.new /run/halod-helper/result'
wait_until 20 dm_check_is helper fail
summary=$(busctl --json=short get-property "${HALOD_BUS[@]}" Checks |
        python3 -c 'import json, sys; print(next(c[2] for c in json.load(sys.stdin)["data"] if c[0] == "helper"))')
assert_contains "$summary" "still wrong after halod-helper.service ran (exit status 2): kernel: + iommu=pt pcie_aspm=off halod.test=1" "the helper check"
assert_contains "$summary" "; see journalctl -u halod-helper.service -u halod-helper-boot.service" "the helper check"

log "what the helper writes: the drop-in, grub.cfg from update-grub, its stamps"
printf '%s\n' '# Written by halod (haloctl apply); remove with haloctl apply --undo boot' \
        "# The kernel parameters of halod's profile (kernel.cmdline, kernel.boot: manage)." \
        'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX iommu=pt pcie_aspm=off halod.test=1"' \
        >"$HOST/etc/default/grub.d/99-halod.cfg"
sed -i -E 's/^(\s+linux\s+\S+ root=\S+ ro) /\1 iommu=pt pcie_aspm=off halod.test=1 /' "$HOST/boot/grub/grub.cfg"
grep -q 'ro iommu=pt pcie_aspm=off halod.test=1 ' "$HOST/boot/grub/grub.cfg" || fail "could not edit the fixture's grub.cfg"
nsenter -t "$HALOD_PID" -m sh -c 'mkdir -p -m 0755 /run/halod-helper && touch /run/halod-helper/started &&
        echo "exit status 0" >/run/halod-helper/result.new && mv /run/halod-helper/result.new /run/halod-helper/result'
wait_until 20 dm_check_is helper pass
run_rc 0 busctl --timeout=60 call "${HALOD_BUS[@]}" Verify
assert_eq "$(dm_check_outcome kernel.cmdline-next)" warn "kernel.cmdline-next (reboot pending)"
assert_eq "$(dm_check_outcome kernel.cmdline)" fail "kernel.cmdline before a reboot"
summary=$(dm_prop Summary)
assert_contains "$summary" "reboot required to bring" "Health's summary"

log "SIGTERM: halod exits 0"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 60
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
pass
