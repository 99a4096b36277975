#!/bin/sh
# Allows the Bash call with updatedInput {"command": "echo $1"} (the whole input).
cat >/dev/null
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo %s","description":"rewritten"},"additionalContext":"rewritten to echo %s"}}\n' "$1" "$1"
