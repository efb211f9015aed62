#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the Debian package with packaging/build-deb.sh (dpkg-buildpackage -us -uc -b, whose
# dh_auto_test runs the unit, fuzz and cli suites) and asserts what it holds with dpkg-deb: the file
# list against `meson install --destdir` of the same tree with Debian's paths, the control fields
# (version, Depends on what halod loads with dlopen()), the conffile, the maintainer scripts (system
# user, tmpfiles, unit handled but not enabled) and that the unit and halod agree with the package's paths.
# Usage: test-deb.sh            (environment: SOURCE_DIR, BUILD_DIR, PROJECT_VERSION)
#
# Differences the file list comparison allows (and prints), everything else fails:
#   - man pages and README.md, which dh compresses (haloctl.1 -> haloctl.1.gz);
#   - /usr/share/doc/halod/{copyright,changelog.Debian.gz,README.md.gz}: from packaging/debian.
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

for tool in dpkg-buildpackage dpkg-deb dpkg-architecture dh meson ninja; do
        command -v "$tool" >/dev/null 2>&1 ||
                skip_or_fail "$tool not found; install it with tools/deps test (dpkg-dev, debhelper)"
done
dpkg-checkbuilddeps "$SOURCE_DIR/packaging/debian/control" 2>/dev/null ||
        skip_or_fail "the build dependencies of packaging/debian/control are not installed: $(dpkg-checkbuilddeps "$SOURCE_DIR/packaging/debian/control" 2>&1 | sed 's/.*: //'); tools/deps test installs them"

tmp=$(mktemp -d /tmp/halod-test-pkg-deb-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
        echo "FAIL: $*" >&2
        failures=$((failures + 1))
}

# 1. debian/changelog's version is meson's project version (with a Debian revision).
deb_version=$(sed -n '1s/^halod (\([^)]*\)).*/\1/p' "$SOURCE_DIR/packaging/debian/changelog")
if [ "${deb_version%-*}" != "$PROJECT_VERSION" ]; then
        echo "FAIL: packaging/debian/changelog's version is $deb_version, meson.build's project version is $PROJECT_VERSION; add a changelog entry for $PROJECT_VERSION-1" >&2
        exit 1
fi
echo "ok   debian/changelog: $deb_version for meson's $PROJECT_VERSION"

# 2. The package.
deb=$(bash "$SOURCE_DIR/packaging/build-deb.sh" "$tmp/out") || { echo "FAIL: packaging/build-deb.sh" >&2; exit 1; }
echo "ok   $(basename "$deb") ($(du -h "$deb" | cut -f1)); dh_auto_test ran: $(grep -E '^(Ok|Fail|Skipped|Timeout):' "${deb%.deb}.build.log" | tr -s ' ' | paste -sd' ')"
grep -qE '^Fail:[[:space:]]+0[[:space:]]*$' "${deb%.deb}.build.log" || fail "dh_auto_test did not report 'Fail: 0' (see the build log)"

# 3. meson install --destdir of the same tree with the paths dh uses.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if ! { meson setup "$tmp/meson-build" "$SOURCE_DIR" --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
        --libdir="lib/$multiarch" -Dlibnm=enabled -Dlibibverbs=enabled -Dlibpci=enabled -Dman=enabled &&
        meson install -C "$tmp/meson-build" --destdir "$tmp/meson-root" --quiet; } >"$tmp/meson.log" 2>&1; then
        tail -n 40 "$tmp/meson.log" >&2
        echo "FAIL: meson setup/install of $SOURCE_DIR" >&2
        exit 1
fi

# 4. The file lists: the package's (no directories) against meson's.
(cd "$tmp/meson-root" && find . ! -type d -printf '/%P\n') | LC_ALL=C sort >"$tmp/meson.list"
# halod-cockpit (the Cockpit page) is built beside it: the two together hold what meson installs.
cockpit_deb=$(dirname "$deb")/halod-cockpit_${deb_version}_all.deb
[ -f "$cockpit_deb" ] || { echo "FAIL: packaging/build-deb.sh made no $cockpit_deb" >&2; exit 1; }
dpkg-deb -c "$cockpit_deb" | awk '$6 !~ /^\.\/usr\/share\/doc\/halod-cockpit\// && $1 !~ /^d/ { print $6 }' >"$tmp/cockpit.list"
grep -vqE '^\./usr/share/cockpit/halod/[^/]+$' "$tmp/cockpit.list" &&
        fail "halod-cockpit has files outside /usr/share/cockpit/halod: $(cat "$tmp/cockpit.list")"
grep -qx './usr/share/cockpit/halod/manifest.json' "$tmp/cockpit.list" || fail "halod-cockpit has no manifest.json"
for p in cockpit-bridge halod; do
        grep -qE "(^|, )$p( |,|$)" <<<"$(dpkg-deb -f "$cockpit_deb" Depends)" ||
                fail "halod-cockpit's Depends lacks $p: $(dpkg-deb -f "$cockpit_deb" Depends)"
