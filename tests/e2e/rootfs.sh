#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds (once per machine) the minimal Debian root file system that the end-to-end test boots with
# systemd-nspawn, and prints the path of the ready tree on stdout.
#
# Usage: tests/e2e/rootfs.sh [--stack STACK] [EXTRA_PACKAGE...]
#
# STACK (default debian12-nm) is the generation and network stack the tree carries:
#   debian12-nm        Debian 12 "bookworm": systemd 252, NetworkManager 1.42, firewalld 1.3
#   debian13-nm        Debian 13 "trixie": systemd 257, NetworkManager 1.52, firewalld 2.3
#   debian13-networkd  Debian 13 with systemd-networkd enabled and neither NetworkManager nor
#                      firewalld: the shape of an Ubuntu 24.04 server (netplan over networkd, no
#                      firewalld; Ubuntu's firewall is ufw)
# The tree is built with debootstrap from the Debian mirror that apt on this machine already uses
# (any release of the same archive) and is cached in $HALOD_E2E_CACHE (default /var/tmp/halod-e2e)
# as rootfs-<stack>-<key>.tar.zst plus the unpacked tree root-<stack>-<key>/, where <key> is a hash
# of the release, the architecture, the package list and RECIPE below: a new package (or a new
# recipe) builds a new tree, an unchanged one is reused. A lock per stack keeps two runs from
# building the same tree at once. The tree is only ever booted with --volatile=overlay or through an
# overlay, so it stays clean.
#
# Cold build on the reference machine (2 vCPU, deb.debian.org): see tests/e2e/README.md.
# Exit status: 0 ready; 77 a prerequisite is missing (1 when CI=true); 1 the build failed.
set -euo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8

CACHE=${HALOD_E2E_CACHE:-/var/tmp/halod-e2e}

# What halod needs at run time (libraries of daemon/halod and daemon/haloctl; the test passes any
# library it finds with ldd that is not here as EXTRA_PACKAGE), the services it works with, and the
# tools the test drives it with. NetworkManager and firewalld need polkitd, which needs a logind
# that only libpam-systemd provides (debootstrap does not resolve that alternative by itself);
# firewalld needs /etc/protocols (netbase) or it refuses its stock zones ("INVALID_PROTOCOL: esp").
# halod's Debian package depends on libnm0 (its NetworkManager module links it) on every stack, and
# on acl (its postinst's setfacl).
PACKAGES=(
        systemd systemd-sysv dbus iproute2 iputils-ping procps
        netbase polkitd libpam-systemd
        libyaml-0-2 libmnl0 libnm0 libibverbs1 libpci3 pci.ids acl
)
# What each stack adds: its release and its network services (networkd and networkctl are part of
# the systemd package in Debian 12 and 13; debootstrap knows no systemd-networkd package in 13).
declare -A STACK_RELEASE=([debian12-nm]=bookworm [debian13-nm]=trixie [debian13-networkd]=trixie)
declare -A STACK_PACKAGES=(
        [debian12-nm]="network-manager firewalld"
        [debian13-nm]="network-manager firewalld"
        [debian13-networkd]=""
)
# Bump when the steps after debootstrap change, so every cache is rebuilt.
RECIPE=2

say() { echo "rootfs.sh: $*" >&2; }

missing() {
        if [ "${CI:-}" = true ]; then
                say "FAIL (CI=true, prerequisite missing): $*"
                exit 1
        fi
        say "SKIP: $*"
        exit 77
}

# The Debian mirror apt uses here: the first "deb" source (deb822 .sources or one-line .list) whose
# suite is this host's release (CODENAME); it serves every release of the archive. HALOD_E2E_MIRROR
# overrides it.
find_mirror() {
        local codename=$1 f found=''
        if [ -n "${HALOD_E2E_MIRROR:-}" ]; then
                echo "$HALOD_E2E_MIRROR"
                return 0
        fi
        for f in /etc/apt/sources.list.d/*.sources; do
                [ -f "$f" ] || continue
                # deb822: blank-line separated stanzas of "Key: value" lines.
                found=$(awk -v want="$codename" '
                        function flush() {
                                if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && enabled != "no" && uris != "") {
                                        split(uris, u, " "); print u[1]; done = 1; exit
                                }
                                types = suites = uris = enabled = ""
                        }
                        /^[ \t]*#/ { next }
                        /^[ \t]*$/ { flush(); next }
                        { key = tolower($1); sub(/^[^:]*:[ \t]*/, ""); }
                        key == "types:" { types = $0 } key == "suites:" { suites = $0 }
                        key == "uris:" { uris = $0 } key == "enabled:" { enabled = tolower($0) }
                        END { if (!done) flush() }' "$f")
                [ -z "$found" ] || break
        done
        if [ -z "$found" ]; then
                for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
                        [ -f "$f" ] || continue
                        # deb [options] URI SUITE COMPONENT...
                        found=$(sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
                                awk -v want="$codename" '$1 == "deb" && $3 == want && !n++ { print $2 }')
                        [ -z "$found" ] || break
                done
        fi
        [ -n "$found" ] && echo "$found"
}

