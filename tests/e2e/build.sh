#!/bin/bash
# SPDX-License-Identifier: MIT
# What both e2e tests (test-e2e.sh, test-ansible.sh) build from the tree: halod built to install where
# a distribution package would, and the test profile derived from the shipped conf/halod.yaml.
# Sourced after tests/integration/lib.sh (fail, skip, TEST_DIR), with BUILD_DIR and SOURCE_DIR set.

# e2e_build: builds halod with prefix /usr and sysconfdir /etc and sets E2E_BUILD to its build
# directory: the calling build when it installs there and has no sanitizer, else a plain build of the
# same tree in $BUILD_DIR/e2e-usr (kept between runs). Logs go to $TEST_DIR/logs.
e2e_build() {
        local settings
        E2E_BUILD=$BUILD_DIR
        settings=$(meson introspect --buildoptions "$BUILD_DIR" | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["sysconfdir"], o.get("b_sanitize", "none"))') || fail "cannot read the meson options of $BUILD_DIR"
        mkdir -p "$TEST_DIR/logs"
        if [ "$settings" != "/usr /etc none" ]; then
                E2E_BUILD=$BUILD_DIR/e2e-usr
                pkg-config --exists libnm || skip "libnm (pkg-config libnm) not found; the e2e tests need the NetworkManager backend: tools/deps test"
                if [ ! -f "$E2E_BUILD/build.ninja" ]; then
                        rm -rf "$E2E_BUILD"
                        meson setup "$E2E_BUILD" "$SOURCE_DIR" -Dprefix=/usr -Dsysconfdir=/etc -Dlibnm=enabled \
                                >"$TEST_DIR/logs/meson-setup.log" 2>&1 ||
                                fail "meson setup of $E2E_BUILD failed (see $TEST_DIR/logs/meson-setup.log)"
                fi
        fi
        if ! ninja -C "$E2E_BUILD" >"$TEST_DIR/logs/ninja.log" 2>&1; then
                tail -n 40 "$TEST_DIR/logs/ninja.log" >&2
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
