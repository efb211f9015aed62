#!/bin/bash
# SPDX-License-Identifier: MIT
# rdma.limits: manage and rdma.modules: manage on host trees: the exact lines of haloctl plan --root,
# the files haloctl apply --root --only limits,modules writes (marked, in each reader's syntax), a
# second apply that changes nothing, a file of the user's that is never written over, a failed step
# that puts back what was written, and apply --undo. apply needs root (it writes root's files).
# Usage: haloctl-rdma-setup.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup rdma-setup-cli "$@"

cli_require_root

# same NAME FILE TEXT: the file holds exactly TEXT (printf's escapes).
same() {
        if [ "$(cat "$2" 2>&1)" != "$(printf "$3")" ]; then
                echo "FAIL $1: $2 is not as expected:"
                sed 's/^/  got: /' "$2" 2>&1
                failures=$((failures + 1))
        fi
}

# absent NAME PATH
absent() {
        if [ -e "$2" ]; then
                echo "FAIL $1: $2 exists"
                failures=$((failures + 1))
        fi
}

# tree NAME: a host tree with /etc/systemd, limits.d and modules-load.d as a systemd host has them.
tree() {
        mkdir -p "$tmp/$1/etc/systemd" "$tmp/$1/etc/security/limits.d" "$tmp/$1/etc/modules-load.d" \
                "$tmp/$1/sys/module"
        echo "$tmp/$1"
}

write_profile() { # DRIVER MEMLOCK
        cat >"$profile" <<YAML
cluster: strix-halo
links:
  rdma0: { match: { driver: $1 } }
nic: { driver: $1 }
rdma: { required: true, memlock: $2, limits: manage, modules: manage }
nodes:
  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }
YAML
        chmod 644 "$profile"
}

SYSTEMD=/etc/systemd/system.conf.d/90-halod-memlock.conf
LIMITS=/etc/security/limits.d/90-halod-memlock.conf
PODMAN=/etc/containers/containers.conf.d/90-halod-memlock.conf
MODULES=/etc/modules-load.d/halod-rdma.conf
MARK="# Written by halod (haloctl apply); remove with haloctl apply --undo"

# E810, irdma loaded, rdma_ucm not, no podman. The tree has no links, so the links' part cannot be
# planned (exit 2); the RDMA setup lines are there all the same.
write_profile ice unlimited
root=$(tree e810)
mkdir "$root/sys/module/irdma"
check "plan e810" 2 plan --root "$root" --node head "$profile"
line "plan e810" "limits: write $SYSTEMD (DefaultLimitMEMLOCK=infinity): for services started after \`systemctl daemon-reexec\` (or a reboot)"
line "plan e810" "limits: write $LIMITS (* and root - memlock unlimited): for login sessions opened from now on"
line "plan e810" "modules: write $MODULES (irdma rdma_ucm): at each boot (systemd-modules-load.service)"
line "plan e810" "modules: load rdma_ucm now (systemctl restart systemd-modules-load.service)"
expect_not "plan e810" "$tmp/out" "containers"

check "apply e810" 0 apply --root "$root" --node head --only limits,modules "$profile"
line "apply e810" "limits: wrote $SYSTEMD (DefaultLimitMEMLOCK=infinity)"
line "apply e810" "modules: not loaded now: --root names a tree, not the running kernel"
same "systemd drop-in" "$root$SYSTEMD" "$MARK limits\n[Manager]\nDefaultLimitMEMLOCK=infinity\n"
same "limits.d" "$root$LIMITS" "$MARK limits\n*\t-\tmemlock\tunlimited\nroot\t-\tmemlock\tunlimited\n"
same "modules-load.d" "$root$MODULES" "$MARK modules\nirdma\nrdma_ucm\n"
# Once rdma_ucm is loaded too, a second apply changes nothing, and the plan has no RDMA line.
mkdir "$root/sys/module/rdma_ucm"
before=$(stat -c %Y.%i "$root$SYSTEMD")
check "apply again" 0 apply --root "$root" --node head --only limits,modules "$profile"
line "apply again" "nothing to change: the memlock limits and RDMA modules halod owns are as the profile says"
[ "$(stat -c %Y.%i "$root$SYSTEMD")" = "$before" ] || { echo "FAIL apply again: $SYSTEMD was written again"; failures=$((failures + 1)); }
check "plan after" 2 plan --root "$root" --node head "$profile"
expect_not "plan after" "$tmp/out" "^(limits|modules): (write|rewrite|load|cannot)"
# The files halod owns, listed as they are.
line "plan after" "limits: nothing to change: $SYSTEMD is halod's, as the profile says (DefaultLimitMEMLOCK=infinity)"
line "plan after" "modules: nothing to change: $MODULES is halod's, as the profile says (irdma rdma_ucm)"

