#!/bin/bash
# SPDX-License-Identifier: MIT
# halod and haloctl start without libnm and GLib: neither has them in DT_NEEDED (they come only with
# halod-backend-nm.so, loaded on the first apply through NetworkManager), and the module does.
# Usage: test-no-libnm.sh HALOD HALOCTL [MODULE]
set -euo pipefail
command -v readelf >/dev/null || { echo "FAIL: readelf not found (binutils)" >&2; exit 1; }

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
heavy='^lib(nm|glib-2\.0|gobject-2\.0|gio-2\.0|gnutls)\.so'
fails=0

for bin in "$1" "$2"; do
        libs=$(needed "$bin")
        [ -n "$libs" ] || { echo "FAIL: readelf shows no NEEDED entries for $bin" >&2; fails=$((fails + 1)); continue; }
        if bad=$(grep -E "$heavy" <<<"$libs"); then
                echo "FAIL: $bin links $(tr '\n' ' ' <<<"$bad")(DT_NEEDED); only halod-backend-nm.so may" >&2
                fails=$((fails + 1))
        else
                echo "ok: $(basename "$bin") needs $(tr '\n' ' ' <<<"$libs")"
        fi
done
if [ $# -ge 3 ]; then
        if needed "$3" | grep -qx 'libnm\.so\.0'; then
                echo "ok: $(basename "$3") needs libnm.so.0"
        else
                echo "FAIL: $3 does not link libnm.so.0" >&2
                fails=$((fails + 1))
        fi
fi
exit $((fails > 0))
