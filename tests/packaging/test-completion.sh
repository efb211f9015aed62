#!/bin/bash
# SPDX-License-Identifier: MIT
# Sources haloctl's bash completion and checks what <Tab> offers on real command lines, the way bash
# calls it (COMP_WORDS split at COMP_WORDBREAKS, COMP_CWORD), and that its verbs are haloctl.c's.
# Needs only bash (the completion uses no bash-completion helpers) and the haloctl it completes, whose
# `check --list` gives the check ids.
# Usage: test-completion.sh SOURCE_DIR HALOCTL
set -uo pipefail

src=${1:?usage: test-completion.sh SOURCE_DIR HALOCTL}
haloctl=${2:?usage: test-completion.sh SOURCE_DIR HALOCTL}
haloctl=$(realpath "$haloctl") || exit 1
PATH=$(dirname "$haloctl"):$PATH
cd "$src" || exit 1
# shellcheck source=completion/haloctl.bash
. completion/haloctl.bash

failures=0

# complete LINE: prints the sorted candidates for the last word of LINE (a trailing space starts a
# new, empty word), split as bash does with "=" as a word of its own.
complete_line() {
        local line=$1
        local -a words
        read -r -a words <<<"${line//=/ = }"
        [[ $line == *" " ]] && words+=("")
        COMP_WORDS=("${words[@]}")
        COMP_CWORD=$((${#words[@]} - 1))
        COMP_LINE=$line
        COMP_POINT=${#line}
        COMPREPLY=()
        _haloctl haloctl "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]:-}" 2>/dev/null
        printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | paste -sd' '
}

expect() {
        local line=$1 want=$2 got
        got=$(complete_line "$line")
        if [[ $got == "$want" ]]; then
                echo "ok   '$line' -> $got"
        else
                echo "FAIL '$line': expected [$want], got [$got]" >&2
                failures=$((failures + 1))
        fi
}

tmp=$(mktemp -d /tmp/halod-test-pkg-compl-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# A profile with quoted keys, comments and nested mappings, and one in flow style.
cat >"$tmp/two.yaml" <<'EOF'
cluster: t
nodes:
  # the head node
  "alpha":
    hostname: a
    links:
      rdma0: { address: 10.0.0.1/24 }
  beta: { hostname: b, links: { rdma0: 10.0.0.2/24 } }
health:
  interval: 5s
EOF
printf 'cluster: t\nnodes: { n1: { hostname: a }, n2: { hostname: b, links: { rdma0: 10.0.0.2/24 } } }\n' >"$tmp/flow.yaml"

expect "haloctl " "apply check env plan probe reload status unadopt validate verify"
expect "haloctl ch" "check"
expect "haloctl v" "validate verify"
expect "haloctl --js" "--json"
expect "haloctl check --co" "--color"
expect "haloctl check -" "--adopt --backend --boot-unit --cdi --color --force --format --help --json --list --node --only --port --rebaseline --root --slots --undo --version"
expect "haloctl apply --backend " "netlink networkd networkmanager"
expect "haloctl apply --backend net" "netlink networkd networkmanager"
expect "haloctl --backend networkd --node head apply conf/examples/d" "conf/examples/daisy-chain-4.yaml conf/examples/daisy-chain-connectx.yaml"
expect "haloctl check --color " "always auto never"
expect "haloctl check --color a" "always auto"
expect "haloctl check --color=n" "never"
expect "haloctl check --color=" "always auto never"
expect "haloctl env --format " "env hostfile llama-rpc ray"
expect "haloctl env --format=ll" "llama-rpc"
# --node: the nodes of the profile on the command line, wherever it is
expect "haloctl check conf/halod.yaml --node " "head worker"
expect "haloctl --json apply conf/examples/daisy-chain-4.yaml --node " "node1 node2 node3 node4"
expect "haloctl check conf/examples/switched-8.yaml --node=node1" "node1"
expect "haloctl env $tmp/two.yaml --node " "alpha beta"
expect "haloctl env $tmp/flow.yaml --node " "n1 n2"
# --only: prefixes, then the fixed ids, in a comma-separated list
expect "haloctl check --only " "fabric. gpu. helper hosts. kernel. link. nic. node. peer. profile qos. rdma."
# apply --only: the parts halod-helper.service writes, not check ids
expect "haloctl apply --only " "boot cdi hosts. limits modules networkd"
expect "haloctl apply --undo " "boot limits modules"
expect "haloctl apply --undo limits,m" "limits,modules"
expect "haloctl apply --only cdi,h" "cdi,hosts."
expect "haloctl check --only k" "kernel."
expect "haloctl check --only kernel.cm" "kernel.cmdline kernel.cmdline-next"
expect "haloctl check --only=ni" "nic."
expect "haloctl check --only kernel.,r" "kernel.,rdma."
expect "haloctl check --only kernel.,rdma.m" "kernel.,rdma.memlock kernel.,rdma.mtu"
expect "haloctl check --only nic.r" "nic.roce"
# PROFILE: files; the verb is found past options and their values
expect "haloctl check conf/halod.y" "conf/halod.yaml"
expect "haloctl --color never --node head validate conf/examples/d" "conf/examples/daisy-chain-4.yaml conf/examples/daisy-chain-connectx.yaml"
expect "haloctl status " ""
expect "haloctl reload conf/" ""
expect "haloctl --ad" "--adopt"
expect "haloctl env --cd" "--cdi"
expect "haloctl unadopt conf/halod.y" "conf/halod.yaml"
# --root: directories only
expect "haloctl check --root conf/exa" "conf/examples"
expect "haloctl probe conf/halod.yaml w" "worker"
expect "haloctl probe worker conf/halod.y" "conf/halod.yaml"

# The verbs must be daemon/haloctl/haloctl.c's verb table, no more, no less.
table=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", verb_.*/\1/p' daemon/haloctl/haloctl.c | LC_ALL=C sort | paste -sd' ')
mine=$(tr ' ' '\n' <<<"$_haloctl_verbs" | LC_ALL=C sort | paste -sd' ')
if [[ -z $table || $table != "$mine" ]]; then
        echo "FAIL: completion/haloctl.bash's verbs [$mine] differ from daemon/haloctl/haloctl.c's verb table [$table]; update _haloctl_verbs (and _haloctl_verbs_profile)" >&2
        failures=$((failures + 1))
fi
# ...and the options haloctl.c's getopt table.
table=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", \(no\|required\)_argument.*/--\1/p' daemon/haloctl/haloctl.c | LC_ALL=C sort | paste -sd' ')
mine=$(tr ' ' '\n' <<<"$_haloctl_options" | LC_ALL=C sort | paste -sd' ')
if [[ -z $table || $table != "$mine" ]]; then
        echo "FAIL: completion/haloctl.bash's options [$mine] differ from daemon/haloctl/haloctl.c's [$table]; update _haloctl_options" >&2
        failures=$((failures + 1))
fi

# probe: a node name or the profile, in either order (in a directory whose files are known)
cd "$tmp" || exit 1
expect "haloctl probe two.yaml " "alpha beta flow.yaml two.yaml"
expect "haloctl probe beta " "flow.yaml two.yaml"
expect "haloctl --node alpha probe ./flow.yaml n" "n1 n2"
cd "$src" || exit 1

if ((failures > 0)); then
        echo "$failures completion case(s) failed" >&2
        exit 1
fi
echo "all completion cases passed"
