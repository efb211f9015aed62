# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by tests/vm/test-vm-rdma.sh, last (it reboots vm2 into another command line and other
# limits): issue 35's "one apply, one reboot" on vm2 (the worker) with kernel.boot: manage and
# rdma.limits: manage.
#
# The node: GRUB's configuration as a Debian install leaves it (/etc/default/grub from grub2-common's
# template, with a serial console in GRUB_CMDLINE_LINUX as a headless node has it; grub.cfg from the
# guest's real update-grub), systemd's default memlock limit. haloctl check fails kernel.cmdline,
# kernel.cmdline-next and rdma.memlock. Then halod (under its shipped unit, restarted with the profile)
# asks its root helper, as on a real node: halod-helper.service writes the memlock drop-ins and starts
# halod-helper-boot.service, which writes halod's drop-in /etc/default/grub.d/99-halod.cfg and runs the
# guest's update-grub (grub-probe needs the disk, which the helper's own sandbox hides: "failed to get
# canonical path of /dev/vda" when the helper ran it). No `haloctl apply` by hand: the step waits for the
# boot unit's run and the helper's, and asserts update-grub's own lines in the boot unit's journal.
# kernel.cmdline then fails saying a reboot is required, kernel.cmdline-next warns "reboot pending".
#
# The reboot: the guests are booted by QEMU's -kernel/-append (tests/vm/lib.sh), not through GRUB, so
# the step powers vm2 off and boots it again with the command line that the guest's generated
# /boot/grub/grub.cfg gives its default entry's linux line (read from the guest before the shutdown),
# prefixed with BOOT_IMAGE= as GRUB's linux command does: the harness stands in for GRUB's menu. The
# kernel really runs with those parameters (/proc/cmdline), and systemd really reads the memlock
# drop-in at boot. The image is the linux line's and the initrd line's (asserted): QEMU loads copies
# of the guest's /boot/vmlinuz-KVER and initrd.img-KVER.
#
# After the reboot: kernel.cmdline, kernel.cmdline-next and rdma.memlock pass, and no kernel.* check
# fails. rdma.driver proves nothing here: the guest's NIC is virtio-net and its RDMA is soft-RoCE
# (rdma_rxe, loaded by the harness), a family halod has no module for, so rdma.driver is skipped
# ("halod does not know the RDMA module of NIC driver virtio-pci", the PCI device's driver) before
# and after, and rdma.modules: manage would be a plan error (no E810 or ConnectX): the step asserts
# the skip.
# Uses check_json/outcome/field of test-vm-rdma.sh.

BOOT_PARAMS="iommu=pt pcie_aspm=off"

# boot_profile: the vm profile, mode: enforce (limits: manage needs it), with the kernel parameters
# under kernel.boot: manage and the memlock limit under rdma.limits: manage.
boot_profile() {
        sed -e 's/^mode: verify$/mode: enforce/' -e 's/^  memlock: unlimited$/  memlock: unlimited\n  limits: manage/' \
                "$SOURCE_DIR/tests/vm/halod-vm.yaml"
        printf 'kernel:\n  boot: manage\n  cmdline: [%s]\n' "${BOOT_PARAMS// /, }"
}

# boot_verdicts WHEN: kernel.* and rdma.* of haloctl check in vm2, kept in the logs; sets BOOT_K, BOOT_R
boot_verdicts() {
        BOOT_K=$(check_json vm2 kernel.)
        BOOT_R=$(check_json vm2 rdma.)
        echo "$BOOT_K" >"$TEST_DIR/logs/boot-$1-kernel.json"
        echo "$BOOT_R" >"$TEST_DIR/logs/boot-$1-rdma.json"
}
boot_expect() { # boot_expect WHEN DOC ID OUTCOME [SUMMARY-GLOB]
        local o s
        o=$(outcome "$2" "$3") s=$(field "$2" "$3" summary)
        [ "$o" = "$4" ] || fail "vm2 $1: $3 is $o, not $4: $s"
        # shellcheck disable=SC2053
        [ -z "${5:-}" ] || [[ $s == $5 ]] || fail "vm2 $1: $3 ($o) does not say '$5': $s"
        log "vm2 $1: $3 $o: $s"
}

