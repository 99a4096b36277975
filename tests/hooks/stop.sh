#!/bin/sh
# Blocks a Stop once: when stop_hook_active is true it lets Claude stop.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '"stop_hook_active": *true'; then
  exit 0
fi
printf '%s\n' '{"decision":"block","reason":"run the tests before stopping"}'
