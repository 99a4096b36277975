#!/bin/sh
# Plain text and exit 1: a non-blocking error (hooks.md §1.6).
cat >/dev/null
echo "lint failed"
echo "first stderr line" >&2
exit 1
