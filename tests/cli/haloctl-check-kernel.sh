#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl check --only kernel.cmdline,gpu.gtt against the fixture hosts in tests/data/hosts/kernel-*:
# the table, the totals line, the Reboot row, --json, and the exit codes (0 pass, 1 warn, 2 fail,
# 64 usage, 78 invalid profile); kernel.gtt, gpu.gtt's old name, as a selector. (kernel.iommu and
# kernel.aspm look at the fabric NIC, which these trees lack: haloctl-check-gpu.sh tests them.)
# Usage: haloctl-check-kernel.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup kernel-cli "$@"

# kcheck NAME EXPECTED_EXIT HOST [more haloctl arguments]: check, with the command line checks and
# the GTT of HOST.
kcheck() {
        local name=$1 want=$2 host=$3
        shift 3
        check "$name" "$want" check --root "$hosts/$host" --node head --only kernel.cmdline,gpu.gtt "$@" "$profile"
}

kcheck "all in place" 0 kernel-strix-ok
expect "all in place" "$tmp/out" '^pass  kernel\.cmdline  +the running kernel has all 5 required parameters$'
expect "all in place" "$tmp/out" '^pass  kernel\.cmdline-next  +the next boot \(entry 3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6\.17\.7-300\.fc43\.x86_64, picked by saved_entry in grubenv\) carries all 5'
expect "all in place" "$tmp/out" '^pass  gpu\.gtt  +ROCm gets 124\.0 GiB on card1 \(133143986176 bytes\): amdgpu.s GTT \(mem_info_gtt_total\), within TTM.s page limit of 32505856 pages'
expect "all in place" "$tmp/out" '^3 checks: 3 pass, 0 warn, 0 fail, 0 skip$'
expect_not "all in place: no profile row with --only kernel.cmdline,gpu.gtt" "$tmp/out" '^(pass|warn|fail|skip)  profile '
expect_not "no colour when not on a terminal" "$tmp/out" $'\033'

kcheck "reboot pending" 2 kernel-strix-reboot-pending
expect "reboot pending" "$tmp/out" '^fail  kernel\.cmdline  +the running kernel lacks 5 of 5 required parameters: iommu=pt, pci=realloc'
expect "reboot pending" "$tmp/out" '^warn  kernel\.cmdline-next  +reboot pending: '
expect "reboot pending" "$tmp/out" '^fail  kernel\.cmdline  +the running kernel lacks .*ttm\.pages_limit=32505856; reboot required to bring them into force \(the next boot carries them\)$'
expect "reboot pending" "$tmp/out" '^fail  gpu\.gtt  +amdgpu GTT is 62\.5 GiB on card1 \(67108864000 bytes\), the profile asks 124\.0 GiB'
expect "reboot pending" "$tmp/out" '^3 checks: 0 pass, 1 warn, 2 fail, 0 skip$'
# The Reboot row of haloctl status (halod's PendingReboot), from the same checks.
expect "reboot pending" "$tmp/out" '^    Reboot: required to bring into force \(halod never reboots\):$'
expect "reboot pending" "$tmp/out" '^            kernel command line: iommu=pt pci=realloc pcie_aspm=off amdgpu\.gttsize=126976 ttm\.pages_limit=32505856 \(kernel\.cmdline\)$'
# Failures come first in the table.
head -n1 "$tmp/out" | grep -q '^fail' || { echo "FAIL reboot pending: first row is not a failure"; failures=$((failures + 1)); }

kcheck "only the warning" 1 kernel-strix-reboot-pending --only kernel.cmdline-next
expect "only the warning" "$tmp/out" '^1 check: 0 pass, 1 warn, 0 fail, 0 skip$'

kcheck "kernel update dropped them" 2 kernel-strix-update-dropped
expect "kernel update dropped them" "$tmp/out" "^fail  kernel\.cmdline-next .*lacks pci=realloc, pcie_aspm=off, amdgpu\.gttsize=126976, ttm\.pages_limit=32505856: add them to the options line of /boot/loader/entries/3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6\.17\.7-300\.fc43\.x86_64\.conf \(on Fedora: grubby --update-kernel=ALL --args='pci=realloc"

