#!/bin/bash
# SPDX-License-Identifier: MIT
# kernel.boot: manage on systemd-boot, with the real kernel-install of Debian 13 (systemd 257) in a
# container booted with systemd (systemd-nspawn -b, tests/e2e/container.sh): a host laid out as
# `bootctl install` and `kernel-install add` leave it (the ESP at /boot, loader/entries.srel "type1",
# a Type #1 entry written by 90-loaderentry.install from /etc/kernel/cmdline), then haloctl check,
# plan, apply --only boot, a second apply, a failing kernel-install plugin (rollback), and apply
# --undo boot, each judged by kernel.cmdline-next and by the entry kernel-install wrote; then two
# writers at once, root's haloctl apply and halod-helper-boot.service (the real unit and its
# sandbox), one held inside kernel-install while the other waits for the apply lock
# (/run/halod-helper/apply.lock).
# Then the same through halod's root helper as shipped: halod-helper.service (its sandbox hides
# /usr/lib/modules from kernel-install) starts halod-helper-boot.service, which runs kernel-install.
# The container's hostname is halo-1, head's in conf/halod.yaml: the helper picks its node by it.
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

ct_boot node halo-1 "$ROOT" --bind-ro="$HALOCTL:/usr/local/bin/haloctl" --bind-ro="$PROFILE:/etc/halod/halod.yaml" \
        --bind-ro="$SOURCE_DIR/units/halod-helper.service:/etc/systemd/system/halod-helper.service"

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

# The units as shipped, the haloctl bound at /usr/local/bin: the helper's unit file is bound read-only,
# its command line set again in a drop-in with that path; the boot unit installed with it.
exec_start=$(sed -n 's|^ExecStart=/usr/bin/haloctl |ExecStart=/usr/local/bin/haloctl |p' "$SOURCE_DIR/units/halod-helper.service")
[ -n "$exec_start" ] || fail "no ExecStart= in units/halod-helper.service"
printf '[Service]\nExecStart=\n%s\n' "$exec_start" |
        ct node sh -c 'mkdir -p /etc/systemd/system/halod-helper.service.d && cat >/etc/systemd/system/halod-helper.service.d/test.conf' ||
        fail "cannot give halod-helper.service its shipped command line"
sed 's|/usr/bin/haloctl|/usr/local/bin/haloctl|' "$SOURCE_DIR/units/halod-helper-boot.service" |
        ct node sh -c 'cat >/etc/systemd/system/halod-helper-boot.service' || fail "cannot install halod-helper-boot.service"
# The ESP is a directory (see above): kernel-install takes it with SYSTEMD_RELAX_ESP_CHECKS=1, given
# to the boot unit in a drop-in as an administrator would.
ct node sh -c 'mkdir -p /etc/systemd/system/halod-helper-boot.service.d &&
        printf "[Service]\nEnvironment=SYSTEMD_RELAX_ESP_CHECKS=1\n" >/etc/systemd/system/halod-helper-boot.service.d/esp.conf &&
        systemctl daemon-reload' || fail "cannot add the boot unit's drop-in"
# The boot unit's exposure under this systemd, against the figure README.md records for it.
version=$(ct node systemctl --version | sed -n '1s/^systemd \([0-9][0-9]*\).*/\1/p')
OUT=$(ct node systemd-analyze security --no-pager halod-helper-boot.service 2>&1 | tail -n 1)
score=$(sed -n 's/.*halod-helper-boot.service: \([0-9.]*\).*/\1/p' <<<"$OUT")
recorded=$(sed -n "s/.*halod-helper-boot.service (systemd $version): \([0-9][0-9.]*\).*/\1/p" "$SOURCE_DIR/README.md" | head -n 1)
log "halod-helper-boot.service: exposure ${score:-none} under systemd $version (README.md: ${recorded:-none})"
[ -n "$score" ] && [ -n "$recorded" ] ||
        fail "no exposure for halod-helper-boot.service ('$OUT'), or README.md records none for systemd $version"
python3 -c "import sys; sys.exit(0 if float('$score') <= float('$recorded') else 1)" ||
        fail "halod-helper-boot.service's exposure under systemd $version rose to $score, above $recorded (README.md)"

# Two writers at once: root's haloctl apply and halod-helper-boot.service, the unit that writes the
# boot part for halod-helper.service (started here by itself: the helper's own part, starting it, is
# below), with its sandbox as shipped.
BOOT_UNIT=halod-helper-boot.service
# A plugin that stands in for a slow one (dracut building an initramfs runs for many seconds): once
# armed, the first `kernel-install add` says it is there and waits until the test lets it go, then
# exits with the status the test chose; every other run passes at once. 85-: before 90-loaderentry,
# so the entry is not yet written while it waits.
ct node sh -c 'cat >/etc/kernel/install.d/85-hold.install && chmod +x /etc/kernel/install.d/85-hold.install' <<'PLUGIN' ||
#!/bin/sh
[ "$1" = add ] && mkdir /etc/kernel/hold/taken 2>/dev/null || exit 0
: >/etc/kernel/hold/reached
while [ ! -e /etc/kernel/hold/go ]; do sleep 0.1; done
exit "$(cat /etc/kernel/hold/status)"
PLUGIN
        fail "cannot add the plugin that waits"
