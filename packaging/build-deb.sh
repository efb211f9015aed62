#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds halod's Debian package: copies the source tree (without build directories) and
# packaging/debian/ as its debian/ into a temporary directory, runs `dpkg-buildpackage -us -uc -b`
# there and puts the .debs into OUTDIR: halod's and, beside it, halod-cockpit's (the Cockpit page).
# Prints the path of halod's .deb on stdout, the build's log on stderr only when it fails.
#
# Usage: packaging/build-deb.sh [--nocheck] [OUTDIR]      (OUTDIR defaults to the current directory)
#   --nocheck: DEB_BUILD_OPTIONS=nocheck, without the unit, fuzz and cli suites (the e2e uses it;
#              tests/packaging/test-deb.sh runs them)
#
# The tree copied is the working tree as git sees it: tracked files and new files that .gitignore
# does not exclude, so that uncommitted changes are packaged too; outside a git checkout (an unpacked
# `meson dist` tarball) every file but build*/ directories. The debian/ directory lives in
# packaging/debian/ beside the RPM spec rather than at the top of the tree, where dpkg-buildpackage
# wants it, so that the tree stays one upstream source for both packages.
set -euo pipefail
export LC_ALL=C.UTF-8

nocheck=
if [ "${1:-}" = --nocheck ]; then
        nocheck=1
        shift
fi
outdir=$(realpath "${1:-.}")
src=$(realpath "$(dirname "$0")/..")

for tool in dpkg-buildpackage dpkg-checkbuilddeps dh tar; do
        command -v "$tool" >/dev/null 2>&1 || {
                echo "build-deb.sh: $tool not found; install dpkg-dev and debhelper (tools/deps test)" >&2
                exit 69
        }
done

version=$(sed -n '1s/^halod (\([^)]*\)).*/\1/p' "$src/packaging/debian/changelog")
upstream=${version%-*}
tmp=$(mktemp -d /tmp/halod-build-deb-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/halod-$upstream
mkdir "$tree"

# A checkout owned by another user and packaged as root is "dubious ownership" to git.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$src"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (
                cd "$src"
                git --no-optional-locks ls-files -z --cached --others --exclude-standard |
                        while IFS= read -r -d '' f; do
                                if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
                        done | tar -c --null -T - -f -
        ) | tar -x -C "$tree" -f -
else
        tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -x -C "$tree" -f -
fi
rm -rf "$tree/debian"
cp -a "$src/packaging/debian" "$tree/debian"

opts=${DEB_BUILD_OPTIONS:-}
[ -z "$nocheck" ] || opts="$opts nocheck"
opts="$opts parallel=$(nproc)"
opts=${opts# }
opts=${opts# }
if ! (cd "$tree" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
        tail -n 80 "$tmp/build.log" >&2
        echo "build-deb.sh: dpkg-buildpackage -us -uc -b failed in $tree (the last 80 lines of its log are above)" >&2
        # When the package's check failed: which tests, and what each printed last (the log above ends
        # with meson's summary, which counts them without naming them).
        for testlog in "$tree"/obj-*/meson-logs/testlog.json; do
                [ -f "$testlog" ] || continue
                python3 - "$testlog" >&2 <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    print(f"build-deb.sh: the check's {t['name']}: {t['result']} after {t['duration']:.1f} s; its last lines:")
    output = (t.get("stdout") or "") + (t.get("stderr") or "")
    for out in output.splitlines()[-30:]:
        print("  " + out)
PY
        done
        exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb=halod_${version}_$arch.deb
[ -f "$tmp/$deb" ] || { echo "build-deb.sh: dpkg-buildpackage made no $deb" >&2; exit 1; }
[ -f "$tmp/halod-cockpit_${version}_all.deb" ] || { echo "build-deb.sh: dpkg-buildpackage made no halod-cockpit_${version}_all.deb" >&2; exit 1; }
mkdir -p "$outdir"
mv "$tmp/$deb" "$tmp/halod-cockpit_${version}_all.deb" "$outdir/"
# The build's log beside it, for the test to read what the check ran.
mv "$tmp/build.log" "$outdir/${deb%.deb}.build.log"
echo "$outdir/$deb"
