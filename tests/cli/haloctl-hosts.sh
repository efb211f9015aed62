#!/bin/bash
# SPDX-License-Identifier: MIT
# hosts.<node> and the /etc/hosts lines of haloctl plan, with --root reading the fixture
# tests/data/hosts/hosts-names/etc/hosts: halo-2 on the fabric, halo-3 on the management network, halo-4
# nowhere; the exact lines and the exit codes.
# Usage: haloctl-hosts.sh HALOCTL SOURCE_DIR
set -uo pipefail

. "$(dirname "$0")/lib.sh"
cli_setup hosts-cli "$@"

cat >"$profile" <<'YAML'
cluster: strix-halo
links:
  rdma0: { match: { driver: ice } }
nodes:
  head:   { hostname: halo-1, links: { rdma0: 192.168.100.1/24 } }
  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/24 } }
  third:  { hostname: halo-3, links: { rdma0: 192.168.100.3/24 } }
  fourth: { hostname: halo-4, links: { rdma0: 192.168.100.4/24 } }
  fifth:  { links: { rdma0: 192.168.100.5/24 } }
YAML
chmod 644 "$profile"
root=$hosts/hosts-names
file=$root/etc/hosts

check "check hosts." 2 check --root "$root" --node head --only hosts. "$profile"
line "check hosts." "pass  hosts.worker  halo-2 (node worker) resolves to its fabric address 192.168.100.2 (looked up through $file)"
line "check hosts." "fail  hosts.third   halo-3 resolves to 10.0.0.13 (the management network?), not 192.168.100.3 (looked up through $file): Ray, vLLM and RCCL would reach it over the slow path; put \"192.168.100.3 halo-3\" in /etc/hosts before other entries of the name, or set health.hosts: manage"
line "check hosts." "fail  hosts.fourth  halo-4 (node fourth) does not resolve here (looked up through $file): Ray, vLLM and RCCL cannot reach it by name; add \"192.168.100.4 halo-4\" to /etc/hosts, or set health.hosts: manage"
line "check hosts." "skip  hosts.fifth   node fifth has no hostname in the profile: nothing to resolve (add hostname: to check the name the workload uses)"
line "check hosts." "4 checks: 1 pass, 0 warn, 2 fail, 1 skip"
expect_not "check hosts." "$tmp/out" "hosts\.head"

# A node of the cluster seen from another: its own name is never asked, head's is.
check "from worker" 2 check --root "$root" --node worker --only hosts.head "$profile"
line "from worker" "fail  hosts.head  halo-1 resolves to 10.0.0.11 (the management network?), not 192.168.100.1 (looked up through $file): Ray, vLLM and RCCL would reach it over the slow path; put \"192.168.100.1 halo-1\" in /etc/hosts before other entries of the name, or set health.hosts: manage"

# health.hosts: manage: plan shows the block's lines (the fixture has no links to plan: the link
# cannot be applied, which is exit 2, and the /etc/hosts lines are there all the same).
printf 'health: { hosts: manage }\n' >>"$profile"
check "plan" 2 plan --root "$root" --node head "$profile"
expect_not "plan" "$tmp/out" "halo-1"
line "plan" "/etc/hosts: + 192.168.100.2 halo-2"
line "plan" "/etc/hosts: + 192.168.100.3 halo-3"
line "plan" "/etc/hosts: + 192.168.100.4 halo-4"

# An earlier block: what it has that the profile does not is taken out, what it has is kept.
mkdir -p "$tmp/root/etc"
{
        cat "$file"
        printf '# BEGIN halod (cluster strix-halo): the fabric names of the other nodes\n'
        printf '192.168.100.2 halo-2\n192.168.100.9 halo-9\n# END halod\n'
} >"$tmp/root/etc/hosts"
check "plan over a block" 2 plan --root "$tmp/root" --node head "$profile"
line "plan over a block" "/etc/hosts: - 192.168.100.9 halo-9"
line "plan over a block" "/etc/hosts: + 192.168.100.3 halo-3"
expect_not "plan over a block" "$tmp/out" "halo-2"

# apply --only hosts.: the block alone (what halod-helper.service runs for halod), written whatever
# the links are (this fixture has none to apply); again, nothing to change. Root only.
if [ "$(id -u)" = 0 ]; then
        check "apply --only hosts." 2 apply --root "$tmp/root" --node head --only hosts. "$profile"
        line "apply --only hosts." "/etc/hosts: - 192.168.100.9 halo-9"
        line "apply --only hosts." "/etc/hosts: + 192.168.100.3 halo-3"
        line "apply --only hosts." "pass  hosts.fourth  halo-4 (node fourth) resolves to its fabric address 192.168.100.4 (looked up through $tmp/root/etc/hosts)"
        expect_not "apply --only hosts." "$tmp/out" "link\."
        check "apply --only hosts. again" 2 apply --root "$tmp/root" --node head --only hosts. "$profile"
        line "apply --only hosts. again" "nothing to change: /etc/hosts already names the other nodes as the profile says"
else
        check "apply --only hosts. (not root)" 77 apply --root "$tmp/root" --node head --only hosts. "$profile"
fi
check "apply --only link." 64 apply --root "$tmp/root" --node head --only link. "$profile"
expect "apply --only link." "$tmp/err" "unknown part 'link\.' in 'link\.': the parts are hosts\."
check "apply --only cdi,bogus" 64 apply --root "$tmp/root" --node head --only cdi,bogus "$profile"
expect "apply --only cdi,bogus" "$tmp/err" "unknown part 'bogus' in 'cdi,bogus'"
check "apply --only \"\"" 64 apply --root "$tmp/root" --node head --only "" "$profile"
expect "apply --only \"\"" "$tmp/err" "needs a part: hosts\., cdi, networkd, boot, limits or modules"
# The backends' names come from their table.
check "apply --backend bogus" 64 apply --backend bogus --root "$tmp/root" --node head "$profile"
expect "apply --backend bogus" "$tmp/err" "^Unknown --backend 'bogus': expected networkmanager, networkd or netlink\.$"

# This node's own name: Debian's installer maps it to 127.0.1.1 (netcfg), which Gloo would announce.
mkdir -p "$tmp/debian/etc"
printf '127.0.0.1\tlocalhost\n127.0.1.1\thalo-1.lab.example\thalo-1\n' >"$tmp/debian/etc/hosts"
echo halo-1 >"$tmp/debian/etc/hostname"
check "node.hostname on Debian's /etc/hosts" 2 check --root "$tmp/debian" --node head --only node.hostname "$profile"
expect "node.hostname on Debian's /etc/hosts" "$tmp/out" '^fail  node\.hostname  this node.s hostname halo-1 resolves to the loopback address 127\.0\.1\.1 .*line 2 of /etc/hosts, "127\.0\.1\.1.halo-1\.lab\.example.halo-1".*make that line "192\.168\.100\.1 halo-1"'
printf '127.0.0.1\tlocalhost\n192.168.100.1\thalo-1.lab.example\thalo-1\n' >"$tmp/debian/etc/hosts"
check "node.hostname fixed" 0 check --root "$tmp/debian" --node head --only node.hostname "$profile"
expect "node.hostname fixed" "$tmp/out" '^pass  node\.hostname  this node.s hostname halo-1 resolves to 192\.168\.100\.1, its fabric address'

# validate names the policy.
check "validate" 0 validate "$profile"
expect "validate" "$tmp/out" "/etc/hosts"

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed ($passes checks)"
