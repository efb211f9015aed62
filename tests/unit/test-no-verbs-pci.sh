#!/bin/bash
# SPDX-License-Identifier: MIT
# halod and haloctl start without libibverbs (and its libnl) and libpci (and its libudev and libz):
# neither has them in DT_NEEDED, and neither leaves an ibv_ or pci_ symbol for the dynamic linker to
# find. lib/rdma/dlopen-verbs.c and lib/nic/dlopen-pci.c load them on first use.
# Usage: test-no-verbs-pci.sh HALOD HALOCTL
set -euo pipefail
command -v readelf >/dev/null || { echo "FAIL: readelf not found (binutils)" >&2; exit 1; }

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# Undefined dynamic symbols: "UND" in readelf's Ndx column.
undefined() { readelf --dyn-syms -W "$1" | awk '$7 == "UND" {print $8}'; }
lazy='^lib(ibverbs|nl-3|nl-route-3|pci)\.so'
fails=0

for bin in "$@"; do
        name=$(basename "$bin")
        libs=$(needed "$bin")
        [ -n "$libs" ] || { echo "FAIL: readelf shows no NEEDED entries for $bin" >&2; fails=$((fails + 1)); continue; }
        if bad=$(grep -E "$lazy" <<<"$libs"); then
                echo "FAIL: $name links $(tr '\n' ' ' <<<"$bad")(DT_NEEDED); they are to be dlopen()ed on first use" >&2
                fails=$((fails + 1))
        else
                echo "ok: $name needs $(tr '\n' ' ' <<<"$libs")"
        fi
        if bad=$(undefined "$bin" | grep -E '^_{0,2}(ibv|pci)_'); then
                echo "FAIL: $name leaves $(tr '\n' ' ' <<<"$bad")undefined: call them through lib/dlopen-*.h's sym_ pointers" >&2
                fails=$((fails + 1))
        else
                echo "ok: $name has no undefined ibv_ or pci_ symbol"
        fi
done
exit $((fails > 0))