# A size: bytes for systemd, KiB (rounded up) for pam_limits, soft:hard bytes for podman; ConnectX's
# driver; podman installed. The old files are rewritten, not added to.
write_profile mlx5_core 64M
mkdir -p "$root/usr/bin" "$root/etc/containers"
: >"$root/usr/bin/podman"
check "plan connectx" 2 plan --root "$root" --node head "$profile"
line "plan connectx" "limits: rewrite $SYSTEMD (DefaultLimitMEMLOCK=67108864): for services started after \`systemctl daemon-reexec\` (or a reboot)"
line "plan connectx" "limits: rewrite $LIMITS (* and root - memlock 65536): for login sessions opened from now on"
line "plan connectx" "limits: write $PODMAN (default_ulimits = [\"memlock=67108864:67108864\"]): for podman containers started from now on"
line "plan connectx" "modules: rewrite $MODULES (mlx5_ib rdma_ucm): at each boot (systemd-modules-load.service)"
line "plan connectx" "modules: load mlx5_ib now (systemctl restart systemd-modules-load.service)"
check "apply connectx" 0 apply --root "$root" --node head --only limits "$profile"
same "containers.conf.d" "$root$PODMAN" "$MARK limits\n[containers]\ndefault_ulimits = [\"memlock=67108864:67108864\"]\n"
same "modules untouched by --only limits" "$root$MODULES" "$MARK modules\nirdma\nrdma_ucm\n"

# apply --undo: halod's files go, the user's stay.
printf '* - memlock 1024\n' >"$root/etc/security/limits.d/80-mine.conf"
check "undo" 0 apply --root "$root" --undo limits,modules
line "undo" "limits: removed $root$SYSTEMD"
line "undo" "modules: removed $root$MODULES"
absent "undo" "$root$SYSTEMD"
absent "undo" "$root$LIMITS"
absent "undo" "$root$PODMAN"
absent "undo" "$root$MODULES"
[ -f "$root/etc/security/limits.d/80-mine.conf" ] || { echo "FAIL undo: the user's file was removed"; failures=$((failures + 1)); }
check "undo again" 0 apply --root "$root" --undo limits
line "undo again" "limits: halod has no files here"
check "undo unknown" 64 apply --root "$root" --undo limit
grep -Fq "unknown part 'limit' in 'limit': the parts are boot (the kernel command line of kernel.boot: manage), limits" "$tmp/err" ||
        { echo "FAIL undo unknown: the message does not name boot, limits and modules"; cat "$tmp/err"; failures=$((failures + 1)); }

# The user's own file where halod's would go: refused, and nothing of the plan is written.
write_profile ice unlimited
root=$(tree foreign)
printf '* soft memlock 64\n' >"$root$LIMITS"
check "plan foreign" 2 plan --root "$root" --node head "$profile"
line "plan foreign" "limits: cannot write $LIMITS (* and root - memlock unlimited): it is not halod's (its first line is not halod's marker): move your settings to another file of the directory, or remove it"
check "apply foreign" 2 apply --root "$root" --node head --only limits,modules "$profile"
expect "apply foreign" "$tmp/err" "nothing of the RDMA setup was written"
absent "apply foreign" "$root$SYSTEMD"
absent "apply foreign" "$root$MODULES"
same "apply foreign" "$root$LIMITS" "* soft memlock 64\n"

