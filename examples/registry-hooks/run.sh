#!/bin/sh
# Three real hook packages from npm over every recorded event of a corpus,
# with `hookscope replay --all --exec` (docs/replay-and-backtest.md#three-real-hook-packages).
#
#   examples/registry-hooks/run.sh [CORPUS]      (default: tests/corpus)
#
# Needs npm and node (the packages are Node programs) and the registry;
# HOOKSCOPE names the binary (default: target/release/hookscope). Installs
# into a temporary folder, removed at the end; runs each package's hook as
# its README configures it, each command in a fresh temporary HOME and
# project, without network, writes confined (the defaults). Every recorded
# folder is mapped to an empty stand-in, so guards that check their working
# folder find one.
set -eu
hs=${HOOKSCOPE:-target/release/hookscope}
corpus=${1:-tests/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
npm install --no-audit --no-fund --silent --prefix "$work" \
  cc-safety-net@2.4.5 block-no-verify@1.3.0 tdd-guard@1.7.0
bin="$work/node_modules/.bin"

cat > "$work/cc-safety-net.json" <<JSON
{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$bin/cc-safety-net hook --claude-code"}]}]}}
JSON
cat > "$work/block-no-verify.json" <<JSON
{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "$bin/block-no-verify"}]},
  {"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "$bin/block-no-verify"}]}]}}
JSON
cat > "$work/tdd-guard.json" <<JSON
{"hooks": {"PreToolUse": [{"matcher": "Write|Edit|MultiEdit|TodoWrite", "hooks": [{"type": "command", "command": "$bin/tdd-guard"}]}]}}
JSON

# One --cwd-map per recorded folder that is not here: an empty stand-in.
maps=$("$hs" sessions --json "$corpus" | node -e '
  const rows = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const fs = require("fs"), path = require("path");
  const seen = new Set(); let n = 0;
  for (const r of rows) {
    if (!r.cwd || seen.has(r.cwd) || fs.existsSync(r.cwd) || r.cwd === "/") continue;
    seen.add(r.cwd);
    const here = path.join(process.argv[1], "cwd", String(n++));
    fs.mkdirSync(here, { recursive: true });
    console.log(`--cwd-map=${r.cwd}=${here}`);
  }' "$work")

for pkg in cc-safety-net block-no-verify tdd-guard; do
  echo "=== $pkg"
  # shellcheck disable=SC2086 # one argument per line of $maps
  "$hs" replay --all --exec --yes --examples "${EXAMPLES:-2}" --settings "$work/$pkg.json" $maps "$corpus" \
    | sed -n '/^ran your hooks/,$p'
done