kcheck "grub without them" 2 kernel-grub-missing
expect "grub without them" "$tmp/out" '^fail  kernel\.cmdline-next .*add them to GRUB_CMDLINE_LINUX in /etc/default/grub, then run update-grub'
expect "grub without them" "$tmp/out" '^skip  gpu\.gtt  +no GPU driven by amdgpu'
expect_not "grub without them: a reboot would not help" "$tmp/out" 'reboot required'
expect_not "grub without them: no Reboot row" "$tmp/out" 'Reboot:'
expect "grub without them" "$tmp/out" '^3 checks: 0 pass, 0 warn, 2 fail, 1 skip$'

# GRUB without BLS entries (make-grub-fixtures.py): what GRUB boots is grub.cfg, not /etc/default/grub.
# The guide's edit without update-grub: a reboot would not bring the parameters.
kcheck "edited, not regenerated" 2 kernel-debian-not-regenerated --only kernel.cmdline-next
expect "edited, not regenerated" "$tmp/out" "^fail  kernel\\.cmdline-next  +the next boot \\(/boot/grub/grub\\.cfg entry 'Debian GNU/Linux', picked by default=\"0\" \\(GRUB_DEFAULT\\)\\) lacks iommu=pt, pci=realloc, pcie_aspm=off, amdgpu\\.gttsize=126976, ttm\\.pages_limit=32505856: edited, not regenerated: /etc/default/grub carries them, but /boot/grub/grub\\.cfg, which GRUB reads, was not written since: run update-grub, then reboot$"
expect_not "edited, not regenerated: no Fedora path on Debian" "$tmp/out" 'grub2'
# With update-grub run, the reboot is what is pending.
kcheck "regenerated" 1 kernel-debian-regenerated --only kernel.cmdline-next
expect "regenerated" "$tmp/out" "^warn  kernel\\.cmdline-next  +reboot pending: the next boot \\(/boot/grub/grub\\.cfg entry 'Debian GNU/Linux', picked by default=\"0\" \\(GRUB_DEFAULT\\)\\) carries "
# grub.cfg has them, /etc/default/grub not (edited by hand): the next update-grub drops them.
mkdir -p "$tmp/hand-edited" && cp -a "$hosts/kernel-debian-regenerated/." "$tmp/hand-edited/"
sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=.*/GRUB_CMDLINE_LINUX_DEFAULT="quiet"/' "$tmp/hand-edited/etc/default/grub"
check "grub.cfg edited by hand" 1 check --root "$tmp/hand-edited" --node head --only kernel.cmdline-next "$profile"
expect "grub.cfg edited by hand" "$tmp/out" "^warn  kernel\\.cmdline-next  +the next boot \\(/boot/grub/grub\\.cfg entry 'Debian GNU/Linux', .*\\) carries all 5 required parameters, but /etc/default/grub lacks iommu=pt, .*: the next update-grub \\(every kernel update runs it\\) writes grub\\.cfg without them"
# GRUB_DEFAULT=saved on a recovery entry, which gets GRUB_CMDLINE_LINUX only.
kcheck "saved recovery entry" 2 kernel-ubuntu-saved-recovery --only kernel.cmdline-next
expect "saved recovery entry" "$tmp/out" "^fail  kernel\\.cmdline-next  +the next boot \\(/boot/grub/grub\\.cfg entry 'Ubuntu, with Linux 6\\.8\\.0-49-generic \\(recovery mode\\)', picked by saved_entry=.* in grubenv \\(GRUB_DEFAULT=saved\\)\\) lacks .*: the first entry 'Ubuntu' has them"
# Fedora: GRUB_CMDLINE_LINUX edited and grub2-mkconfig run, the BLS entries left as they were.
kcheck "grub2-mkconfig alone" 2 kernel-fedora-mkconfig-only --only kernel.cmdline-next
expect "grub2-mkconfig alone" "$tmp/out" "^fail  kernel\\.cmdline-next  .*: /etc/default/grub carries them, but grub2-mkconfig does not write them into the BLS entries: run grubby --update-kernel=ALL --args='iommu=pt pci=realloc pcie_aspm=off amdgpu\\.gttsize=126976 ttm\\.pages_limit=32505856' \\(or grub2-mkconfig -o /boot/grub2/grub\\.cfg --update-bls-cmdline\\)$"

