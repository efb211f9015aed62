#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the RPM from a `meson dist` tarball with packaging/halod.spec (`rpmbuild -bb --nodeps`, with
# packaging/debian-rpm-macros where Fedora's macros are missing, e.g. on Debian) and compares its file
# list with what `meson install --destdir` installs from the same tarball (prefix /usr, /etc).
# Usage: test-rpm.sh            (environment: SOURCE_DIR, BUILD_DIR, PROJECT_VERSION)
#
# The tarball: `meson dist` archives the committed HEAD, not the working tree. When the tree has
# uncommitted changes (tracked or new files), the test archives a snapshot of the working tree instead
# (copied into a throwaway git repository under the test's temporary directory, never touching the
# project's own repository), so that it checks the tree under test; CI's checkout is clean and takes
# `meson dist --allow-dirty` from BUILD_DIR as it is.
#
# Differences the comparison allows (and prints), everything else fails:
#   - files the spec adds from the source tree with %doc/%license (README.md, COPYING);
#   - man pages, which rpmbuild compresses (haloctl.1 -> haloctl.1.gz);
#   - rpmbuild's /usr/lib/.build-id/ links to the ELF files;
#   - the meson side is configured with rpm's %{_libdir} and %{_sbindir} (Debian's meson default is
#     lib/x86_64-linux-gnu; Fedora 43's sbindir is /usr/bin), the rest as `meson setup --prefix=/usr
#     --sysconfdir=/etc`.
set -euo pipefail

: "${SOURCE_DIR:?SOURCE_DIR must be set (meson test sets it)}"
: "${BUILD_DIR:?BUILD_DIR must be set (meson test sets it)}"
: "${PROJECT_VERSION:?PROJECT_VERSION must be set (meson test sets it)}"

skip_or_fail() {
        if [ "${CI:-}" = true ]; then
                echo "FAIL (CI=true, prerequisite missing): $*" >&2
                exit 1
        fi
        echo "SKIP: $*" >&2
        exit 77
}

for tool in rpmbuild rpm rpm2archive git meson ninja pkg-config tar xz; do
        command -v "$tool" >/dev/null 2>&1 ||
                skip_or_fail "$tool not found; install it with tools/deps test (Debian: rpm; Fedora: rpm-build)"
done

spec=$SOURCE_DIR/packaging/halod.spec
tmp=$(mktemp -d /tmp/halod-test-pkg-rpm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
        echo "FAIL: $*" >&2
        failures=$((failures + 1))
}

# 1. The spec's Version is meson's project version.
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
if [ "$spec_version" != "$PROJECT_VERSION" ]; then
        echo "FAIL: $spec says Version: $spec_version, meson.build's project version is $PROJECT_VERSION; make them equal (and add a %changelog entry)" >&2
        exit 1
fi
echo "ok   Version: $spec_version equals meson.build's version"

# 2. The tarball.
# A checkout owned by a developer and tested as root is "dubious ownership" to git, which then
# refuses every command (meson dist's too): trust the source tree for this test's git calls.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$SOURCE_DIR"
git -C "$SOURCE_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        skip_or_fail "$SOURCE_DIR is not a git checkout, and meson dist archives git trees only"
tarball=halod-$PROJECT_VERSION.tar.xz
if [ -z "$(git -C "$SOURCE_DIR" --no-optional-locks status --porcelain --untracked-files=normal)" ]; then
        echo "==> meson dist from $BUILD_DIR (clean tree: HEAD)"
        meson dist -C "$BUILD_DIR" --no-tests --allow-dirty --formats xztar >"$tmp/dist.log" 2>&1 ||
                { cat "$tmp/dist.log" >&2; fail "meson dist -C $BUILD_DIR"; exit 1; }
        dist=$BUILD_DIR/meson-dist/$tarball
else
        echo "==> meson dist from a snapshot of the working tree (it has uncommitted changes; HEAD lacks them)"
        mkdir "$tmp/snapshot"
        (
                cd "$SOURCE_DIR"
                git --no-optional-locks ls-files -z --cached --others --exclude-standard |
                        while IFS= read -r -d '' f; do
                                if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
                        done | tar -c --null -T - -f - | tar -x -C "$tmp/snapshot" -f -
        )
        git -C "$tmp/snapshot" init -q
        git -C "$tmp/snapshot" add -A
        git -C "$tmp/snapshot" -c user.name=halod-test -c user.email=halod-test@localhost \
                commit -q -m "working tree snapshot for test-rpm.sh"
        { meson setup "$tmp/snapshot-build" "$tmp/snapshot" &&
                meson dist -C "$tmp/snapshot-build" --no-tests --formats xztar; } >"$tmp/dist.log" 2>&1 ||
                { cat "$tmp/dist.log" >&2; fail "meson dist of the working tree snapshot"; exit 1; }
        dist=$tmp/snapshot-build/meson-dist/$tarball
