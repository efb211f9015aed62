#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the kernel-sdboot-* fixture host trees that kernel.cmdline-next reads on systemd-boot hosts:
# the ESP as `bootctl install` leaves it (EFI/systemd/systemd-bootx64.efi, loader/loader.conf,
# loader/entries.srel), the Type #1 entries `kernel-install add` writes through 90-loaderentry.install
# (systemd src/kernel-install/90-loaderentry.install.in: the keys in its order and spacing, the
# options from /etc/kernel/cmdline, else /usr/lib/kernel/cmdline, else /proc/cmdline without
# BOOT_IMAGE= and initrd=, "systemd.machine_id=" appended when the entry token is the machine id),
# and /proc/cmdline as the kernel got it. The trees are committed; this script says how they were made.
# Run it from anywhere: python3 tests/data/hosts/make-sdboot-fixtures.py
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("grub_fixtures", os.path.join(HERE, "make-grub-fixtures.py"))
_grub = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_grub)
write, tree = _grub.write, _grub.tree
MID = "3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3"
PARAMS = "iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856"
FEDORA_ROOT = "root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d ro rootflags=subvol=root rhgb quiet"
DEBIAN_ROOT = "root=UUID=0c9b3f1e-6a2d-4f7e-9b1c-5d8e2a7f4c31 ro quiet"


def bootctl_install(root, esp):
    """What `bootctl install` leaves on the ESP (src/bootctl/bootctl-install.c)."""
    write(root, f"{esp}/EFI/systemd/systemd-bootx64.efi", "")
    write(root, f"{esp}/EFI/BOOT/BOOTX64.EFI", "")
    write(root, f"{esp}/loader/loader.conf", "#timeout 3\n#console-mode keep\n")
    write(root, f"{esp}/loader/entries.srel", "type1\n")


def loader_entry(root, boot, pretty, sort_key, version, options):
    """90-loaderentry.install's entry for version, with the kernel and initrd it copies beside it."""
    write(root, f"{boot}/{MID}/{version}/linux", "")
    write(root, f"{boot}/{MID}/{version}/initrd", "")
    write(root, f"{boot}/loader/entries/{MID}-{version}.conf",
          "# Boot Loader Specification type#1 entry\n"
          "# File created by /usr/lib/kernel/install.d/90-loaderentry.install (systemd 257.9-1)\n"
          f"title      {pretty}\n"
          f"version    {version}\n"
          f"machine-id {MID}\n"
          f"sort-key   {sort_key}\n"
          f"options    {options} systemd.machine_id={MID}\n"
          f"linux      /{MID}/{version}/linux\n"
          f"initrd     /{MID}/{version}/initrd\n")


FEDORA = "Fedora Linux 43 (Workstation Edition)"
FEDORA_VERSIONS = ["6.17.7-300.fc43.x86_64", "6.17.5-300.fc43.x86_64"]


def main():
    # Fedora 43 with systemd-boot, the ESP at /boot/efi, no /etc/kernel/cmdline: kernel-install took
    # the running kernel's command line, which had the parameters.
    root = tree("kernel-sdboot-esp")
    bootctl_install(root, "/boot/efi")
    for v in FEDORA_VERSIONS:
        loader_entry(root, "/boot/efi", FEDORA, "fedora", v, f"{FEDORA_ROOT} {PARAMS}")
        write(root, f"/usr/lib/modules/{v}/vmlinuz", "")
    write(root, "/proc/cmdline", f"{FEDORA_ROOT} {PARAMS} systemd.machine_id={MID}\n")

    # The same host before the guide's step was finished: /etc/kernel/cmdline edited, `kernel-install
    # add` never run again, so the entries (and the running kernel) lack the parameters.
    root = tree("kernel-sdboot-not-installed")
    bootctl_install(root, "/boot/efi")
    for v in FEDORA_VERSIONS:
        loader_entry(root, "/boot/efi", FEDORA, "fedora", v, FEDORA_ROOT)
        write(root, f"/usr/lib/modules/{v}/vmlinuz", "")
    write(root, "/etc/kernel/cmdline", f"{FEDORA_ROOT} {PARAMS}\n")
    write(root, "/proc/cmdline", f"{FEDORA_ROOT} systemd.machine_id={MID}\n")

    # Debian 13 with systemd-boot, the ESP at /efi and XBOOTLDR at /boot (where kernel-install puts the
    # entries), Debian's kernels in /boot/vmlinuz-*. loader.conf's default pins the older kernel,
    # installed before /etc/kernel/cmdline had the parameters.
    root = tree("kernel-sdboot-xbootldr")
    bootctl_install(root, "/efi")
    write(root, "/efi/loader/loader.conf", "timeout 3\n#console-mode keep\ndefault " + MID + "-6.12.38*\n")
    loader_entry(root, "/boot", "Debian GNU/Linux 13 (trixie)", "debian", "6.12.41+deb13-amd64",
                 f"{DEBIAN_ROOT} {PARAMS}")
    loader_entry(root, "/boot", "Debian GNU/Linux 13 (trixie)", "debian", "6.12.38+deb13-amd64", DEBIAN_ROOT)
    for v in ("6.12.41+deb13-amd64", "6.12.38+deb13-amd64"):
        write(root, f"/boot/vmlinuz-{v}", "")
    write(root, "/etc/kernel/cmdline", f"{DEBIAN_ROOT} {PARAMS}\n")
    write(root, "/proc/cmdline", f"{DEBIAN_ROOT} {PARAMS} systemd.machine_id={MID}\n")


if __name__ == "__main__":
    main()
