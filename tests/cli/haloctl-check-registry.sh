#!/bin/bash
# SPDX-License-Identifier: MIT
# Every check id that a full `haloctl check --root TREE` emits, over every fixture tree in
# tests/data/hosts and the shipped profiles, is one that a line of the registry
# (lib/check/check-registry.c, printed by `haloctl check --list --json`) stands for, with <NAME> a link
# and <NODE> a node of the profile; and every line of a host group (the checks haloctl check runs with
# --root) is emitted by some run. So the registry cannot drift from the code.
# Usage: haloctl-check-registry.sh HALOCTL SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cli_setup halod-test-registry "$@"

check "check --list --json" 0 --json check --list
cp "$tmp/out" "$tmp/registry.json"
check "check --list" 0 check --list
expect "check --list: one id a line, with what it judges" "$tmp/out" '^link\.<NAME>\.mtu +[a-z]'
expect_not "check --list: nothing but ids and what they judge" "$tmp/out" '^[^a-z]|^[^ ]+$'

# haloctl check refuses a profile another user could have written: copies of the shipped ones.
for p in "$src"/conf/halod.yaml "$src"/conf/examples/*.yaml; do
        cp "$p" "$tmp/" && chmod 644 "$tmp/$(basename "$p")"
done

/usr/bin/python3 - "$haloctl" "$hosts" "$tmp" <<'PY' || failures=$((failures + 1))
import glob, json, os, re, subprocess, sys

haloctl, hosts, tmp = sys.argv[1:]
registry = json.load(open(f"{tmp}/registry.json"))["checks"]
failed = False

def fail(message):
    global failed
    print(f"FAIL: {message}")
    failed = True

def pattern(entry, profile):
    """The ids the line stands for with this profile: <NAME> one of its links, <NODE> one of its nodes."""
    names = {"<NAME>": profile["links"], "<NODE>": profile["nodes"]}
    parts = re.split(r"(<[A-Z]+>)", entry["id"])
    return re.compile("".join("(?:" + "|".join(map(re.escape, names[p])) + ")" if p in names else re.escape(p)
                              for p in parts if p) + r"\Z")

def lines_for(check_id, lines):
    """The registry lines an id is: its own line, else the patterns it matches."""
    exact = [e for e, _ in lines if e["id"] == check_id]
    return exact or [e for e, rx in lines if "<" in e["id"] and rx.match(check_id)]

runs, emitted, unknown = 0, set(), {}
for path in sorted(glob.glob(f"{tmp}/*.yaml")):
    shown = json.loads(subprocess.run([haloctl, "--json", "validate", path], capture_output=True, text=True).stdout)
    profile = {"links": list(shown["profile"]["links"]), "nodes": list(shown["profile"]["nodes"])}
    lines = [(e, pattern(e, profile)) for e in registry]
    # a first, a middle and a last node of a chain (node5: switched-8's second half)
    nodes = [n for n in ("head", "worker", "node1", "node2", "node5") if n in profile["nodes"]]
    for tree in sorted(glob.glob(f"{hosts}/*/")):
        for node in nodes:
            what = f"haloctl check --root tests/data/hosts/{os.path.basename(tree[:-1])} --node {node} {os.path.basename(path)}"
            out = subprocess.run([haloctl, "--json", "check", "--root", tree, "--node", node, path],
                                 capture_output=True, text=True).stdout
            runs += 1
            try:
                checks = json.loads(out)["checks"]
            except (ValueError, KeyError) as e:
                fail(f"{what} printed no JSON document of checks: {e}")
                continue
            for c in checks:
                hits = lines_for(c["id"], lines)
                if not hits:
                    unknown.setdefault(c["id"], [what, 0])[1] += 1
                elif len(hits) > 1:
                    fail(f"{what}: the check id {c['id']} matches {len(hits)} registry lines: "
                         + ", ".join(e["id"] for e in hits))
                else:
                    emitted.add(hits[0]["id"])
for check_id, (what, n) in sorted(unknown.items()):
    fail(f"the check id {check_id} (from {n} runs, the first: {what}) is in no line of "
         "lib/check/check-registry.c: add its line there (an id, or a pattern such as link.<NAME>.mtu), "
         "and its entry in haloctl(1)")
if runs < 100:
    fail(f"only {runs} runs of haloctl check (expected at least 100): update this test")
for e in registry:
    if e["host"] and e["id"] not in emitted:
        fail(f"the registry line {e['id']} (lib/check/check-registry.c) was emitted by none of the {runs} "
             "runs of haloctl check --root: a check that is gone (remove its line), or a fixture that is missing")
print(f"{runs} runs of haloctl check, {len(emitted)} of {len(registry)} registry lines emitted")
sys.exit(1 if failed else 0)
PY

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