fi
[ -f "$dist" ] || { fail "meson dist made no $dist"; exit 1; }
mkdir -p "$tmp/rpm/SOURCES"
cp "$dist" "$tmp/rpm/SOURCES/"
echo "ok   $tarball ($(du -h "$dist" | cut -f1))"

# 3. rpmbuild, with Fedora's macros where they are, ours where they are not.
macros=()
if [ -z "$(rpm --eval '%{?meson_build}')" ]; then
        macros=(--load "$SOURCE_DIR/packaging/debian-rpm-macros")
        echo "==> rpmbuild with packaging/debian-rpm-macros (this rpm has no Fedora macros)"
fi
for m in meson meson_build meson_install meson_test _unitdir _sysusersdir _tmpfilesdir tmpfiles_create _journalcatalogdir \
        bash_completions_dir systemd_post systemd_preun systemd_postun_with_restart; do
        [ -n "$(rpm "${macros[@]}" --eval "%{?$m:defined}")" ] ||
                skip_or_fail "rpm macro %$m is not defined; install its package with tools/deps test (Fedora: rpm-build, meson, systemd-rpm-macros)"
done
if ! rpmbuild -bb --nodeps --define "_topdir $tmp/rpm" "${macros[@]}" "$spec" >"$tmp/rpmbuild.log" 2>&1; then
        tail -n 80 "$tmp/rpmbuild.log" >&2
        fail "rpmbuild -bb $spec (the last 80 lines of its log are above)"
        exit 1
fi
shopt -s nullglob
rpms=("$tmp"/rpm/RPMS/*/halod-"$PROJECT_VERSION"-*.rpm)
shopt -u nullglob
[ ${#rpms[@]} -eq 1 ] || { fail "expected one halod-$PROJECT_VERSION RPM, found: ${rpms[*]:-none}"; exit 1; }
rpmfile=${rpms[0]}
echo "ok   rpmbuild made $(basename "$rpmfile"); its %check ran: $(grep -E '^(Ok|Fail|Skipped|Timeout):' "$tmp/rpmbuild.log" | tr -s ' ' | paste -sd' ')"

# 4. meson install --destdir from the same tarball.
libdir=$(rpm "${macros[@]}" --eval '%{_libdir}')
sbindir=$(rpm "${macros[@]}" --eval '%{_sbindir}')
mandir=$(rpm "${macros[@]}" --eval '%{_mandir}')
mkdir "$tmp/src"
tar -xJf "$dist" -C "$tmp/src"
if ! { meson setup "$tmp/meson-build" "$tmp/src/halod-$PROJECT_VERSION" --prefix=/usr --sysconfdir=/etc \
        --libdir="$libdir" --sbindir="$sbindir" &&
        meson install -C "$tmp/meson-build" --destdir "$tmp/meson-root" --quiet; } >"$tmp/meson.log" 2>&1; then
        tail -n 40 "$tmp/meson.log" >&2
        fail "meson setup/install of the tarball"
        exit 1
fi

# 5. The file lists: the RPM's (no directories) against meson's.
(cd "$tmp/meson-root" && find . ! -type d -printf '/%P\n') | LC_ALL=C sort >"$tmp/meson.list"
# halod-cockpit (noarch, the Cockpit page) holds the rest of what meson installs.
shopt -s nullglob
cockpit_rpms=("$tmp"/rpm/RPMS/noarch/halod-cockpit-"$PROJECT_VERSION"-*.rpm)
shopt -u nullglob
[ ${#cockpit_rpms[@]} -eq 1 ] || { fail "expected one halod-cockpit-$PROJECT_VERSION RPM, found: ${cockpit_rpms[*]:-none}"; exit 1; }
rpm -qp --requires "${cockpit_rpms[0]}" | grep -q '^cockpit-bridge' || fail "halod-cockpit does not require cockpit-bridge"
rpm -qp --qf '[%{FILENAMES}\n]' "${cockpit_rpms[0]}" | grep -vE '^/usr/share/cockpit/halod(/[^/]+)?$|^/usr/share/licenses/' &&
        fail "halod-cockpit has files outside /usr/share/cockpit/halod"
rpm -qp --qf '[%{FILEMODES:perms}|%{FILEFLAGS:fflags}|%{FILENAMES}\n]' "$rpmfile" "${cockpit_rpms[0]}" >"$tmp/rpm.raw"
: >"$tmp/rpm.list"
: >"$tmp/allowed.list"
while IFS='|' read -r perms flags path; do
        [[ $perms == d* ]] && continue
        # rpmbuild's links from ELF build-ids to the files (on Fedora too)
        if [[ $path == /usr/lib/.build-id/* ]]; then
                echo "$path (rpmbuild's build-id link)" >>"$tmp/allowed.list"
                continue
        fi
        # brp-compress
        if [[ $path == "$mandir"/* ]]; then
                path=${path%.gz}
                path=${path%.xz}
                path=${path%.bz2}
                path=${path%.zst}
        fi
        # %doc/%license files taken from the source tree, not installed by meson
        base=${path##*/}
        if [[ $flags == *[dl]* && -f $tmp/src/halod-$PROJECT_VERSION/$base ]] && ! grep -qxF "$path" "$tmp/meson.list"; then
                echo "$path ($flags: from the source tree)" >>"$tmp/allowed.list"
                continue
        fi
        echo "$path" >>"$tmp/rpm.list"
