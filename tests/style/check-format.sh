#!/bin/bash
# SPDX-License-Identifier: MIT
# Every C file follows .clang-format (systemd's style). The formatting is pinned to the clang-format
# of Debian 12 (14.x), which CI uses; other versions format some constructs differently.
set -euo pipefail
cd "${SOURCE_DIR:?}"

if ! command -v clang-format >/dev/null; then
        echo "clang-format is not installed (tools/deps test installs it)." >&2
        [ "${CI:-}" = true ] && exit 1
        exit 77
fi
version=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
        echo "clang-format $version is not the pinned 14; the format check runs with clang-format 14 only." >&2
        [ "${CI:-}" = true ] && exit 1
        exit 77
fi

bad=()
while IFS= read -r -d '' f; do
        clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(find lib daemon tests -name '*.[ch]' -print0 | sort -z)

if [ ${#bad[@]} -gt 0 ]; then
        echo "Not formatted as .clang-format says (fix with: clang-format -i FILE):" >&2
        printf '  %s\n' "${bad[@]}" >&2
        exit 1
fi
echo "all C files follow .clang-format"
