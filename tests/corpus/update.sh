#!/usr/bin/env bash
# Copies ../shared/corpus (the team's corpus, beside the checkout) into
# tests/corpus, the copy the tests read, so that a fresh clone tests without
# it. Run it when the shared corpus gains files; `.ci/run` fails while the two
# differ. `--check` only reports the difference (exit 1 when they differ).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="$here/../../../shared/corpus"
if [ ! -d "$shared" ]; then
  echo "no $shared beside the checkout; nothing to compare" >&2
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  if diff -rq --exclude=update.sh "$shared" "$here"; then
    exit 0
  fi
  echo "tests/corpus differs from ../shared/corpus (above); run tests/corpus/update.sh" >&2
  exit 1
fi
find "$here" -mindepth 1 -maxdepth 1 ! -name update.sh -exec rm -rf {} +
cp -a "$shared/." "$here/"
echo "tests/corpus now equals $shared"
