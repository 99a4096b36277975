#!/bin/sh
# Blocks with exit 2 and a reason on stderr (docs/contract.md#exit-codes-and-stdout).
cat >/dev/null
echo "Blocked by test hook: rm -rf is not allowed" >&2
exit 2
