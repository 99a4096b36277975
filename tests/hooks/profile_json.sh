#!/bin/sh
# A shell-profile echo before the JSON: Claude Code reads it all as plain text.
cat >/dev/null
echo "Shell ready"
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"never seen"}}'
