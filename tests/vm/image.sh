#!/bin/bash
# SPDX-License-Identifier: MIT
# The vm suite's guest image: Debian (the host's release) with the archive's stock kernel, systemd as
# PID 1, soft-RoCE (rdma_rxe is in the stock kernel), perftest, and netdevsim built out of tree from
# the archive's linux-source of the guest kernel's exact version (Debian does not build it). Sourced
# by tests/vm/lib.sh; vm_image builds it once per content and sets VM_IMAGE_DIR.
#
# Nothing is pinned: the kernel is whatever linux-image-amd64 of the archive depends on today, and
# the mirror is the one apt already uses here (the guest gets the host's apt sources).
#
# Cache: ${HALOD_VM_CACHE:-/var/tmp/halod-vm}/<key>/ with base.img, vmlinuz, initrd.img, kver. The key
# hashes the package list, the kernel's ABI and package version, the apt sources and the files that
# shape the image (this script and tests/vm/guest/): anything else changing reuses the image.

VM_GUEST_PACKAGES=(
        systemd systemd-sysv udev dbus polkitd kmod initramfs-tools iproute2 procps util-linux
        rdma-core ibverbs-utils ibverbs-providers perftest ethtool pciutils iputils-ping
        # the guest's firewall, for the peer.<node>.rdma step (step-peer-rdma.sh)
        nftables
        # TCP between the fabric addresses for the fabric.<node>.transport step
        # (step-fabric-transport.sh): bulk (iperf3) and a small request/response exchange (socat)
        iperf3 socat
        # GRUB's update-grub (grub2-common) and the PC platform's files grub-mkconfig writes for
        # (grub-pc-bin, as tests/e2e/test-boot-grub.sh): kernel.boot: manage runs the real update-grub
        # in the boot_reboot step (step-boot-reboot.sh). Not grub-pc: nothing is installed on the disk
        # (QEMU boots the kernel; the step reads grub.cfg)
        grub2-common grub-pc-bin
        # halod's own dependencies (packaging/debian/control and what its shlibs pull): the package is
        # installed offline, with dpkg -i, in the booted guest
        libibverbs1 libpci3 libyaml-0-2 libsystemd0 libmnl0 libnm0 acl
)

# vm_apt_sources: the apt source files of this host, deb822 or one-line, in the order apt reads them.
vm_apt_sources() {
        local f
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
                [ -s "$f" ] && grep -Eq '^[[:space:]]*(deb[[:space:]]|Types:.*deb( |$))' "$f" && echo "$f"
        done
        return 0
}