done
{ dpkg-deb -c "$deb"; dpkg-deb -c "$cockpit_deb" | grep -v ' ./usr/share/doc/halod-cockpit/'; } >"$tmp/contents"
: >"$tmp/deb.list"
: >"$tmp/allowed.list"
while read -r perms _owner _size _date _time path _; do
        [[ $perms == d* ]] && continue
        path=${path#.}
        case "$path" in
        /usr/share/doc/halod/copyright | /usr/share/doc/halod/changelog.Debian.gz | /usr/share/doc/halod/README.md.gz)
                echo "$path (from packaging/debian)" >>"$tmp/allowed.list"
                continue
                ;;
        /usr/share/man/*.gz) path=${path%.gz} ;;
        esac
        echo "$path" >>"$tmp/deb.list"
done <"$tmp/contents"
LC_ALL=C sort -o "$tmp/deb.list" "$tmp/deb.list"
echo "==> file list: meson install vs the package"
LC_ALL=C comm "$tmp/meson.list" "$tmp/deb.list" | sed 's/^\t\t/  both  /; s/^\t/  deb   /; s/^\([^ ]\)/  meson \1/'
sed 's/^/  deb+  /' "$tmp/allowed.list"
only_meson=$(LC_ALL=C comm -23 "$tmp/meson.list" "$tmp/deb.list")
only_deb=$(LC_ALL=C comm -13 "$tmp/meson.list" "$tmp/deb.list")
[ -z "$only_meson" ] || fail "meson installs files the package lacks (packaging/debian):"$'\n'"$only_meson"
[ -z "$only_deb" ] || fail "the package has files meson does not install:"$'\n'"$only_deb"
[ "$(wc -l <"$tmp/allowed.list")" -eq 3 ] || fail "the package lacks copyright, changelog.Debian.gz or README.md.gz in /usr/share/doc/halod"
for f in /usr/sbin/halod /usr/bin/haloctl "/usr/lib/$multiarch/halod/halod-backend-nm.so" /etc/halod/halod.yaml \
        /usr/lib/sysusers.d/halod.conf /usr/lib/tmpfiles.d/halod.conf /usr/lib/systemd/catalog/halod.catalog /usr/share/dbus-1/system.d/io.halod1.conf \
        /usr/share/polkit-1/actions/io.halod1.policy /usr/share/polkit-1/rules.d/io.halod1.rules \
        /usr/share/bash-completion/completions/haloctl /usr/share/man/man8/halod.8; do
        grep -qxF "$f" "$tmp/deb.list" || fail "the package has no $f"
done
grep -qE '^/(usr/)?lib/systemd/system/halod\.service$' "$tmp/deb.list" || fail "the package has no halod.service in a systemd unit directory"
grep -qE '^/(usr/)?lib/systemd/system/halod\.socket$' "$tmp/deb.list" || fail "the package has no halod.socket in a systemd unit directory"
grep -qE '^/(usr/)?lib/systemd/system/halod-helper-boot\.service$' "$tmp/deb.list" ||
        fail "the package has no halod-helper-boot.service (the boot loader's unit the helper starts)"
grep -q '^/usr/share/doc/halod/examples/.*\.yaml$' "$tmp/deb.list" || fail "the package has no example profiles"
[ -z "$only_meson$only_deb" ] && echo "ok   identical: $(wc -l <"$tmp/meson.list") files, and $(wc -l <"$tmp/allowed.list") allowed difference(s) (deb+)"

# 5. The control fields: Depends names the libraries of the ELF files (dh_shlibdeps) and those halod
#    loads with dlopen(), the bus and polkit; NetworkManager and firewalld are only suggested.
dpkg-deb -I "$deb" >"$tmp/info"
depends=$(dpkg-deb -f "$deb" Depends)
for p in libsystemd0 libmnl0 libyaml-0-2 libnm0 libibverbs1 libpci3 dbus polkitd; do
        grep -qE "(^|, )$p( |,|$)" <<<"$depends" || fail "Depends lacks $p: $depends"
done
grep -qE 'systemd-sysusers' <<<"$depends" || fail "Depends lacks systemd-sysusers (dh_installsysusers): $depends"
for p in network-manager firewalld; do
        grep -qE "(^|[ ,|])$p( |,|$)" <<<"$depends" && fail "Depends names $p: halod works without it"
        grep -qE "(^|[ ,|])$p( |,|$)" <<<"$(dpkg-deb -f "$deb" Suggests)" || fail "Suggests lacks $p"
done
[ "$(dpkg-deb -f "$deb" Version)" = "$deb_version" ] || fail "the package's Version is $(dpkg-deb -f "$deb" Version), not $deb_version"
echo "ok   Depends: $depends"

# 6. The maintainer scripts and the conffile.
mkdir "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
grep -qx '/etc/halod/halod.yaml' "$tmp/control/conffiles" 2>/dev/null || fail "/etc/halod/halod.yaml is not a conffile"
grep -q 'systemd-sysusers.* halod\.conf' "$tmp/control/postinst" 2>/dev/null || fail "postinst does not create the halod user (systemd-sysusers halod.conf)"
grep -q 'systemd-tmpfiles.* --create halod\.conf' "$tmp/control/postinst" ||
        fail "postinst does not apply tmpfiles.d/halod.conf (systemd-tmpfiles --create halod.conf: /run/cdi)"
# The user sysusers.d creates comes before tmpfiles.d, whose lines may name it.
[ "$(grep -n 'systemd-sysusers' "$tmp/control/postinst" | head -n 1 | cut -d: -f1)" -lt \
        "$(grep -n 'systemd-tmpfiles' "$tmp/control/postinst" | head -n 1 | cut -d: -f1)" ] 2>/dev/null ||
        fail "postinst runs systemd-tmpfiles before systemd-sysusers: a tmpfiles.d line that names the user halod needs the user"
grep -q 'daemon-reload' "$tmp/control/postinst" || fail "postinst does not run systemctl daemon-reload"
# An upgrade restarts a running halod (deb-systemd-invoke restart; debhelper 13.11 writes it through
# $_dh_action, later ones may write try-restart); a first install's start is skipped by
# deb-systemd-invoke because the unit is not enabled.
grep -qE "deb-systemd-invoke (try-restart|\\\$_dh_action) 'halod.service'" "$tmp/control/postinst" ||
        fail "postinst does not restart a running halod on upgrade"
# Enabled only where it was enabled before (an upgrade), never on a first install.
awk "/was-enabled 'halod.service'/ { guarded = 1 } /^[[:space:]]*fi\$/ { guarded = 0 }
        /deb-systemd-helper enable 'halod.service'/ && !guarded { bad = 1 } END { exit bad }" \
        "$tmp/control/postinst" || fail "postinst enables halod.service on install: it must wait until the profile is edited"
grep -q "stop 'halod.service'" "$tmp/control/prerm" 2>/dev/null || fail "prerm does not stop halod.service on removal"
# halod's root helper runs only when halod asks: the package never starts it.
! grep -E "deb-systemd-invoke (start|restart|try-restart|\\\$_dh_action) .*halod-helper" "$tmp/control/postinst" ||
        fail "postinst starts halod-helper.path, halod-helper.service or halod-helper-boot.service: only halod.service pulls them in"
grep -q "purge 'halod.service'" "$tmp/control/postrm" 2>/dev/null || fail "postrm does not forget halod.service on purge"
# No ACL gives the user halod /run/cdi or networkd's directory; an upgrade removes the old entries.
grep -q "setfacl -x u:halod" "$tmp/control/postinst" || fail "postinst does not remove the u:halod ACL entries of earlier builds"
# systemd-tmpfiles set those entries with no acl package: a missing setfacl must not skip their removal.
dpkg-deb -f "$deb" Depends | grep -qE '(^|, )acl( |,|$)' ||
        fail "the package does not depend on acl: postinst's setfacl may be missing"
! grep -q 'command -v setfacl' "$tmp/control/postinst" || fail "postinst skips the ACL removal when setfacl is missing"
# The old networkd files the user halod wrote become root's; no link followed.
tr '\n\\' '  ' <"$tmp/control/postinst" | grep -qE "find -P /etc/systemd/network .*-type f +-user halod .*-exec chown root:root" ||
        fail "postinst leaves the user halod owning old 05-halod-*.network files"
tmpfiles=$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/lib/tmpfiles.d/halod.conf) || fail "no tmpfiles.d/halod.conf in the package"
! grep -qE '^a' <<<"$tmpfiles" || fail "tmpfiles.d/halod.conf sets an ACL:"$'\n'"$tmpfiles"
echo "ok   conffile /etc/halod/halod.yaml; postinst: sysusers, tmpfiles, daemon-reload, try-restart; prerm: stop; postrm: purge"

# 7. The unit starts the packaged halod, and halod loads its NetworkManager module from where the
#    package put it.
mkdir "$tmp/unpacked"
dpkg-deb -x "$deb" "$tmp/unpacked"
unit=$(find "$tmp/unpacked" -path '*/systemd/system/halod.service' -print -quit)
grep -qx 'ExecStart=/usr/sbin/halod' "$unit" || fail "the packaged unit does not start /usr/sbin/halod: $(grep '^ExecStart=' "$unit")"
grep -qaF "/usr/lib/$multiarch/halod" "$tmp/unpacked/usr/sbin/halod" ||
        fail "the packaged halod does not look for its NetworkManager module in /usr/lib/$multiarch/halod"
[ $failures -eq 0 ] && echo "ok   ExecStart=/usr/sbin/halod; the module directory /usr/lib/$multiarch/halod"

if [ $failures -gt 0 ]; then
        echo "$failures packaging check(s) failed" >&2
        exit 1
fi
echo "the Debian package and meson install agree"
