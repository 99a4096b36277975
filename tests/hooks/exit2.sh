#!/bin/sh
# Blocks with exit 2 and a reason on stderr (hooks.md §1.6).
cat >/dev/null
echo "Blocked by test hook: rm -rf is not allowed" >&2
exit 2
