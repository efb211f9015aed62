#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds (once per machine) the minimal Debian root file system that the end-to-end test boots with
# systemd-nspawn, and prints the path of the ready tree on stdout.
#
# Usage: tests/e2e/rootfs.sh [EXTRA_PACKAGE...]
#
# The tree is built with debootstrap from the mirror that apt on this machine already uses and is
# cached in $HALOD_E2E_CACHE (default /var/tmp/halod-e2e) as rootfs-<key>.tar.zst plus the unpacked
# tree root-<key>/, where <key> is a hash of the release, the architecture, the package list and
# RECIPE below: a new package (or a new recipe) builds a new tree, an unchanged one is reused. A lock
# keeps two runs from building at once. The tree is only ever booted with --volatile=overlay or
# through an overlay, so it stays clean.
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
PACKAGES=(
        systemd systemd-sysv dbus iproute2 iputils-ping procps
        network-manager firewalld netbase polkitd libpam-systemd
        libyaml-0-2 libmnl0 libnm0 libibverbs1 libpci3 pci.ids
)
# Bump when the steps after debootstrap change, so every cache is rebuilt.
RECIPE=1

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
# suite is this release's codename. HALOD_E2E_MIRROR overrides it.
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
        [ "$(id -u)" -eq 0 ] || missing "must run as root (debootstrap)"
        local t
        for t in debootstrap zstd tar flock sha256sum dpkg; do
                command -v "$t" >/dev/null 2>&1 || missing "'$t' not found; install it with tools/deps test"
        done
        local codename arch
        codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
        [ -n "$codename" ] || missing "/etc/os-release names no VERSION_CODENAME; the e2e rootfs is built for a Debian host"
        arch=$(dpkg --print-architecture)

        local pkgs
        pkgs=$(printf '%s\n' "${PACKAGES[@]}" "$@" | sort -u | paste -sd, -)
        local key
        key=$(printf '%s\n' "$codename" "$arch" "$pkgs" "recipe=$RECIPE" | sha256sum | cut -c1-16)
        local tree=$CACHE/root-$key tarball=$CACHE/rootfs-$key.tar.zst

        mkdir -p "$CACHE"
        exec 9>"$CACHE/lock"
        flock -w 1800 9 || { say "timed out waiting for $CACHE/lock (another run building the rootfs?)"; exit 1; }

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
        mirror=$(find_mirror "$codename") || missing "no 'deb' source for $codename in /etc/apt/sources.list*; set HALOD_E2E_MIRROR to a Debian mirror URL"
        say "building $tree ($codename/$arch from $mirror; packages: $pkgs); log in $CACHE/build-$key.log"
        local start=$SECONDS
        if ! debootstrap --variant=minbase --components=main --include="$pkgs" --arch="$arch" \
                "$codename" "$tree.tmp" "$mirror" >"$CACHE/build-$key.log" 2>&1; then
                cat "$tree.tmp/debootstrap/debootstrap.log" >>"$CACHE/build-$key.log" 2>/dev/null || true
                grep -E '^(E:|W:)|dpkg: (error|dependency)|depends on' "$CACHE/build-$key.log" | tail -n 40 >&2 || true
                say "debootstrap failed (full log: $CACHE/build-$key.log)"
                rm -rf "$tree.tmp"
                exit 1
        fi
        # The test gives each container its hostname (systemd-nspawn --hostname); debootstrap copied
        # the host's. The downloaded packages are not needed to boot.
        rm -f "$tree.tmp/etc/hostname" "$tree.tmp"/var/cache/apt/archives/*.deb
        rm -rf "$tree.tmp"/var/lib/apt/lists/*
        printf '%s\n' "$codename" "$arch" "$pkgs" "recipe=$RECIPE" >"$tree.tmp/.halod-e2e-ready"
        tar --zstd -cpf "$tarball.tmp" --numeric-owner --xattrs --xattrs-include='*' -C "$tree.tmp" .
        mv "$tarball.tmp" "$tarball"
        mv "$tree.tmp" "$tree"
        say "built in $((SECONDS - start)) s: $(du -sh "$tree" | cut -f1) tree, $(du -h "$tarball" | cut -f1) tarball"

        # Drop the trees and tarballs of older package lists that no run has used for a day.
        find "$CACHE" -maxdepth 1 \( -name 'root-*' -o -name 'rootfs-*.tar.zst' -o -name 'build-*.log' \) \
                ! -name "*$key*" -mtime +1 -exec rm -rf {} + 2>/dev/null || true
        echo "$tree"
}

main "$@"
