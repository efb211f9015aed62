#!/bin/bash
# SPDX-License-Identifier: MIT
# What the e2e tests (test-e2e.sh, test-ansible.sh) and the vm suite (tests/vm) build from the tree:
# halod built to install where a distribution package would, its Debian package (build_package), and
# the test profile derived from the shipped conf/halod.yaml.
# Sourced after tests/integration/lib.sh (fail, skip, TEST_DIR), with BUILD_DIR and SOURCE_DIR set.

# e2e_build: builds halod with prefix /usr and sysconfdir /etc and sets E2E_BUILD to its build
# directory: the calling build when it installs there and has no sanitizer, else a plain build of the
# same tree in $BUILD_DIR/e2e-usr (kept between runs). Logs go to $TEST_DIR/build-logs (not logs/,
# whose ends the harness prints on any failure: a build that failed prints its own).
e2e_build() {
        local settings
        E2E_BUILD=$BUILD_DIR
        settings=$(meson introspect --buildoptions "$BUILD_DIR" | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["sysconfdir"], o.get("b_sanitize", "none"))') || fail "cannot read the meson options of $BUILD_DIR"
        mkdir -p "$TEST_DIR/build-logs"
        if [ "$settings" != "/usr /etc none" ]; then
                E2E_BUILD=$BUILD_DIR/e2e-usr
                pkg-config --exists libnm || skip "libnm (pkg-config libnm) not found; the e2e tests need the NetworkManager backend: tools/deps test"
                if [ ! -f "$E2E_BUILD/build.ninja" ]; then
                        rm -rf "$E2E_BUILD"
                        meson setup "$E2E_BUILD" "$SOURCE_DIR" -Dprefix=/usr -Dsysconfdir=/etc -Dlibnm=enabled \
                                >"$TEST_DIR/build-logs/meson-setup.log" 2>&1 ||
                                fail "meson setup of $E2E_BUILD failed (see $TEST_DIR/build-logs/meson-setup.log)"
                fi
        fi
        if ! ninja -C "$E2E_BUILD" >"$TEST_DIR/build-logs/ninja.log" 2>&1; then
                tail -n 40 "$TEST_DIR/build-logs/ninja.log" >&2
                fail "building $E2E_BUILD failed"
        fi
}

# e2e_profile IFNAME OUT: the shipped conf/halod.yaml with the fabric link matched by name (the
# containers have a veth, not an E810) and without the nic, rdma, kernel, gpu and memory-min sections
# (no E810, no RDMA device, the host's kernel command line, no Strix Halo iGPU, a container's memory),
# re-checked every 5 s instead of every minute, so that a node notices its peer's reboot quickly.
e2e_profile() {
        local ifname=$1 out=$2
        awk -v ifname="$ifname" '
                /^[A-Za-z]/ { section = $1; sub(/:.*/, "", section) }
                section == "nic" || section == "rdma" || section == "kernel" || section == "gpu" || section == "memory-min" { next }
                section == "links" && /^[ ]+match:/ { sub(/match:.*/, "match: { name: \"" ifname "\" }") }
                section == "health" && /^[ ]+interval:/ { sub(/interval:[ ]*[^ ]+/, "interval: 5s") }
                { print }' "$SOURCE_DIR/conf/halod.yaml" >"$out"
        grep -q "match: { name: \"$ifname\" }" "$out" ||
                fail "could not derive the test profile from conf/halod.yaml (no links.<name>.match line found)"
        grep -q "^  interval: 5s" "$out" ||
                fail "could not derive the test profile from conf/halod.yaml (no health.interval line found)"
}

# build_package: halod's Debian package from this tree (packaging/build-deb.sh --nocheck: the
# packaging suite runs its check), as $PAYLOAD/halod.deb. Kept in $BUILD_DIR/e2e-deb/<hash of the
# tree's files>/, so the three stacks, the vm suite (tests/vm) and later runs of an unchanged tree build it once. Returns 1
# when it cannot be built here (its log is printed).
build_package() {
        local key='' dir deb
        if ! command -v dpkg-buildpackage >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1; then
                log "dpkg-buildpackage or dh not found (tools/deps test installs dpkg-dev and debhelper)"
                return 1
        fi
        key=$(cd "$SOURCE_DIR" &&
                GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$SOURCE_DIR" \
                        git --no-optional-locks ls-files -z --cached --others --exclude-standard 2>/dev/null |
                while IFS= read -r -d '' f; do [ ! -f "$f" ] || printf '%s\0' "$f"; done |
                        xargs -0 -r sha256sum | sha256sum | cut -c1-16) || key=''
        [ -n "$key" ] && [ "$key" != "$(printf '' | sha256sum | cut -c1-16)" ] || key=nocache-$$
        dir=$BUILD_DIR/e2e-deb/$key
        if [ ! -f "$dir/halod.deb" ]; then
                rm -rf "$BUILD_DIR/e2e-deb"
                mkdir -p "$dir.tmp" "$TEST_DIR/build-logs"
                log "building the Debian package (packaging/build-deb.sh --nocheck) into $dir"
                deb=$(bash "$SOURCE_DIR/packaging/build-deb.sh" --nocheck "$dir.tmp" 2>"$TEST_DIR/build-logs/build-deb.log") || {
                        cat "$TEST_DIR/build-logs/build-deb.log" >&2
                        return 1
                }
                mv "$deb" "$dir.tmp/halod.deb"
                mv "$dir.tmp" "$dir"
        fi
        cp "$dir/halod.deb" "$PAYLOAD/halod.deb"
        log "installing the package $(dpkg-deb -f "$PAYLOAD/halod.deb" Package)_$(dpkg-deb -f "$PAYLOAD/halod.deb" Version) ($dir)"
}

# e2e_plain_haloctl: sets HALOCTL to the calling build's haloctl, to run in a container of the e2e
# rootfs, which has its shared libraries (libsystemd, libyaml, libmnl) but not a sanitizer's runtime:
# a sanitizer build skips.
e2e_plain_haloctl() {
        local sanitize
        sanitize=$(meson introspect --buildoptions "$BUILD_DIR" |
                python3 -c 'import json, sys; print({x["name"]: x["value"] for x in json.load(sys.stdin)}.get("b_sanitize", "none"))')
        [ "$sanitize" = none ] || skip "haloctl of a sanitizer build ($sanitize) does not run in the container"
        HALOCTL=$BUILD_DIR/daemon/haloctl
        [ -x "$HALOCTL" ] || fail "$HALOCTL not built"
}