# A step that fails after others were written: they are put back as they were (the systemd drop-in
# absent, the limits.d file with its old content).
root=$(tree rollback)
mkdir -p "$root/usr/bin"
: >"$root/usr/bin/podman" # and no /etc/containers, which halod does not make
printf '%s limits\n* - memlock 1\n' "$MARK" >"$root$LIMITS"
check "apply rollback" 2 apply --root "$root" --node head --only limits "$profile"
expect "apply rollback" "$tmp/err" "cannot write $PODMAN: .*; the files written were put back"
absent "apply rollback" "$root$SYSTEMD"
same "apply rollback" "$root$LIMITS" "$MARK limits\n* - memlock 1\n"

# The user's block of the module: halod does not overrule it.
root=$(tree blocked)
mkdir -p "$root/etc/modprobe.d"
printf 'blacklist irdma\n' >"$root/etc/modprobe.d/no-irdma.conf"
check "plan blocked" 2 plan --root "$root" --node head "$profile"
line "plan blocked" "modules: irdma is kept from loading by /etc/modprobe.d/no-irdma.conf:1 (blacklist irdma): remove that first, or set rdma.modules: check"
check "apply blocked" 2 apply --root "$root" --node head --only modules "$profile"
absent "apply blocked" "$root$MODULES"

# No family: neither the profile nor sysfs says which RDMA driver.
write_profile virtio_net unlimited
root=$(tree unknown)
check "plan unknown family" 2 plan --root "$root" --node head "$profile"
line "plan unknown family" "modules: cannot tell which RDMA driver the fabric NIC needs: nic.driver is neither ice nor mlx5_core, and sysfs shows no single family of E810 or ConnectX NICs; set nic.driver"

# mode: verify: the helper's run leaves them alone.
write_profile ice unlimited
printf 'mode: verify\n' >>"$profile"
root=$(tree verify)
check "apply verify" 0 apply --root "$root" --node head --only limits,modules "$profile"
absent "apply verify" "$root$SYSTEMD"

# nic.fw-lldp-agent and nic.enable-roce are the running kernel's: below --root the plan says so; on a
# veth in a network namespace (a real netdev, with no private flags and no PCI function) the plan and
# apply say what cannot be set and why, and change nothing.
cat >"$profile" <<YAML
cluster: strix-halo
links:
  rdma0: { match: { name: n35v0 } }
nic: { driver: ice, fw-lldp-agent: off, enable-roce: true }
nodes:
  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/24 } }
YAML
chmod 644 "$profile"
check "plan nic --root" 2 plan --root "$(tree nic)" --node head "$profile"
line "plan nic --root" "nic: fw-lldp-agent and enable-roce are read from the running kernel, not below --root"
ns=n35nic$$
if ip netns add "$ns" 2>/dev/null; then
        trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT
        ip -n "$ns" link add n35v0 type veth peer name n35v1
        real_haloctl=$haloctl
        in_ns() { ip netns exec "$ns" "$real_haloctl" "$@"; }
        haloctl=in_ns
        check "plan nic veth" 2 plan --node head "$profile"
        line "plan nic veth" "nic: rdma0 (n35v0): cannot set fw-lldp-agent: its driver has no private flag fw-lldp-agent (an E810's ice has it: \`ethtool --show-priv-flags n35v0\`)"
        line "plan nic veth" "nic: rdma0 (n35v0): cannot set enable_roce: it is not a PCI function's netdev (No such device)"
        check "apply nic veth" 2 apply --backend netlink --node head "$profile"
        expect "apply nic veth" "$tmp/err" "^nic: rdma0 \(n35v0\): cannot set fw-lldp-agent"
        haloctl=$real_haloctl
        ip netns del "$ns"
else
        [ "${CI:-}" = true ] && { echo "FAIL: cannot add a network namespace"; exit 1; }
        echo "SKIP: no network namespace for the nic settings"
fi

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed ($passes checks)"
