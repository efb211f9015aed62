#!/bin/bash
# SPDX-License-Identifier: MIT
# The layering check itself: it passes on the tree, and fails (naming the file, the line and the
# direction) on a copy of lib/ with an upward include, a sideways include, a file outside the rooms
# and a cycle in layers.txt.
set -euo pipefail
cd "${SOURCE_DIR:?}"
check=tests/style/check-layers.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$check" lib

expect_failure() {
        local what=$1 pattern=$2
        if python3 "$check" "$tmp/lib" 2>"$tmp/err"; then
                echo "FAIL: the check passed with $what" >&2
                exit 1
        fi
        if ! grep -q -- "$pattern" "$tmp/err"; then
                echo "FAIL: with $what the check did not say '$pattern':" >&2
                cat "$tmp/err" >&2
                exit 1
        fi
        echo "ok: $what is refused"
}

fresh() {
        rm -rf "$tmp/lib"
        cp -r lib "$tmp/lib"
}

fresh
echo '#include "check/check.h"' >>"$tmp/lib/basic/strv.c"
expect_failure "basic/ including check/ (upward)" "basic/strv.c:[0-9]*: basic/ includes check/check.h: that points up"

fresh
echo '#include "net/rtnl.h"' >>"$tmp/lib/peer/peer-wire.c"
expect_failure "peer/ including net/ (sideways)" "peer/peer-wire.c:[0-9]*: peer/ includes net/rtnl.h: that points sideways"

fresh
echo 'int x;' >"$tmp/lib/stray.c"
expect_failure "a C file directly in lib/" "stray.c: lies in no room"

fresh
sed -i 's/^basic$/basic: export/' "$tmp/lib/layers.txt"
expect_failure "a cycle in layers.txt" "basic builds on export, which is not declared above it"
