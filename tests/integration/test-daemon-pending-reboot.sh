#!/bin/bash
# SPDX-License-Identifier: MIT
# "Reboot required", as a machine reads it: halod's PendingReboot property on a real dbus-daemon.
# The profile requires kernel parameters that this machine's /proc/cmdline lacks; halod reads the
# boot configuration of an Ubuntu cloud image (the fixture tree tests/data/hosts/kernel-ubuntu-cloudimg,
# bound over /boot and /etc/default in halod's own mount namespace, kernel.boot: check). While the
# next boot lacks them too, nothing is pending. When grub.cfg carries them (as update-grub writes it,
# see test-daemon-helper-boot.sh), a Verify makes PendingReboot name them, announced by
# PropertiesChanged; STATUS= says a reboot is required; haloctl status shows the line (and --json the
# list). A Verify that changes nothing announces no PendingReboot; taking them out of grub.cfg again
# empties it, announced.
#
# halod runs in a network namespace with the netlink backend, on a private bus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

harness_init pr
require_root
require_tools ip busctl dbus-daemon jq unshare mount
require_build_file daemon/halod
require_build_file daemon/haloctl

start_dbus
dm_install_bus_policy
netns_pair
PROFILE=$TEST_DIR/halod.yaml
dm_write_profile "$PROFILE" enforce 10.81.0.1/30 10.81.0.2/30
echo 'kernel: { cmdline: [iommu=pt, pcie_aspm=off, halod.test=1] }' >>"$PROFILE"
HOST=$TEST_DIR/host
cp -a "$SOURCE_DIR/tests/data/hosts/kernel-ubuntu-cloudimg" "$HOST"
GRUB_CFG=$HOST/boot/grub/grub.cfg
cp "$GRUB_CFG" "$TEST_DIR/grub.cfg.orig"
grep -q 'halod.test=1' /proc/cmdline && skip "this machine's kernel runs with halod.test=1"

# pending: PendingReboot as JSON, [[check, what], ...].
pending() {
        busctl --json=short get-property "${HALOD_BUS[@]}" PendingReboot | jq -c '.data'
}

# announced NAME: the PropertiesChanged payloads in the monitor's output that name NAME, as JSON.
announced() {
        jq -c --arg p "$1" 'select(.member == "PropertiesChanged") | .payload.data[1][$p] | select(. != null) | .data' \
                "$TEST_DIR/monitor.json"
}

log "the next boot lacks the parameters too: no reboot would bring them, nothing is pending"
dm_start_halod "$NS_A" a "$PROFILE" "${DM_BIND_BOOT_TREE[@]}" "$HOST"
wait_notify "$NOTIFY_OUT" 'READY=1'
assert_eq "$(dm_check_outcome kernel.cmdline)" fail "kernel.cmdline"
assert_eq "$(dm_check_outcome kernel.cmdline-next)" fail "kernel.cmdline-next (grub.cfg lacks them)"
assert_eq "$(pending)" "[]" "PendingReboot"
# Read whole first: grep -q stopping early would end busctl with SIGPIPE, and pipefail the test.
introspection=$(busctl introspect "${HALOD_BUS[@]}")
grep -Eq '^\.PendingReboot +property +a\(ss\) .*emits-change' <<<"$introspection" ||
        fail "PendingReboot is not an a(ss) property that emits PropertiesChanged: $(grep PendingReboot <<<"$introspection")"
run_rc 2 "$BUILD_DIR/daemon/haloctl" status
assert_contains "$OUT" "    Reboot: not required" "haloctl status"
run_rc 2 "$BUILD_DIR/daemon/haloctl" --json status
assert_eq "$(jq -c '.pending_reboot' <<<"$OUT")" "[]" "haloctl --json status's pending_reboot"

log "grub.cfg carries them: a Verify makes PendingReboot name them, announced"
busctl --json=short monitor io.halod1 >"$TEST_DIR/monitor.json" 2>"$TEST_DIR/logs/monitor.log" &
MON_PID=$!
track_pid "$MON_PID"
wait_until 10 grep -q "Monitoring bus message stream" "$TEST_DIR/logs/monitor.log"
sed -i -E 's/^(\s+linux\s+\S+ root=\S+ ro) /\1 iommu=pt pcie_aspm=off halod.test=1 /' "$GRUB_CFG"
grep -q 'ro iommu=pt pcie_aspm=off halod.test=1 ' "$GRUB_CFG" || fail "could not edit the fixture's grub.cfg"
run_rc 0 busctl --timeout=60 call "${HALOD_BUS[@]}" Verify
want='[["kernel.cmdline","kernel command line: iommu=pt pcie_aspm=off halod.test=1"]]'
assert_eq "$(dm_check_outcome kernel.cmdline-next)" warn "kernel.cmdline-next (reboot pending)"
assert_eq "$(pending)" "$want" "PendingReboot"
wait_until 10 sh -c "grep -q '\"LastVerifyUSec\"' '$TEST_DIR/monitor.json'"
assert_eq "$(announced PendingReboot)" "$want" "PendingReboot in PropertiesChanged"
wait_notify "$NOTIFY_OUT" '^STATUS=degraded: kernel.cmdline: .*reboot required to bring them into force'
run_rc 2 "$BUILD_DIR/daemon/haloctl" status
assert_contains "$OUT" "    Reboot: required to bring into force (halod never reboots):"$'\n'"            kernel command line: iommu=pt pcie_aspm=off halod.test=1 (kernel.cmdline)" "haloctl status"
run_rc 2 "$BUILD_DIR/daemon/haloctl" --json status
assert_eq "$(jq -c '.pending_reboot' <<<"$OUT")" \
        '[{"check":"kernel.cmdline","what":"kernel command line: iommu=pt pcie_aspm=off halod.test=1"}]' \
        "haloctl --json status's pending_reboot"

log "a Verify that changes nothing announces no PendingReboot"
: >"$TEST_DIR/monitor.json"
run_rc 0 busctl --timeout=60 call "${HALOD_BUS[@]}" Verify
wait_until 10 sh -c "grep -q '\"LastVerifyUSec\"' '$TEST_DIR/monitor.json'"
assert_eq "$(announced PendingReboot)" "" "PendingReboot announced although it did not change"

log "grub.cfg without them again: PendingReboot is empty, announced"
cp "$TEST_DIR/grub.cfg.orig" "$GRUB_CFG"
: >"$TEST_DIR/monitor.json"
run_rc 0 busctl --timeout=60 call "${HALOD_BUS[@]}" Verify
wait_until 10 sh -c "grep -q '\"LastVerifyUSec\"' '$TEST_DIR/monitor.json'"
assert_eq "$(announced PendingReboot)" "[]" "the empty PendingReboot in PropertiesChanged"
assert_eq "$(pending)" "[]" "PendingReboot"

log "SIGTERM: halod exits 0"
kill -TERM "$HALOD_PID"
dm_wait_exit "$HALOD_PID" 60
assert_eq "$EXIT_RC" 0 "halod's exit status after SIGTERM"
pass
