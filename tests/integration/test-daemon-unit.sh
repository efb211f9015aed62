#!/bin/bash
# SPDX-License-Identifier: MIT
# What halod installs besides binaries: the unit passes `systemd-analyze verify` and scores ≤ 1.5 in
# `systemd-analyze security --offline=true`; the D-Bus and polkit policies are well-formed XML; the
# journal catalog compiles and holds every MESSAGE_ID daemon/halod/log.h names.
. "$(dirname "$0")/lib.sh"

harness_init dm
require_tools systemd-analyze journalctl python3
require_build_file daemon/halod

log "systemd-analyze verify (ExecStart pointed at the built halod)"
sed "s|/usr/sbin/halod|$BUILD_DIR/daemon/halod|" "$SOURCE_DIR/units/halod.service" >"$TEST_DIR/halod.service"
cp "$SOURCE_DIR/units/halod.socket" "$TEST_DIR/halod.socket"
run_rc 0 systemd-analyze verify --man=no "$TEST_DIR/halod.service" "$TEST_DIR/halod.socket"
[ -z "$OUT" ] || fail "systemd-analyze verify complained: $OUT"
# The socket unit holds the profile's default port, and the service may bind the probes' privileged
# source port (halod(8), PEER CHANNEL).
assert_eq "$(sed -n 's/^ListenDatagram=//p' "$TEST_DIR/halod.socket")" 0.0.0.0:7739 "halod.socket's ListenDatagram="
assert_eq "$(sed -n 's/^ListenStream=//p' "$TEST_DIR/halod.socket")" 0.0.0.0:7739 "halod.socket's ListenStream="
grep -qx 'AmbientCapabilities=CAP_NET_ADMIN CAP_NET_BIND_SERVICE' "$TEST_DIR/halod.service" ||
        fail "halod.service does not give halod CAP_NET_BIND_SERVICE for the probe port"

log "systemd-analyze security: exposure ≤ 1.5"
OUT=$(systemd-analyze security --offline=true --no-pager "$TEST_DIR/halod.service" 2>&1 | tail -n 1)
score=$(sed -n 's/.*halod.service: \([0-9.]*\).*/\1/p' <<<"$OUT")
[ -n "$score" ] || fail "no score in: $OUT"
log "exposure $score"
python3 -c "import sys; sys.exit(0 if float('$score') <= 1.5 else 1)" || fail "exposure $score > 1.5"

log "the root helper: halod-helper.path and .service verify, and the service scores what README.md records"
sed "s|/usr/bin/haloctl|$BUILD_DIR/daemon/haloctl|" "$SOURCE_DIR/units/halod-helper.service" >"$TEST_DIR/halod-helper.service"
cp "$SOURCE_DIR/units/halod-helper.path" "$TEST_DIR/halod-helper.path"
run_rc 0 systemd-analyze verify --man=no "$TEST_DIR/halod-helper.service" "$TEST_DIR/halod-helper.path"
[ -z "$OUT" ] || fail "systemd-analyze verify complained about the helper's units: $OUT"
# No start or trigger limit that a stream of requests could exhaust (halod(8), SECURITY).
assert_eq "$(sed -n 's/^StartLimitIntervalSec=//p' "$TEST_DIR/halod-helper.service")" 0 "halod-helper.service's StartLimitIntervalSec="
assert_eq "$(sed -n 's/^TriggerLimitIntervalSec=//p' "$TEST_DIR/halod-helper.path")" 0 "halod-helper.path's TriggerLimitIntervalSec="
# The path unit restarts with halod (PartOf=): a few restarts in 10 s must not leave it start-limit-hit.
assert_eq "$(sed -n 's/^StartLimitIntervalSec=//p' "$TEST_DIR/halod-helper.path")" 0 "halod-helper.path's StartLimitIntervalSec="
# Stopped with halod and before it: a run under way cannot write the spec after ExecStopPost removed it.
assert_eq "$(sed -n 's/^PartOf=//p' "$TEST_DIR/halod-helper.service")" halod.service "halod-helper.service's PartOf="
grep -qx 'After=halod.service' "$TEST_DIR/halod-helper.service" || fail "halod-helper.service is not ordered After=halod.service (stopped first)"
# SIOCETHTOOL needs an AF_INET socket: without it the networkd files lose PermanentMACAddress= and the
# DCB plan misreads ice's firmware agent (halod(8)); IPAddressDeny=any keeps it off the network.
families=$(sed -n 's/^RestrictAddressFamilies=//p' "$TEST_DIR/halod-helper.service")
for family in AF_UNIX AF_NETLINK AF_INET; do
        [[ " $families " == *" $family "* ]] || fail "halod-helper.service's RestrictAddressFamilies=$families lacks $family"
done
assert_eq "$(sed -n 's/^IPAddressDeny=//p' "$TEST_DIR/halod-helper.service")" any "halod-helper.service's IPAddressDeny="
OUT=$(systemd-analyze security --offline=true --no-pager "$TEST_DIR/halod-helper.service" 2>&1 | tail -n 1)
score=$(sed -n 's/.*halod-helper.service: \([0-9.]*\).*/\1/p' <<<"$OUT")
version=$(systemctl --version | sed -n '1s/^systemd \([0-9][0-9]*\).*/\1/p')
recorded=$(sed -n "s/.*halod-helper.service (systemd $version): \([0-9][0-9.]*\).*/\1/p" "$SOURCE_DIR/README.md" | head -n 1)
[ -n "$score" ] || fail "no score in: $OUT"
log "halod-helper.service: exposure $score under systemd $version (README.md: ${recorded:-none})"
[ -z "$recorded" ] || python3 -c "import sys; sys.exit(0 if float('$score') <= float('$recorded') else 1)" ||
        fail "halod-helper.service's exposure $score > $recorded (README.md)"

