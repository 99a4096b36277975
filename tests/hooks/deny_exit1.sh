#!/bin/sh
# Prints a deny JSON and exits 1: the JSON is honoured, the exit code ignored
# (docs/contract.md#exit-codes-and-stdout, eqtylab/cupcake#117).
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied by JSON on exit 1"}}'
exit 1