# vm_resolve_kernel: sets VM_KVER (6.1.0-NN-amd64), VM_KPKGVER (the package version) and VM_KSERIES
# (6.1) from what linux-image-amd64 of the archive pulls in now.
vm_resolve_kernel() {
        local pkg
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
        if [ -z "$pkg" ]; then
                apt-get update -qq >&2 || true
                pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
        fi
        [ -n "$pkg" ] || fail "apt-cache knows no linux-image-amd64 (apt's sources: $(vm_apt_sources | tr '\n' ' ')); run apt-get update"
        VM_KVER=${pkg#linux-image-}
        VM_KPKGVER=$(apt-cache policy "$pkg" | awk '$1 == "Candidate:" { print $2; exit }')
        VM_KSERIES=$(echo "$VM_KVER" | cut -d. -f1,2)
        [ -n "$VM_KPKGVER" ] && [ "$VM_KPKGVER" != "(none)" ] || fail "no installable version of $pkg in apt's sources"
}

# vm_host_kernel_build_deps: the headers and kbuild of exactly the guest kernel's version, for
# netdevsim. Installed on demand: they move with the archive's kernel, so tools/deps cannot name them.
vm_host_kernel_build_deps() {
        local need=() p
        for p in "linux-headers-$VM_KVER" "linux-kbuild-$VM_KSERIES"; do
                [ "$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)" = "install ok installed $VM_KPKGVER" ] || need+=("$p=$VM_KPKGVER")
        done
        [ ${#need[@]} -eq 0 ] && return 0
        [ "$(id -u)" = 0 ] || fail "the headers of the guest kernel are missing (${need[*]}) and installing them needs root"
        log "installing ${need[*]} (the guest kernel's headers, for netdevsim)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
                "linux-headers-${VM_KVER%-amd64}-common=$VM_KPKGVER" >"$TEST_DIR/logs/apt-headers.log" 2>&1 ||
                fail "apt-get install ${need[*]} failed (see $TEST_DIR/logs/apt-headers.log)"
}

vm_cache_key() {
        {
                echo "${VM_GUEST_PACKAGES[*]} $VM_KVER $VM_KPKGVER"
                vm_apt_sources | xargs -r cat
                cat "$SOURCE_DIR/tests/vm/image.sh"
                find "$SOURCE_DIR/tests/vm/guest" -type f | sort | xargs cat
        } | sha256sum | cut -c1-16
}

# vm_netdevsim DIR: netdevsim.ko for the guest kernel, built in DIR from the archive's linux-source.
vm_netdevsim() {
        local d=$1 src=$1/nsim-src deb
        [ -f "$d/netdevsim.ko" ] && return 0
        vm_host_kernel_build_deps
        mkdir -p "$src"
        (cd "$d" && apt-get download -q "linux-source-$VM_KSERIES=$VM_KPKGVER") >"$TEST_DIR/logs/linux-source.log" 2>&1 ||
                fail "apt-get download linux-source-$VM_KSERIES=$VM_KPKGVER failed (see $TEST_DIR/logs/linux-source.log)"
        deb=$(ls "$d"/linux-source-"$VM_KSERIES"_*_all.deb)
        dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$VM_KSERIES.tar.xz" |
                tar -xJ -C "$src" --strip-components=1 "linux-source-$VM_KSERIES/drivers/net/netdevsim" ||
                fail "drivers/net/netdevsim not found in $deb"
        rm -f "$deb"
        make -s -C "/usr/src/linux-headers-$VM_KVER" M="$src/drivers/net/netdevsim" CONFIG_NETDEVSIM=m modules \
                >"$TEST_DIR/logs/netdevsim-build.log" 2>&1 ||
                fail "building netdevsim against linux-headers-$VM_KVER failed (see $TEST_DIR/logs/netdevsim-build.log)"
        cp "$src/drivers/net/netdevsim/netdevsim.ko" "$d/netdevsim.ko"
}

# vm_image_evict ROOT KEY: the cache's other images go (each is about 2 GB sparse), but not one that
# another run is building (its .tmp changed within the hour) or whose guests are up (a QEMU process
# names its base.img): several engineers' trees share the cache, with different image keys.
vm_image_evict() {
        local d
        for d in "$1"/*; do
                [ -d "$d" ] && [ "${d##*/}" != "$2" ] && [ "${d##*/}" != "$2.tmp" ] || continue
                [ -n "$(find "$d" -maxdepth 0 -name '*.tmp' -mmin -60)" ] && continue
                grep -qsF "$d/base.img" /proc/[0-9]*/cmdline && continue
                rm -rf "$d"
        done
}

# vm_image: builds (or finds) the image; sets VM_IMAGE_DIR.
vm_image() {
        local root key dir fs sources=()
        root=${HALOD_VM_CACHE:-/var/tmp/halod-vm}
        vm_resolve_kernel
        key=$(vm_cache_key)
        dir=$root/$key
        VM_IMAGE_DIR=$dir
        if [ -f "$dir/base.img" ]; then
                log "guest image: cached ($dir, kernel $VM_KVER $VM_KPKGVER)"
                return 0
        fi
        [ "$(id -u)" = 0 ] || fail "building the guest image needs root (mmdebstrap --mode=root)"
        log "guest image: building $dir (kernel $VM_KVER $VM_KPKGVER; a few minutes, once per content)"
        mkdir -p "$root"
        vm_image_evict "$root" "$key"
        rm -rf "$dir.tmp"
        mkdir -p "$dir.tmp"
        vm_netdevsim "$dir.tmp"
        mapfile -t sources < <(vm_apt_sources)
        [ ${#sources[@]} -gt 0 ] || fail "no apt sources on this host (/etc/apt/sources.list*)"
        fs=$dir.tmp/rootfs
        mmdebstrap --variant=minbase --mode=root \
                --include="$(IFS=,; echo "${VM_GUEST_PACKAGES[*]},linux-image-$VM_KVER")" \
                --customize-hook='chroot "$1" passwd -d root' \
                --customize-hook='rm -f "$1/etc/resolv.conf"' \
                "$(. /etc/os-release && echo "$VERSION_CODENAME")" "$fs" "${sources[@]}" \
                >"$TEST_DIR/logs/mmdebstrap.log" 2>&1 ||
                fail "mmdebstrap failed (see $TEST_DIR/logs/mmdebstrap.log)"
        [ -e "$fs/boot/vmlinuz-$VM_KVER" ] || fail "the guest got no /boot/vmlinuz-$VM_KVER: the archive moved during the build; run again"
        install -D -m 0644 "$dir.tmp/netdevsim.ko" "$fs/lib/modules/$VM_KVER/updates/netdevsim.ko"
        chroot "$fs" depmod -a "$VM_KVER"
        vm_image_configure "$fs"
        mkfs.ext4 -q -F -L halod-vm -d "$fs" "$dir.tmp/base.img" 3G || fail "mkfs.ext4 -d of the guest rootfs failed"
        cp "$fs/boot/vmlinuz-$VM_KVER" "$dir.tmp/vmlinuz"
        cp "$fs/boot/initrd.img-$VM_KVER" "$dir.tmp/initrd.img"
        echo "$VM_KVER $VM_KPKGVER" >"$dir.tmp/kver"
        rm -rf "$fs"
        mv "$dir.tmp" "$dir"
        log "guest image: $(du -h "$dir/base.img" | cut -f1) used"
}

# vm_image_configure ROOTFS: the agent that gives the host a control channel under systemd, and what
# a test guest has no use for (gettys, timers).
vm_image_configure() {
        local fs=$1 g=$SOURCE_DIR/tests/vm/guest
        install -m 0755 "$g/vm-agent" "$fs/usr/local/sbin/vm-agent"
        install -m 0644 "$g/vm-agent.service" "$fs/etc/systemd/system/vm-agent.service"
        mkdir -p "$fs/etc/systemd/system/multi-user.target.wants" "$fs/io" "$fs/host"
        ln -sf /etc/systemd/system/vm-agent.service "$fs/etc/systemd/system/multi-user.target.wants/vm-agent.service"
        for u in serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service e2scrub_reap.service \
                e2scrub_all.timer fstrim.timer apt-daily.timer apt-daily-upgrade.timer; do
                ln -sf /dev/null "$fs/etc/systemd/system/$u"
        done
        printf '/dev/vda / ext4 rw,noatime 0 1\n' >"$fs/etc/fstab"
        printf 'halo\n' >"$fs/etc/hostname"
        # the guests resolve each other by name (halod's profile uses hostnames to pick the node)
        printf '127.0.0.1 localhost\n' >"$fs/etc/hosts"
}