kcheck "ubuntu drop-in" 0 kernel-grub-dropin
expect "ubuntu drop-in" "$tmp/out" '^pass  kernel\.cmdline-next  +the next boot \(/etc/default/grub\.d/60-halo\.cfg\) carries all 5'
expect "ubuntu drop-in" "$tmp/out" '^3 checks: 2 pass, 0 warn, 0 fail, 1 skip$'

# No boot loader entry: /etc/kernel/cmdline is only what the next kernel-install writes.
kcheck "kernel-install only" 1 kernel-etc-kernel-cmdline --only kernel.cmdline-next
expect "kernel-install only" "$tmp/out" '^warn  kernel\.cmdline-next  +no boot loader entry found \(looked for .*\): cannot tell what the next boot gets; /etc/kernel/cmdline, which kernel-install writes into new entries, carries all 5'

# systemd-boot (make-sdboot-fixtures.py): the entries on the ESP, /etc/kernel/cmdline edited and
# kernel-install not run again.
kcheck "systemd-boot on /boot/efi" 0 kernel-sdboot-esp --only kernel.cmdline-next
expect "systemd-boot on /boot/efi" "$tmp/out" "^pass  kernel\.cmdline-next  +the next boot \(systemd-boot entry /boot/efi/loader/entries/3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6\.17\.7-300\.fc43\.x86_64\.conf, the first in systemd-boot's order\) carries all 5"
kcheck "edited, not installed" 2 kernel-sdboot-not-installed --only kernel.cmdline-next
expect "edited, not installed" "$tmp/out" "^fail  kernel\.cmdline-next .*: edited, not installed: /etc/kernel/cmdline carries them, but /boot/efi/loader/entries/3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6\.17\.7-300\.fc43\.x86_64\.conf was written before: run kernel-install add 6\.17\.7-300\.fc43\.x86_64 /usr/lib/modules/6\.17\.7-300\.fc43\.x86_64/vmlinuz, then reboot$"
expect_not "edited, not installed: not a pending reboot" "$tmp/out" 'reboot pending'
# An ESP mounted with umask=0077 (Fedora's /boot/efi), read by a user other than root: the entries
# may be there, so no verdict on what is not there; the summary says who can look.
if root_only "ESP root-only"; then
        mkdir -p "$tmp/esp-0700" && cp -a "$hosts/kernel-sdboot-esp/." "$tmp/esp-0700/"
        chmod 0700 "$tmp/esp-0700/boot/efi"
        chmod 0644 "$profile"
        check_as_nobody "ESP root-only" 1 check --root "$tmp/esp-0700" --node head --only kernel.cmdline-next "$profile"
        expect "ESP root-only" "$tmp/out" '^warn  kernel\.cmdline-next  +could not look at /boot/efi/loader/entries \(Permission denied\): `sudo haloctl check --only kernel\.cmdline-next` reads it$'
fi
# Ubuntu's cloud image: its drop-in sets GRUB_CMDLINE_LINUX_DEFAULT again after the edit.
kcheck "cloud image drop-in" 2 kernel-ubuntu-cloudimg --only kernel.cmdline-next
expect "cloud image drop-in" "$tmp/out" "^fail  kernel\.cmdline-next .*: /etc/default/grub has them in GRUB_CMDLINE_LINUX_DEFAULT, but /etc/default/grub\.d/50-cloudimg-settings\.cfg, which grub-mkconfig reads after it, sets GRUB_CMDLINE_LINUX_DEFAULT again without them: add them there \(or in a drop-in sorted after it\), then run update-grub$"
kcheck "kernelopts in grubenv" 2 kernel-kernelopts
expect "kernelopts in grubenv" "$tmp/out" '^fail  gpu\.gtt  +the running kernel disagrees with itself: ttm\.pages_limit=16252928'