done <"$tmp/rpm.raw"
LC_ALL=C sort -o "$tmp/rpm.list" "$tmp/rpm.list"

echo "==> file list: meson install vs the RPM"
LC_ALL=C comm "$tmp/meson.list" "$tmp/rpm.list" | sed 's/^\t\t/  both  /; s/^\t/  rpm   /; s/^\([^ ]\)/  meson \1/'
sed 's/^/  rpm+  /' "$tmp/allowed.list"
only_meson=$(LC_ALL=C comm -23 "$tmp/meson.list" "$tmp/rpm.list")
only_rpm=$(LC_ALL=C comm -13 "$tmp/meson.list" "$tmp/rpm.list")
[ -z "$only_meson" ] || fail "meson installs files the RPM lacks; add them to %files in $spec:"$'\n'"$only_meson"
[ -z "$only_rpm" ] || fail "the RPM has files meson does not install; remove them from %files in $spec:"$'\n'"$only_rpm"
[ -s "$tmp/meson.list" ] || fail "meson installed nothing"
[ -z "$only_meson$only_rpm" ] && echo "ok   identical: $(wc -l <"$tmp/meson.list") files, and $(wc -l <"$tmp/allowed.list") allowed difference(s) (rpm+)"

# 6. What rpm does with them: the profile is config(noreplace); the scriptlets handle halod.service;
#    the unit starts the halod the package ships.
grep -q '^-[^|]*|[^|]*c[^|]*n[^|]*|/etc/halod/halod.yaml$' "$tmp/rpm.raw" ||
        fail "/etc/halod/halod.yaml must be %config(noreplace) in $spec (got: $(grep '|/etc/halod/halod.yaml$' "$tmp/rpm.raw" || echo absent))"
rpm -qp --scripts "$rpmfile" >"$tmp/scripts"
for phase in postinstall preuninstall postuninstall; do
        awk -v p="$phase" '$0 ~ "^"p" scriptlet" { on = 1; next } /^[a-z]+ scriptlet/ { on = 0 } on' "$tmp/scripts" |
                grep -q 'halod\.service' || fail "the RPM's $phase scriptlet does not handle halod.service (%systemd_* in $spec)"
        # The peer channel's ports go with it (halod(8), PEER CHANNEL).
        awk -v p="$phase" '$0 ~ "^"p" scriptlet" { on = 1; next } /^[a-z]+ scriptlet/ { on = 0 } on' "$tmp/scripts" |
                grep -q 'halod\.socket' || fail "the RPM's $phase scriptlet does not handle halod.socket (%systemd_* in $spec)"
done
mkdir "$tmp/unpacked"
rpm2archive - <"$rpmfile" | tar -xz -C "$tmp/unpacked"
unit=$(rpm "${macros[@]}" --eval '%{_unitdir}')/halod.service
grep -qx "ExecStart=$sbindir/halod" "$tmp/unpacked$unit" ||
        fail "$unit in the RPM does not start $sbindir/halod: $(grep '^ExecStart=' "$tmp/unpacked$unit" || echo 'no unit')"
[ -x "$tmp/unpacked$sbindir/halod" ] || fail "the RPM has no executable $sbindir/halod"
[ $failures -eq 0 ] && echo "ok   %config(noreplace) halod.yaml, systemd scriptlets, ExecStart=$sbindir/halod"

if [ $failures -gt 0 ]; then
        echo "$failures packaging check(s) failed" >&2
        exit 1
fi
echo "RPM and meson install agree"