arm_plugin() { ct node sh -c "rm -rf /etc/kernel/hold && mkdir /etc/kernel/hold && echo $1 >/etc/kernel/hold/status"; }
helper_state() { ct node systemctl show -P ActiveState $BOOT_UNIT; }
helper_done() { case $(helper_state) in inactive | failed) ;; *) return 1 ;; esac; }
# start_helper: starts the boot unit, not waiting for it; helper_log: what that run said (the
# journal from then on: an inactive unit forgets its InvocationID=).
start_helper() {
        helper_lines=$(ct node journalctl --no-pager -o cat -u $BOOT_UNIT | wc -l)
        run_rc 0 ct node systemctl start --no-block $BOOT_UNIT
}
helper_log() { ct node journalctl --no-pager -o cat -u $BOOT_UNIT | tail -n +$((helper_lines + 1)); }
helper_said() { helper_log | grep -q -- "$1"; }
# waiting_or_gone FILE PID: FILE says that haloctl waits for the lock, or PID is gone (it did not wait).
waiting_or_gone() { grep -q '^waiting for ' "$1" || ! kill -0 "$2"; }
helper_waiting_or_done() { helper_said '^waiting for ' || helper_done; }
want="iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856"

log "the boot unit's kernel-install fails and it puts the configuration back while root's apply waits; root's write stays"
# Root's applies above made /run/halod-helper. Started by root before any helper run of a boot, the
# boot unit finds no lock directory: it has it made (its RuntimeDirectory=), root's and 0755.
run_rc 0 ct node rm -rf /run/halod-helper
arm_plugin 3
start_helper
wait_until 120 ct node test -e /etc/kernel/hold/reached
run_rc 0 ct node stat -c '%U %a' /run/halod-helper
assert_eq "$OUT" "root 755" "the lock directory the boot unit had made"
helper_pid=$(ct node systemctl show -P MainPID $BOOT_UNIT)
hc apply --only boot >"$TEST_DIR/root.out" 2>&1 &
root_apply=$!
wait_until 120 waiting_or_gone "$TEST_DIR/root.out" "$root_apply"
ct node touch /etc/kernel/hold/go
rc=0
wait "$root_apply" || rc=$?
wait_until 120 helper_done
assert_eq "$(ct node cat /etc/kernel/cmdline)" "root=/dev/vda2 ro quiet $want" \
        "/etc/kernel/cmdline after the helper's rollback and root's apply (root's write stays)"
assert_eq "$(options)" "root=/dev/vda2 ro quiet $want systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry after the helper's rollback and root's apply"
ct node test -e /etc/halod/boot-undo.conf || fail "root's undo record is gone after the helper's rollback"
assert_eq "$rc" 0 "root's haloctl apply --only boot exit status (output: $(cat "$TEST_DIR/root.out"))"
assert_contains "$(cat "$TEST_DIR/root.out")" "waiting for haloctl apply (pid $helper_pid), which is changing the kernel command line (/run/halod-helper/apply.lock)"
assert_contains "$(cat "$TEST_DIR/root.out")" "kernel: written; reboot required"
assert_eq "$(helper_state)" failed "$BOOT_UNIT after its kernel-install failed"
wait_until 60 helper_said "the boot configuration was put back as it was"
assert_contains "$(helper_log)" "kernel-install add $V /usr/lib/modules/$V/vmlinuz failed (exit status 3"
run_rc 0 ct node systemctl reset-failed $BOOT_UNIT
run_rc 0 hc apply --undo boot

log "root's apply held inside kernel-install while the boot unit runs: it waits, then finds nothing to change"
arm_plugin 0
hc apply --only boot >"$TEST_DIR/root.out" 2>&1 &
root_apply=$!
wait_until 120 ct node test -e /etc/kernel/hold/reached
holder=$(ct node cat /run/halod-helper/apply.lock 2>/dev/null || true) # "PID WHAT", judged below
start_helper
wait_until 120 helper_waiting_or_done
helper_while_held=$(helper_state)
ct node touch /etc/kernel/hold/go
rc=0
wait "$root_apply" || rc=$?
wait_until 120 helper_done
assert_eq "$rc" 0 "root's haloctl apply --only boot exit status (output: $(cat "$TEST_DIR/root.out"))"
assert_contains "$(cat "$TEST_DIR/root.out")" "kernel: written; reboot required"
assert_eq "$(helper_state)" inactive "$BOOT_UNIT after root's apply"
wait_until 60 helper_said '^nothing to change\|^kernel: '
assert_contains "$(helper_log)" "nothing to change: the next boot carries the kernel parameters of the profile" "the helper's run"
assert_eq "${holder#* }" "changing the kernel command line" "what the apply lock's holder does"
assert_contains "$(helper_log)" "waiting for haloctl apply (pid ${holder%% *}), which is changing the kernel command line (/run/halod-helper/apply.lock)"
assert_eq "$helper_while_held" activating "$BOOT_UNIT while root's apply held the lock"
assert_eq "$(options)" "root=/dev/vda2 ro quiet $want systemd.machine_id=$(ct node cat /etc/machine-id)" "the entry after both"
run_rc 0 ct node stat -c '%U %a' /run/halod-helper/apply.lock
assert_eq "$OUT" "root 600" "the apply lock's owner and mode"

