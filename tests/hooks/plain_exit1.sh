#!/bin/sh
# Plain text and exit 1: a non-blocking error (docs/contract.md#exit-codes-and-stdout).
cat >/dev/null
echo "lint failed"
echo "first stderr line" >&2
exit 1