main() {
        local stack=debian12-nm
        if [ "${1:-}" = --stack ]; then
                stack=${2:?--stack needs a value}
                shift 2
        fi
        [ -n "${STACK_RELEASE[$stack]:-}" ] || { say "unknown stack '$stack' (known: ${!STACK_RELEASE[*]})"; exit 1; }
        [ "$(id -u)" -eq 0 ] || missing "must run as root (debootstrap)"
        local t
        for t in debootstrap zstd tar flock sha256sum dpkg; do
                command -v "$t" >/dev/null 2>&1 || missing "'$t' not found; install it with tools/deps test"
        done
        local host_codename codename=${STACK_RELEASE[$stack]} arch
        host_codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
        [ -n "$host_codename" ] || missing "/etc/os-release names no VERSION_CODENAME; the e2e rootfs is built on a Debian host"
        arch=$(dpkg --print-architecture)

        local pkgs
        # shellcheck disable=SC2086 # a stack's list is words
        pkgs=$(printf '%s\n' "${PACKAGES[@]}" ${STACK_PACKAGES[$stack]} "$@" | sort -u | paste -sd, -)
        local key
        key=$(printf '%s\n' "$codename" "$arch" "$pkgs" "recipe=$RECIPE" | sha256sum | cut -c1-16)
        local tree=$CACHE/root-$stack-$key tarball=$CACHE/rootfs-$stack-$key.tar.zst

        mkdir -p "$CACHE"
        exec 9>"$CACHE/lock-$stack"
        flock -w 1800 9 || { say "timed out waiting for $CACHE/lock-$stack (another run building the rootfs?)"; exit 1; }

        if [ -e "$tree/.halod-e2e-ready" ]; then
                touch "$tree" "$tree/.halod-e2e-ready" "$tarball" 2>/dev/null || true
                echo "$tree"
                return 0
        fi
        rm -rf "$tree" "$tree.tmp"
        if [ -s "$tarball" ]; then
                say "unpacking cached $tarball"
                mkdir "$tree.tmp"
                tar --zstd -xpf "$tarball" --numeric-owner --xattrs --xattrs-include='*' -C "$tree.tmp"
                mv "$tree.tmp" "$tree"
                echo "$tree"
                return 0
        fi

        local mirror
        mirror=$(find_mirror "$host_codename") || missing "no 'deb' source for $host_codename in /etc/apt/sources.list*; set HALOD_E2E_MIRROR to a Debian mirror URL"
        say "building $tree ($stack: $codename/$arch from $mirror; packages: $pkgs); log in $CACHE/build-$stack-$key.log"
        local start=$SECONDS
        if ! debootstrap --variant=minbase --components=main --include="$pkgs" --arch="$arch" \
                "$codename" "$tree.tmp" "$mirror" >"$CACHE/build-$stack-$key.log" 2>&1; then
                cat "$tree.tmp/debootstrap/debootstrap.log" >>"$CACHE/build-$stack-$key.log" 2>/dev/null || true
                grep -E '^(E:|W:)|dpkg: (error|dependency)|depends on' "$CACHE/build-$stack-$key.log" | tail -n 40 >&2 || true
                say "debootstrap failed (full log: $CACHE/build-$stack-$key.log)"
                rm -rf "$tree.tmp"
                exit 1
        fi
        # The test gives each container its hostname (systemd-nspawn --hostname); debootstrap copied
        # the host's. The downloaded packages are not needed to boot.
        rm -f "$tree.tmp/etc/hostname" "$tree.tmp"/var/cache/apt/archives/*.deb
        # networkd is what configures the network on the networkd stack, as on an Ubuntu server
        # (Debian's package leaves it disabled); resolved is not needed.
        if [ "$stack" = debian13-networkd ]; then
                chroot "$tree.tmp" systemctl enable systemd-networkd.service >>"$CACHE/build-$stack-$key.log" 2>&1 ||
                        { say "cannot enable systemd-networkd in $tree.tmp"; rm -rf "$tree.tmp"; exit 1; }
        fi
        rm -rf "$tree.tmp"/var/lib/apt/lists/*
        printf '%s\n' "$stack" "$codename" "$arch" "$pkgs" "recipe=$RECIPE" >"$tree.tmp/.halod-e2e-ready"
        tar --zstd -cpf "$tarball.tmp" --numeric-owner --xattrs --xattrs-include='*' -C "$tree.tmp" .
        mv "$tarball.tmp" "$tarball"
        mv "$tree.tmp" "$tree"
        say "built in $((SECONDS - start)) s: $(du -sh "$tree" | cut -f1) tree, $(du -h "$tarball" | cut -f1) tarball"

        # Drop this stack's trees and tarballs of older package lists that no run has used for a day
        # (and those of the unkeyed names before stacks).
        find "$CACHE" -maxdepth 1 \( -name "root-$stack-*" -o -name "rootfs-$stack-*.tar.zst" -o -name "build-$stack-*.log" \
                -o -regex '.*/root-[0-9a-f]+' -o -regex '.*/rootfs-[0-9a-f]+\.tar\.zst' -o -regex '.*/build-[0-9a-f]+\.log' \) \
                ! -name "*$key*" -mtime +1 -exec rm -rf {} + 2>/dev/null || true
        echo "$tree"
}

main "$@"