step_boot_reboot() {
        local line append kernel initrd cmdline grubcfg p
        log "kernel.boot: manage and rdma.limits: manage on vm2: one apply, one reboot"
        boot_profile >"$VM_SHARE/halod-boot.yaml"
        gx vm2 600 >"$TEST_DIR/logs/boot-setup.log" 2>&1 <<EOF || { cat "$TEST_DIR/logs/boot-setup.log" >&2; fail "vm2: setting up GRUB's configuration failed (above)"; }
set -ex
sed -e 's/^GRUB_DEFAULT=.*/GRUB_DEFAULT=0/' -e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0"/' \
        /usr/share/grub/default/grub >/etc/default/grub
mkdir -p /boot/grub
update-grub
grep -c '^menuentry ' /boot/grub/grub.cfg
# the harness named the host on QEMU's command line (systemd.hostname=); grub.cfg's will not
echo halo-2 >/etc/hostname
# The helper reads the profile itself: no run of it (for the CDI spec of the running halod, which
# still has the old profile) may write the boot part before the verdicts before. halod's restart
# below starts the path unit again (halod.service wants it).
systemctl stop halod-helper.path
install -m 0644 /host/halod-boot.yaml /etc/halod/halod.yaml
EOF
        boot_verdicts before
        boot_expect before "$BOOT_K" kernel.cmdline fail
        boot_expect before "$BOOT_K" kernel.cmdline-next fail
        boot_expect before "$BOOT_R" rdma.memlock fail
        boot_expect before "$BOOT_R" rdma.driver skip "halod does not know the RDMA module of NIC driver *"

        # halod asks halod-helper.service (through halod-helper.path); the helper starts the boot unit and
        # waits for it. Done: the boot unit wrote and ended well and the helper said so (their journals:
        # systemd unloads an inactive unit that ended well, and its properties then say nothing), and
        # the memlock drop-in the helper writes itself is there.
        gx vm2 900 >"$TEST_DIR/logs/boot-apply.log" 2>&1 <<'EOF' || { cat "$TEST_DIR/logs/boot-apply.log" >&2; fail "vm2: halod's helper did not write the boot configuration through halod-helper-boot.service (above)"; }
systemctl restart halod.service
boot_done() {
        journalctl -u halod-helper.service -o cat --no-pager | grep -q 'kernel: halod-helper-boot.service ran the boot part and ended well' &&
                journalctl -u halod-helper-boot.service -o cat --no-pager | grep -q '^kernel: written; reboot required' &&
                [ -e /etc/systemd/system.conf.d/90-halod-memlock.conf ]
}
for i in $(seq 840); do boot_done && break; sleep 1; done
systemctl status --no-pager halod-helper.service halod-helper-boot.service halod-helper.path || true
journalctl -u halod-helper.service -u halod-helper-boot.service -o short-monotonic --no-pager | tail -n 80
cat /run/halod-helper/result || true
boot_done
EOF
        gx vm2 60 >"$TEST_DIR/logs/boot-unit.log" 2>&1 <<<'journalctl -u halod-helper-boot.service -o cat --no-pager' ||
                fail "vm2: cannot read halod-helper-boot.service's journal"
        # update-grub's own lines (grub-mkconfig, 10_linux), from the boot unit's run
        for w in "Generating grub configuration file" "Found linux image: /boot/vmlinuz-$VM_KVER" "kernel: written; reboot required"; do
                grep -qF "$w" "$TEST_DIR/logs/boot-unit.log" ||
                        fail "vm2: halod-helper-boot.service's journal lacks '$w': $(tail -n 20 "$TEST_DIR/logs/boot-unit.log")"
        done
        log "vm2: halod's helper started halod-helper-boot.service, which ran update-grub"
        grubcfg=$(gx vm2 60 <<'EOF'
cat /etc/default/grub.d/99-halod.cfg; ls /etc/systemd/system.conf.d/ /etc/security/limits.d/
grep -m1 -E '^[[:space:]]*linux[[:space:]]' /boot/grub/grub.cfg
EOF
) || fail "vm2: reading what apply wrote failed: $grubcfg"
        echo "$grubcfg" >"$TEST_DIR/logs/boot-applied.txt"
        grep -q '^GRUB_CMDLINE_LINUX=.*iommu=pt pcie_aspm=off' <<<"$grubcfg" || fail "vm2: halod's GRUB drop-in lacks $BOOT_PARAMS: $grubcfg"
        grep -qx '90-halod-memlock.conf' <<<"$grubcfg" || fail "vm2: no memlock drop-in after apply: $grubcfg"
        boot_verdicts applied
        boot_expect "after apply" "$BOOT_K" kernel.cmdline fail "*reboot*"
        boot_expect "after apply" "$BOOT_K" kernel.cmdline-next warn "reboot pending: *"
        boot_expect "after apply" "$BOOT_R" rdma.memlock fail

        # GRUB_DEFAULT=0: the default entry is grub.cfg's first menuentry, whose linux line is the first.
        line=$(grep -m1 -E '^[[:space:]]*linux[[:space:]]' <<<"$(gx vm2 60 <<<'cat /boot/grub/grub.cfg')") || true
        initrd=$(gx vm2 60 <<<"grep -m1 -E '^[[:space:]]*initrd[[:space:]]' /boot/grub/grub.cfg") || true
        read -r _ kernel cmdline <<<"$line"
        [ "${kernel##*/}" = "vmlinuz-$VM_KVER" ] || fail "grub.cfg's default entry boots '$kernel', not vmlinuz-$VM_KVER that QEMU loads: $line"
        case $initrd in *"/initrd.img-$VM_KVER") ;; *) fail "grub.cfg's default entry's initrd is not initrd.img-$VM_KVER: $initrd" ;; esac
        append="BOOT_IMAGE=$kernel $cmdline"
        log "vm2: reboot with grub.cfg's default entry: $append"
        vm_reboot 2 "$append"

        p=$(gx vm2 60 <<<'cat /proc/cmdline') || fail "vm2: cannot read /proc/cmdline after the reboot"
        echo "$p" >"$TEST_DIR/logs/boot-proc-cmdline.txt"
        [ "$p" = "$append" ] || fail "vm2 runs with '$p', not grub.cfg's '$append'"
        for w in $BOOT_PARAMS console=ttyS0; do
                [[ " $p " == *" $w "* ]] || fail "vm2's running kernel lacks $w: $p"
        done
        # soft-RoCE is the harness's (vm_setup_nodes), not the node's boot configuration: back as before
        gx vm2 300 >"$TEST_DIR/logs/boot-rxe.log" 2>&1 <<EOF || { cat "$TEST_DIR/logs/boot-rxe.log" >&2; fail "vm2: soft-RoCE after the reboot failed (above)"; }
