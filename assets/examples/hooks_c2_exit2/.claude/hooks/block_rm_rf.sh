#!/bin/sh
# PreToolUse hook of the hooks_c2_exit2 scenario (tests/corpus/real-cc-2.1.332):
# a Bash command containing `rm -rf` is blocked with exit 2 and a reason on
# stderr; everything else passes silently (exit 0, no output).
payload=$(cat)
case "$payload" in
  *'"tool_name":"Bash"'* | *'"tool_name": "Bash"'*) ;;
  *) exit 0 ;;
esac
case "$payload" in
  *'rm -rf'*)
    echo "Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)" >&2
    exit 2
    ;;
esac
exit 0
