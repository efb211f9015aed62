# SPDX-License-Identifier: MIT
# What the haloctl CLI tests share: their two arguments, a scratch directory, and checks that count
# failures. Source it, then call cli_setup with the scratch directory's prefix and the arguments:
#   . "$(dirname "$0")/lib.sh"; cli_setup kernel-cli "$@"

# cli_setup PREFIX HALOCTL SOURCE_DIR: sets haloctl, src, hosts, profile (a copy of conf/halod.yaml),
# tmp (removed on exit), and
# the counters failures and passes.
cli_setup() {
        tmp_prefix=$1
        shift
        haloctl=${1:?usage: $0 HALOCTL SOURCE_DIR}
        src=${2:?usage: $0 HALOCTL SOURCE_DIR}
        hosts=$src/tests/data/hosts
        tmp=$(mktemp -d "/tmp/$tmp_prefix-XXXXXX")
        trap 'rm -rf "$tmp"' EXIT
        # haloctl check refuses a profile that another user could have written (halod.yaml(5),
        # PROFILE OWNERSHIP): a checkout owned by a developer, tested as root, is one. A copy in the
        # scratch directory belongs to whoever runs the test.
        profile=$tmp/halod.yaml
        cp "$src/conf/halod.yaml" "$profile"
        chmod 644 "$profile"
        failures=0
        passes=0
}

# cli_require_root: haloctl apply --root writes root's files; without root the test is skipped, or
# fails with CI=true.
cli_require_root() {
        [ "$(id -u)" -eq 0 ] && return 0
        [ "${CI:-}" = true ] && { echo "FAIL: haloctl apply --root needs root"; exit 1; }
        echo "SKIP: haloctl apply --root needs root"
        exit 77
}

# check NAME EXPECTED_EXIT [haloctl arguments...]: runs haloctl, keeps stdout in $tmp/out and stderr
# in $tmp/err.
check() {
        local name=$1 want=$2 got
        shift 2
        "$haloctl" "$@" >"$tmp/out" 2>"$tmp/err"
        got=$?
        if [ "$got" -ne "$want" ]; then
                echo "FAIL $name: exit $got, expected $want"
                sed 's/^/  stdout: /' "$tmp/out"
                sed 's/^/  stderr: /' "$tmp/err"
                failures=$((failures + 1))
                return 1
        fi
        echo "ok   $name (exit $got)"
        passes=$((passes + 1))
}

# check_as_nobody NAME WANT ARGS...: check, with haloctl run as user nobody (setpriv), as a user
# without privileges or halod's sandbox reads the host. What haloctl reads must be readable by others;
# $tmp is made 0755.
check_as_nobody() {
        local as_root=$haloctl r

        printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' "$haloctl" >"$tmp/as-nobody"
        chmod 0755 "$tmp/as-nobody" "$tmp"
        haloctl=$tmp/as-nobody
        check "$@"
        r=$?
        haloctl=$as_root
        return $r
}

# root_only NAME: true when the test runs as root; else says NAME is skipped, which CI (as root)
# never is.
root_only() {
        [ "$(id -u)" -eq 0 ] && return 0
        [ "${CI:-}" != true ] || { echo "FAIL: CI runs this test as root"; exit 1; }
        echo "skipping $1: not root" >&2
        return 1
}

# line NAME TEXT: stdout ($tmp/out) has TEXT as a whole line.
line() {
        if ! grep -Fxq -- "$2" "$tmp/out"; then
                echo "FAIL $1: no line is exactly:"
                echo "  $2"
                sed 's/^/  got: /' "$tmp/out"
                failures=$((failures + 1))
        fi
}

# expect NAME FILE EXTENDED-REGEX: the file has a line matching it.
expect() {
        if ! grep -Eq -- "$3" "$2"; then
                echo "FAIL $1: no line matches /$3/ in:"
                sed 's/^/  /' "$2"
                failures=$((failures + 1))
        fi
}

# expect_not NAME FILE EXTENDED-REGEX: no line of the file matches it.
expect_not() {
        if grep -Eq -- "$3" "$2"; then
                echo "FAIL $1: a line matches /$3/ in:"
                sed 's/^/  /' "$2"
                failures=$((failures + 1))
        fi
}