log "through halod-helper.service as shipped, which starts halod-helper-boot.service (the haloctl bound at /usr/local/bin)"
run_rc 0 hc apply --undo boot
# helper_run: one run of halod-helper.service, as halod-helper.path starts it; sets HELPER_LOG and
# BOOT_LOG to what the helper and the boot unit printed since the run began (an inactive unit that ended
# well is unloaded, its invocation id with it: by time, on the container's clock).
helper_run() {
        local since
        since=$(ct node date +@%s.%N)
        ct node systemctl start halod-helper.service || true
        # journald reads the units' stdout streams on its own time: what it has read, written first
        ct node journalctl --sync
        HELPER_LOG=$(ct node journalctl -u halod-helper.service --since "$since" -o cat --no-pager)
        BOOT_LOG=$(ct node journalctl -u halod-helper-boot.service --since "$since" -o cat --no-pager)
        echo "$HELPER_LOG" >>"$TEST_DIR/logs/helper.log"
        echo "$BOOT_LOG" >>"$TEST_DIR/logs/helper-boot.log"
}

log "the boot unit's kernel-install fails: the helper says so and where to look; everything is put back"
ct node sh -c 'printf "#!/bin/sh\nexit 3\n" >/etc/kernel/install.d/95-fail.install && chmod +x /etc/kernel/install.d/95-fail.install' ||
        fail "cannot add the failing plugin"
helper_run
assert_contains "$BOOT_LOG" "kernel: + iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856 (replacing pcie_aspm=force) via /etc/kernel/cmdline and kernel-install" "the boot unit's journal"
assert_contains "$HELPER_LOG" "Failed to write the kernel command line: halod-helper-boot.service failed (systemctl start exited 1); its journal says why: journalctl -u halod-helper-boot.service" "the helper's journal"
assert_contains "$BOOT_LOG" "kernel-install add $V /usr/lib/modules/$V/vmlinuz failed (exit status 3" "the boot unit's journal"
assert_contains "$BOOT_LOG" "the boot configuration was put back as it was" "the boot unit's journal"
assert_eq "$(ct node systemctl show -P Result halod-helper-boot.service)" exit-code "the boot unit's Result"
assert_eq "$(ct node cat /etc/kernel/cmdline)" "root=/dev/vda2 ro quiet pcie_aspm=force" "/etc/kernel/cmdline after the boot unit's rollback"
assert_eq "$(options)" "root=/dev/vda2 ro quiet pcie_aspm=force systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry after the boot unit's rollback"
ct node rm /etc/kernel/install.d/95-fail.install

log "the helper starts the boot unit, whose kernel-install writes the entry from halod's /etc/kernel/cmdline"
helper_run
assert_contains "$HELPER_LOG" "kernel: halod-helper-boot.service ran the boot part and ended well: journalctl -u halod-helper-boot.service says what it wrote" "the helper's journal"
assert_not_contains "$HELPER_LOG" "Failed to write the kernel command line" "the helper's journal"
# The tool ran in the boot unit: haloctl's own line after kernel-install is there, not in the helper's.
assert_contains "$BOOT_LOG" "kernel: written; reboot required to bring the parameters into force (halod never reboots)" "the boot unit's journal"
assert_eq "$(ct node cat /etc/kernel/cmdline)" \
        "root=/dev/vda2 ro quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856"
assert_eq "$(options)" \
        "root=/dev/vda2 ro quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856 systemd.machine_id=$(ct node cat /etc/machine-id)" \
        "the entry the boot unit's kernel-install wrote"
run_rc 1 hc check --only kernel.cmdline-next
assert_contains "$OUT" "warn  kernel.cmdline-next  reboot pending: the next boot (systemd-boot entry $ENTRY"

log "the helper again: the boot unit finds nothing to change, and changes nothing"
before=$(ct node stat -c %Y.%i "$ENTRY" /etc/kernel/cmdline)
helper_run
assert_contains "$BOOT_LOG" "nothing to change: the next boot carries the kernel parameters of the profile" "the boot unit's journal"
assert_eq "$(ct node stat -c %Y.%i "$ENTRY" /etc/kernel/cmdline)" "$before" "the entry and /etc/kernel/cmdline after a second helper run"

ct_poweroff node
pass "kernel.boot: manage with the real kernel-install"