log "the boot loader's unit: verifies, runs only the boot part, sees the disks, scores what README.md records"
sed "s|/usr/bin/haloctl|$BUILD_DIR/daemon/haloctl|" "$SOURCE_DIR/units/halod-helper-boot.service" >"$TEST_DIR/halod-helper-boot.service"
run_rc 0 systemd-analyze verify --man=no "$TEST_DIR/halod-helper-boot.service"
[ -z "$OUT" ] || fail "systemd-analyze verify complained about halod-helper-boot.service: $OUT"
# The same root-owned profile, the boot part alone; the helper names this unit.
assert_eq "$(sed -n 's/^ExecStart=//p' "$TEST_DIR/halod-helper-boot.service")" \
        "$BUILD_DIR/daemon/haloctl apply --only boot --color never /etc/halod/halod.yaml" "halod-helper-boot.service's ExecStart="
assert_contains "$(sed -n 's/^ExecStart=//p' "$TEST_DIR/halod-helper.service")" " --boot-unit halod-helper-boot.service " \
        "halod-helper.service's ExecStart="
# grub-probe resolves / to its disk: no PrivateDevices= or DevicePolicy= may hide it.
! grep -qE '^(PrivateDevices=yes|DevicePolicy=|DeviceAllow=)' "$TEST_DIR/halod-helper-boot.service" ||
        fail "halod-helper-boot.service hides the disks from grub-probe: $(grep -E '^(PrivateDevices|DevicePolicy|DeviceAllow)=' "$TEST_DIR/halod-helper-boot.service")"
# The helper itself no longer writes where the boot loader's tools do.
! grep -qE '^ReadWritePaths=.*(/boot|/efi)' "$TEST_DIR/halod-helper.service" || fail "halod-helper.service can still write /boot or /efi"
assert_eq "$(sed -n 's/^StartLimitIntervalSec=//p' "$TEST_DIR/halod-helper-boot.service")" 0 "halod-helper-boot.service's StartLimitIntervalSec="
OUT=$(systemd-analyze security --offline=true --no-pager "$TEST_DIR/halod-helper-boot.service" 2>&1 | tail -n 1)
score=$(sed -n 's/.*halod-helper-boot.service: \([0-9.]*\).*/\1/p' <<<"$OUT")
recorded=$(sed -n "s/.*halod-helper-boot.service (systemd $version): \([0-9][0-9.]*\).*/\1/p" "$SOURCE_DIR/README.md" | head -n 1)
[ -n "$score" ] || fail "no score in: $OUT"
[ -n "$recorded" ] || fail "README.md records no 'halod-helper-boot.service (systemd $version): N'"
log "halod-helper-boot.service: exposure $score under systemd $version (README.md: $recorded)"
python3 -c "import sys; sys.exit(0 if float('$score') <= float('$recorded') else 1)" ||
        fail "halod-helper-boot.service's exposure $score > $recorded (README.md)"

log "D-Bus and polkit policies parse"
python3 - "$SOURCE_DIR/conf/dbus-1/io.halod1.conf" "$SOURCE_DIR/conf/polkit-1/io.halod1.policy" <<'PY'
import sys, xml.etree.ElementTree as ET
conf = ET.parse(sys.argv[1]).getroot()
assert conf.tag == "busconfig"
owners = [p.get("user") for p in conf.iter("policy") if any(a.get("own") == "io.halod1" for a in p.iter("allow"))]
assert "root" in owners, owners
default = [p for p in conf.iter("policy") if p.get("context") == "default"][0]
members = {a.get("send_member") for a in default.iter("allow")}
assert {"Get", "GetAll"} <= members, members
assert any(a.get("send_interface") == "org.freedesktop.DBus.Introspectable" for a in default.iter("allow"))
pol = ET.parse(sys.argv[2]).getroot()
ids = [a.get("id") for a in pol.iter("action")]
assert ids == ["io.halod1.manage"], ids
assert pol.find("action/defaults/allow_active").text == "auth_admin_keep"
# halod runs as the user halod: polkit answers it about other users only for actions it owns.
owner = [a.text for a in pol.iter("annotate") if a.get("key") == "org.freedesktop.policykit.owner"]
assert owner == ["unix-user:halod"], owner
PY

log "the journal catalog compiles and explains every MESSAGE_ID"
mkdir -p "$TEST_DIR/root/usr/lib/systemd/catalog" "$TEST_DIR/root/var/lib/systemd/catalog"
cp "$SOURCE_DIR/conf/catalog/halod.catalog" "$TEST_DIR/root/usr/lib/systemd/catalog/"
run_rc 0 journalctl --root="$TEST_DIR/root" --update-catalog
catalog=$(journalctl --root="$TEST_DIR/root" --list-catalog)
ids=$(sed -n 's/^#define HALOD_MESSAGE_[A-Z_]* "\([0-9a-f]*\)"$/\1/p' "$SOURCE_DIR/daemon/halod/log.h")
[ "$(wc -l <<<"$ids")" -eq 6 ] || fail "expected 6 MESSAGE_IDs in daemon/halod/log.h, found: $ids"
for id in $ids; do
        assert_contains "$catalog" "$id halod:" "journalctl --list-catalog"
done
pass