kcheck "no boot config" 2 kernel-no-bootcfg
expect "no boot config" "$tmp/out" '^skip  kernel\.cmdline-next  +no boot configuration found \(looked for /efi/loader/entries/\*\.conf, /boot/loader/entries/\*\.conf, /boot/efi/loader/entries/\*\.conf, /etc/kernel/cmdline, /boot/grub/grub\.cfg, /boot/grub2/grub\.cfg, /etc/default/grub\)'

kcheck "json" 2 kernel-strix-reboot-pending --json
expect "json" "$tmp/out" '^  "outcome": "fail",$'
expect "json" "$tmp/out" '"id": "kernel\.cmdline-next",'
expect "json" "$tmp/out" '"expected": "iommu=pt pci=realloc pcie_aspm=off amdgpu\.gttsize=126976 ttm\.pages_limit=32505856",'
expect "json" "$tmp/out" '"actual": "card1=67108864000"'
expect_not "json: no table totals" "$tmp/out" 'checks:'
expect "json: pending_reboot" "$tmp/out" '"check": "kernel\.cmdline",'
expect "json: pending_reboot" "$tmp/out" '"what": "kernel command line: iommu=pt pci=realloc pcie_aspm=off amdgpu\.gttsize=126976 ttm\.pages_limit=32505856"'

kcheck "colour on request" 2 kernel-strix-reboot-pending --color=always
expect "colour on request" "$tmp/out" $'^\033\\[0;31mfail'

# kernel.gtt, gpu.gtt's name before 0.2, still selects it for one release; it is reported as gpu.gtt.
check "kernel.gtt selects gpu.gtt" 0 check --root "$hosts/kernel-strix-ok" --node head --only kernel.gtt "$profile"
expect "kernel.gtt selects gpu.gtt" "$tmp/out" '^pass  gpu\.gtt  +ROCm gets 124\.0 GiB on card1'
expect "kernel.gtt selects gpu.gtt" "$tmp/out" '^1 check: 1 pass, 0 warn, 0 fail, 0 skip$'
expect_not "kernel.gtt is reported as gpu.gtt" "$tmp/out" 'kernel\.gtt'
check "kernel.gtt selects gpu.gtt, json" 2 check --json --root "$hosts/kernel-strix-reboot-pending" --node head --only kernel.gtt "$profile"
expect "kernel.gtt selects gpu.gtt, json" "$tmp/out" '"id": "gpu\.gtt",'
# kernel. is the kernel's checks, which gpu.gtt is no longer one of.
kcheck "kernel. without the GTT" 0 kernel-strix-ok --only kernel.
expect_not "kernel. without the GTT" "$tmp/out" 'gtt'
expect "kernel. without the GTT" "$tmp/out" '^skip  kernel\.aspm  +could not look at the fabric NIC: link rdma0: '
expect "kernel. without the GTT" "$tmp/out" '^4 checks: 2 pass, 0 warn, 0 fail, 2 skip$'

check "profile check" 0 check --root "$hosts/kernel-strix-ok" --node head --only profile "$profile"
expect "profile check" "$tmp/out" "^pass  profile  profile $profile valid, node head$"

check "unknown --only" 64 check --root "$hosts/kernel-strix-ok" --node head --only kernal. "$profile"
expect "unknown --only" "$tmp/err" "No check id starts with 'kernal\.'"
# Every group of the registry, in its order.
expect "unknown --only" "$tmp/err" "Ids start with profile, kernel\., gpu\., node\., nic\., rdma\., link\., qos\., hosts\., helper, peer\. or fabric\.; see haloctl\(1\)\.$"

check "too many arguments" 64 check "$profile" "$profile"

printf 'cluster: [unterminated\n' >"$tmp/broken.yaml"
check "invalid profile" 78 check --root "$hosts/kernel-strix-ok" --node head "$tmp/broken.yaml"
check "invalid profile, json" 78 check --json --root "$hosts/kernel-strix-ok" --node head "$tmp/broken.yaml"
expect "invalid profile, json" "$tmp/out" '"id": "profile",'
expect "invalid profile, json" "$tmp/out" '"outcome": "fail",'

check "unknown node" 64 check --root "$hosts/kernel-strix-ok" --node nosuchnode --only kernel. "$profile"

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed"