set -ex
MAC=${VM_MACS[1]}
$NIC
ip link set "\$nic" mtu 9000 up
modprobe -a rdma_rxe ib_uverbs rdma_ucm
rdma link add rxe0 type rxe netdev "\$nic"
for i in \$(seq 300); do ls /dev/infiniband/uverbs* >/dev/null 2>&1 && break; sleep 0.2; done
EOF
        boot_verdicts rebooted
        boot_expect "after the reboot" "$BOOT_K" kernel.cmdline pass
        boot_expect "after the reboot" "$BOOT_K" kernel.cmdline-next pass
        boot_expect "after the reboot" "$BOOT_R" rdma.memlock pass
        boot_expect "after the reboot" "$BOOT_R" rdma.driver skip "halod does not know the RDMA module of NIC driver *"
        log "vm2 after the reboot: $(python3 -c 'import json,sys; print(", ".join(c["id"]+" "+c["outcome"] for c in json.loads(sys.argv[1])["checks"]))' "$BOOT_K" 2>&1)"
        python3 -c 'import json,sys; bad=[c["id"]+": "+c["summary"] for c in json.loads(sys.argv[1])["checks"] if c["outcome"]=="fail"]; print("\n".join(bad)); sys.exit(1 if bad else 0)' "$BOOT_K" >&2 ||
                fail "vm2 after the reboot: a kernel.* check fails (above)"
        log "vm2: one apply and one reboot: kernel.cmdline, kernel.cmdline-next and rdma.memlock pass"
}
