#!/bin/bash
# SPDX-License-Identifier: MIT
# haloctl plan --root on the fixture host trees of each boot loader, with kernel.boot: manage: the
# kernel lines name the tool and the file that boot loader needs (grubby on Fedora's BLS entries, a
# drop-in after the cloud image's plus update-grub on Ubuntu, kernel-install on systemd-boot), nothing
# where the next boot already carries the parameters, and nothing with kernel.boot: check; --boot-unit
# refused where it does not belong.
# Usage: haloctl-plan-boot.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup plan-boot-cli "$@"

manage=$tmp/manage.yaml
sed 's/^  cmdline: .*/  boot: manage\n&/' "$profile" >"$manage"
grep -q '^  boot: manage$' "$manage" || { echo "FAIL: could not add kernel.boot: manage to the profile"; exit 1; }
params='iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856'

# plan HOST: haloctl plan of the managed profile on a fixture tree. The trees have no fabric link, so
# the link part is an error (exit 2) whatever the kernel part says.
plan() {
        check "$1" 2 plan --root "$hosts/$1" --node head "$manage"
}

plan kernel-fedora-mkconfig-only
line "grubby on Fedora BLS" "kernel: + $params via grubby --update-kernel=ALL --args='$params'"
line "grubby on Fedora BLS" "kernel:   run grubby --update-kernel=ALL --args='$params'"
line "grubby on Fedora BLS" "kernel:   in force after the next reboot (halod never reboots)"
expect_not "grubby on Fedora BLS: no grub2-mkconfig" "$tmp/out" 'grub2-mkconfig|update-grub'

plan kernel-ubuntu-cloudimg
line "drop-in on Ubuntu" "kernel: + $params via /etc/default/grub.d/99-halod.cfg and update-grub"
line "drop-in on Ubuntu" "kernel:   write /etc/default/grub.d/99-halod.cfg"
line "drop-in on Ubuntu" "kernel:   run update-grub"

plan kernel-sdboot-not-installed
line "kernel-install on systemd-boot" "kernel: + $params via kernel-install"
line "kernel-install on systemd-boot" "kernel:   run kernel-install add 6.17.5-300.fc43.x86_64 /usr/lib/modules/6.17.5-300.fc43.x86_64/vmlinuz"
line "kernel-install on systemd-boot" "kernel:   run kernel-install add 6.17.7-300.fc43.x86_64 /usr/lib/modules/6.17.7-300.fc43.x86_64/vmlinuz"
expect_not "kernel-install on systemd-boot: /etc/kernel/cmdline has them already" "$tmp/out" 'write /etc/kernel/cmdline'

# halod's unit hides /usr/lib/modules (ProtectKernelModules=): a user who cannot list it is told so,
# not that no kernel is installed.
if root_only "modules hidden"; then
        mkdir -p "$tmp/modules-0700" && cp -a "$hosts/kernel-sdboot-not-installed/." "$tmp/modules-0700/"
        chmod 0700 "$tmp/modules-0700/usr/lib/modules"
        chmod 0644 "$manage"
        check_as_nobody "modules hidden" 2 plan --root "$tmp/modules-0700" --node head "$manage"
        line "modules hidden" "kernel: cannot write the command line: could not list /usr/lib/modules (Permission denied), and /boot has no vmlinuz-*: the kernels that kernel-install would add are not known here; \`sudo haloctl plan\` lists them"
        expect_not "modules hidden: not 'no kernel'" "$tmp/out" 'no kernel image found'
fi

plan kernel-sdboot-esp
expect_not "systemd-boot entry with all of them" "$tmp/out" '^kernel:'

plan kernel-debian-regenerated
expect_not "grub.cfg with all of them" "$tmp/out" '^kernel:'

check "kernel.boot: check" 2 plan --root "$hosts/kernel-fedora-mkconfig-only" --node head "$profile"
expect_not "kernel.boot: check" "$tmp/out" '^kernel:'

check "plan --json" 2 plan --json --root "$hosts/kernel-ubuntu-cloudimg" --node head "$manage"
expect "plan --json" "$tmp/out" '"kernel: write|"kernel:   write /etc/default/grub.d/99-halod.cfg"'

# --boot-unit (what halod-helper.service passes): only with apply --only, and only a service's name
check "--boot-unit without --only" 64 apply --boot-unit halod-helper-boot.service --node head "$manage"
expect "--boot-unit without --only" "$tmp/err" '^--boot-unit is an option of apply --only'
check "--boot-unit with plan" 64 plan --only boot --boot-unit halod-helper-boot.service --node head "$manage"
check "--boot-unit a path" 64 apply --only boot --boot-unit /etc/systemd/system/x.service --node head "$manage"
expect "--boot-unit a path" "$tmp/err" "^Invalid --boot-unit '/etc/systemd/system/x.service': expected the name of a service unit"
check "--boot-unit not a service" 64 apply --only boot --boot-unit halod.socket --node head "$manage"
check "--boot-unit without boot" 64 apply --only cdi,hosts. --boot-unit halod-helper-boot.service --node head "$manage"
expect "--boot-unit without boot" "$tmp/err" '^--boot-unit names the unit that writes the boot part, which --only cdi,hosts. does not name'
check "--boot-unit with --root" 64 apply --only boot --boot-unit halod-helper-boot.service --root "$hosts/kernel-ubuntu-cloudimg" --node head "$manage"
expect "--boot-unit with --root" "$tmp/err" '^--boot-unit has systemd run the boot part on this machine, not below --root'
check "--boot-unit only a suffix" 64 apply --only boot --boot-unit .service --node head "$manage"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
