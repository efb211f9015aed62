#!/bin/bash
# SPDX-License-Identifier: MIT
# Keeps the man pages true to the code: every option of `haloctl --help` and `halod --help`, every
# haloctl verb, every profile key the validator accepts, every check id the checks emit, every metric, every
# io.halod1 property, method, signal and error, every alerting rule, health.tcp-bulk-mbit's default,
# and every journal MESSAGE_ID (in the catalog too) is documented where a reader looks for it; and each page converts with scdoc.
# Usage: test-docs.sh HALOCTL HALOD SOURCE_ROOT [SCDOC]
set -uo pipefail
haloctl=$1
halod=$2
root=$3
scdoc=${4:-}
man=$root/man
failed=0

fail() {
        echo "FAIL: $*"
        failed=1
}

# documented PAGE TEXT WHAT: TEXT (fixed string) occurs in man/PAGE.
documented() {
        grep -qF -- "$2" "$man/$1" || fail "$3 is not documented in man/$1 (looked for: $2)"
}

# at_least N WHAT LIST...: the code yielded at least N names, so that a pattern that stops matching
# (the code was reformatted) fails instead of checking nothing.
at_least() {
        local n=$1 what=$2
        shift 2
        [ $# -ge "$n" ] || fail "found only $# $what in the code (expected at least $n): update this test"
}

# Long options of a --help text, "--json", one a line.
help_options() {
        grep -oE '^ +(-h )?--[a-z-]+' | grep -oE -- '--[a-z-]+'
}

# -- haloctl: options and verbs --
help=$("$haloctl" --help) || fail "haloctl --help failed"
names=$(help_options <<<"$help")
at_least 8 "haloctl options" $names
for opt in $names; do
        documented haloctl.1.scd "*$opt*" "haloctl $opt"
done
# The other way round: an option haloctl(1) lists under OPTIONS that --help does not know.
while read -r opt; do
        grep -qE -- "^ +(-h )?$opt( |$)" <<<"$help" || fail "haloctl(1) documents $opt, haloctl --help lacks it"
done < <(sed -n '/^# OPTIONS/,/^# VERBS/p' "$man/haloctl.1.scd" | grep -oE '^\*--[a-z-]+\*' | tr -d '*')
names=$(sed -n '/^Verbs:/,/^$/p' <<<"$help" | awk 'NF > 0 && $1 != "Verbs:" { print $1 }')
at_least 9 "haloctl verbs" $names
for verb in $names; do
        documented haloctl.1.scd "## $verb" "the verb $verb (a section of its own)"
        sed -n '/^# SYNOPSIS/,/^# DESCRIPTION/p' "$man/haloctl.1.scd" | grep -qE "\*$verb\*|\|$verb\*|\*$verb\|" ||
                fail "the verb $verb is not in haloctl(1)'s SYNOPSIS"
done
# Every exit status --help names has an entry in EXIT STATUS.
names=$(grep -oE '\b(0|1|2|6[4-9]|7[0-8])\b [a-z]' <<<"$(sed -n '/^Exit status/,$p' <<<"$help")" | cut -d' ' -f1)
at_least 9 "haloctl exit statuses" $names
for code in $names; do
        sed -n '/^# EXIT STATUS/,/^# ENVIRONMENT/p' "$man/haloctl.1.scd" | grep -qx "\*$code\*" ||
                fail "haloctl --help names exit status $code, haloctl(1) EXIT STATUS has no entry for it"
done

# -- halod: options --
help=$("$halod" --help) || fail "halod --help failed"
names=$(help_options <<<"$help")
at_least 6 "halod options" $names
for opt in $names; do
        documented halod.8.scd "*$opt*" "halod $opt"
done
for var in $(grep -oE 'HALOD_[A-Z_]+' <<<"$help"); do
        documented halod.8.scd "*$var*" "the environment variable $var"
done

# -- profile keys (halod.yaml(5)) --
names=$(cat "$root"/lib/profile/profile*.c | tr '\n' ' ' | grep -oE 'keys\[\] = \{[^}]*\}' | grep -oE '"[a-z-]+"' | tr -d '"' | sort -u)
at_least 28 "profile keys" $names
for key in $names; do
        documented halod.yaml.5.scd "*$key:*" "the profile key $key"
done

# -- check ids (haloctl(1), CHECKS): the registry, lib/check/check-registry.c, as haloctl check --list
# --json prints it: each id in its section, and each id the pages list under a term in the registry --
# man_term ID: how a page writes an id: *kernel.cmdline*, *link.*_NAME_*.mtu*, *hosts.*_NODE_.
man_term() {
        sed -E 's/<([A-Z]+)>/*_\1_*/g; s/^/*/; s/$/*/; s/^\*\*//; s/\*\*$//' <<<"$1"
}
registry=$("$haloctl" --json check --list) || fail "haloctl check --list --json failed"
pairs=$(grep -E '^ *"(id|section)": ' <<<"$registry" | sed -E 's/^ *"[a-z]+": "(.*)",?$/\1/' | paste - -)
ids=$(cut -f1 <<<"$pairs")
at_least 40 "check ids in the registry" $ids
in_registry() {
        grep -qxF -- "$1" <<<"$ids"
}
while IFS=$'\t' read -r id section; do
        term=$(man_term "$id")
        text=$(awk -v s="## $section" '$0 == s { p = 1; next } /^## |^# [A-Z]/ { p = 0 } p' "$man/haloctl.1.scd")
        grep -qxF -- "$term" <<<"$text" ||
                fail "the check id $id is not documented in haloctl(1) under CHECKS, ## $section (looked for a line: $term)"
done <<<"$pairs"
# The other way round: a check id a page lists as a term (a line of its own) that the registry lacks.
for page in haloctl.1.scd halod.8.scd; do
        while read -r term; do
                id=$(sed -E 's/\*_([A-Z]+)_\*?/<\1>/g; s/^\*//; s/\*$//' <<<"$term")
                in_registry "$id" ||
                        fail "$page lists the check id $term, which is in no line of lib/check/check-registry.c (haloctl check --list)"
        done < <(grep -xE '\*[a-z][a-z-]*(\.(\*_[A-Z]+_\*?|[a-z-]+))*\*?' "$man/$page" | grep -vxE '\*[a-z-]+\*')
done
# A single word (*profile*, *helper*) is a term of many kinds: only CHECKS' are check ids.
while read -r term; do
        id=${term//\*/}
        in_registry "$id" ||
                fail "haloctl(1) lists $term under CHECKS, which is in no line of lib/check/check-registry.c"
done < <(awk '/^# CHECKS/ { p = 1; next } /^# / { p = 0 } p' "$man/haloctl.1.scd" | grep -xE '\*[a-z-]+\*')
# The ids no haloctl check --root emits (tests/cli/haloctl-check-registry.sh holds the others to the
# registry): the peer round's, halod's helper and fabric checks, as the code names them.
registered() {
        in_registry "$1" || fail "$2 names the check id $1, which is in no line of lib/check/check-registry.c"
}
names=$(grep -ohE 'peer_check_id\(k, "[a-z-]+"\)' "$root"/lib/check/check-peer*.c | grep -oE '"[a-z-]+"' | tr -d '"' | sort -u)
at_least 4 "peer check ids" $names
for what in $names; do
        registered "peer.<NODE>.$what" "lib/check/check-peer*.c"
done
names=$(grep -ohE '"(peer|fabric|hosts)\.%s(\.[a-z-]+)?"' "$root"/lib/check/*.c | tr -d '"' | sort -u)
at_least 3 "per-node check id formats" $names
for format in $names; do
        registered "${format/\%s/<NODE>}" "lib/check/*.c"
done
id=$(sed -n 's/^#define HELPER_CHECK_ID "\([a-z-]*\)"$/\1/p' "$root/daemon/halod/manager-helper.h")
[ -n "$id" ] || fail "daemon/halod/manager-helper.h no longer defines HELPER_CHECK_ID: update this test"
registered "$id" "daemon/halod/manager-helper.h"
documented halod.8.scd "# FABRIC USE" "the section FABRIC USE that halod.yaml(5) and haloctl(1) point to"

# health.tcp-bulk-mbit's default, as the validator fills it in, in every page that gives it.
f=${TMPDIR:-/tmp}/halod-docs-bulk.$$.yaml
printf 'cluster: c\nlinks:\n  rdma0: { match: { name: "x*" } }\nnodes:\n  a: { links: { rdma0: 10.0.0.1/24 } }\n' >"$f"
bulk=$("$haloctl" --json validate "$f" | grep -oE '"tcp-bulk-mbit": *[0-9]+' | grep -oE '[0-9]+$')
rm -f "$f"
[ -n "$bulk" ] || fail "haloctl --json validate printed no health.tcp-bulk-mbit"
documented halod.yaml.5.scd "*tcp-bulk-mbit:* _INTEGER_ (1 to 100000; default: *$bulk*)" "health.tcp-bulk-mbit's default $bulk"
documented halod.8.scd "*health.tcp-bulk-mbit* (default $bulk Mbit/s)" "health.tcp-bulk-mbit's default $bulk"
documented haloctl.1.scd "(default $bulk Mbit/s" "health.tcp-bulk-mbit's default $bulk"
grep -qF "(default $bulk Mbit/s" "$root/README.md" || fail "README.md does not give health.tcp-bulk-mbit's default $bulk"

# A firewall drops RoCE v2 only where the kernel's UDP stack carries it, soft-RoCE (rxe): a RoCE NIC
# handles UDP port 4791 in hardware, past netfilter. Every README paragraph or list item that sends
# the reader to nft says so.
awk '/^(- |$)/ { if (item ~ /nft / && item !~ /rxe/) print item; item = "" } { item = item " " $0 }
     END { if (item ~ /nft / && item !~ /rxe/) print item }' "$root/README.md" | grep -q . &&
        fail "README.md points at nft without saying that only soft-RoCE (rxe) goes through netfilter"

# -- metrics (halod(8), METRICS) --
names=$(cat "$root"/lib/export/metrics*.c | grep -oE '"halod_[a-z_]+"' | tr -d '"' | sort -u)
at_least 20 "metric names" $names
for name in $names; do
        documented halod.8.scd "*$name" "the metric $name"
done

# -- the D-Bus API (io.halod1(5)) --
bus=$root/daemon/halod/manager-bus.c
names=$(tr '\n' ' ' <"$bus" |
        grep -oE '(STRING_PROPERTY|SD_BUS_PROPERTY|SD_BUS_METHOD_WITH_ARGS|SD_BUS_SIGNAL_WITH_ARGS)\( *"[A-Za-z]+"' |
        grep -oE '"[A-Za-z]+"' | tr -d '"' | sort -u)
at_least 15 "io.halod1 members" $names
for name in $names; do
        documented io.halod1.5.scd "$name" "the io.halod1 member $name"
done
names=$(grep -oE '"io\.halod1\.Error\.[A-Za-z]+"' "$bus" | tr -d '"' | sort -u)
at_least 3 "io.halod1 errors" $names
for error in $names; do
        documented io.halod1.5.scd "$error" "the D-Bus error $error"
done

# -- alerting rules (halod(8), Alerting rules) --
names=$(grep -oE '^ *- alert: [A-Za-z]+' "$root/conf/prometheus/halod-alerts.yml" | grep -oE '[A-Za-z]+$' | sort -u)
at_least 10 "alerting rules" $names
for name in $names; do
        documented halod.8.scd "*$name*" "the alert $name"
done

# -- journal MESSAGE_IDs: halod(8) and the catalog --
names=$(grep -oE 'HALOD_MESSAGE_[A-Z_]+ "[0-9a-f]{32}"' "$root/daemon/halod/log.h" | grep -oE '[0-9a-f]{32}')
at_least 6 "MESSAGE_IDs" $names
for id in $names; do
        documented halod.8.scd "$id" "MESSAGE_ID $id"
        grep -qx -- "-- $id" "$root/conf/catalog/halod.catalog" || fail "MESSAGE_ID $id has no entry in conf/catalog/halod.catalog"
done

# -- every page converts --
if [ -n "$scdoc" ]; then
        for page in "$man"/*.scd; do
                "$scdoc" <"$page" >/dev/null 2>"${TMPDIR:-/tmp}/halod-docs-scdoc.$$" ||
                        fail "scdoc rejects $(basename "$page"): $(cat "${TMPDIR:-/tmp}/halod-docs-scdoc.$$")"
        done
        rm -f "${TMPDIR:-/tmp}/halod-docs-scdoc.$$"
fi

[ "$failed" = 0 ] && echo "the man pages document every option, verb, profile key, check id, D-Bus member and MESSAGE_ID"
exit "$failed"
