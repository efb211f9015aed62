#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that lib/'s rooms include only what lib/layers.txt lets them.

Every C file of lib/<folder>/ may include headers of its own folder and of the folders layers.txt
names for it, transitively; nothing else of lib/. The order of layers.txt is the only order: a
folder that names one listed below it, or one not listed, is an error too, so the folder graph has
no cycle. Prints every violation as FILE:LINE: what, and exits 1 when there is one.

Usage: check-layers.py [LIB_DIR]   (default: lib/ of the source tree this script sits in)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layers(path):
    """The declared rooms in order, with the rooms each may include (transitively, and itself)."""
    order, allowed, errors = [], {}, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, below = line.partition(":")
            name = name.strip()
            if name in allowed:
                errors.append(f"{path}:{n}: {name} is declared twice")
                continue
            reach = {name}
            for b in below.split():
                if b not in allowed:
                    errors.append(f"{path}:{n}: {name} builds on {b}, which is not declared above it")
                    continue
                reach |= allowed[b]
            allowed[name] = reach
            order.append(name)
    return order, allowed, errors


def folder_of(lib, path, order):
    """The declared room a file lies in: the longest declared folder that contains it."""
    rel = os.path.relpath(path, lib)
    best = None
    for name in order:
        if rel.startswith(name + "/") and (best is None or len(name) > len(best)):
            best = name
    return best, rel


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "lib")
    lib = os.path.normpath(lib)
    order, allowed, errors = read_layers(os.path.join(lib, "layers.txt"))
    checked = 0

    for dirpath, _, files in sorted(os.walk(lib)):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fn)
            room, rel = folder_of(lib, path, order)
            if room is None:
                errors.append(f"{path}: lies in no room of layers.txt (no C file lies directly in lib/)")
                continue
            checked += 1
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if "/" not in target:
                        # Generated headers of the build tree (config.h, nm-module-config.h).
                        if os.path.exists(os.path.join(lib, target)):
                            errors.append(f"{path}:{n}: includes {target} without its folder")
                        continue
                    if not os.path.exists(os.path.join(lib, target)):
                        errors.append(f"{path}:{n}: includes {target}, which is not a header of lib/")
                        continue
                    to, _ = folder_of(lib, os.path.join(lib, target), order)
                    if to not in allowed[room]:
                        direction = "up" if order.index(to) > order.index(room) else "sideways"
                        errors.append(
                            f"{path}:{n}: {room}/ includes {target}: that points {direction}; "
                            f"{room} builds on {', '.join(sorted(allowed[room] - {room})) or 'nothing'}"
                        )

    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"{len(errors)} layering error(s); the order is lib/layers.txt", file=sys.stderr)
        return 1
    print(f"{checked} files in {len(order)} rooms include only what lib/layers.txt allows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
