#!/usr/bin/env bash
# Writes the upgrade fixture: a data folder made by a release's own binaries (three
# sessions with tool calls, an imported paper, a note), and what that release prints
# for it, for crates/cli/tests/suite/upgrade.rs to compare the current build against.
#
#   scripts/make-upgrade-fixture.sh BIN_DIR OUT_DIR
#
# BIN_DIR holds that release's `asterism`, `asterism-mock-llm` and
# `asterism-fixture-server` (build them from a worktree of the release's commit). The
# model is scripted by crates/testkit/scripts/upgrade-journeys.json; every service is
# the fixture server on loopback, so the run is offline and repeatable.
set -euo pipefail
bin=$(realpath "$1")
out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

"$bin/asterism-mock-llm" --script "$root/crates/testkit/scripts/upgrade-journeys.json" > "$work/llm.url" &
"$bin/asterism-fixture-server" > "$work/fixtures.url" &
for file in llm fixtures; do
  for _ in $(seq 100); do [ -s "$work/$file.url" ] && break; sleep 0.1; done
done
llm=$(head -1 "$work/llm.url")
fixtures=$(head -1 "$work/fixtures.url")

export ASTERISM_DATA_DIR="$work/data" ASTERISM_KEYRING=off EMBEDDINGS=none HOME="$work"
export LLM_BASE_URL="$llm" LLM_MODEL=qwen-scripted LLM_API_KEY=sk-upgrade-not-a-real-key
export SESAME_URL="$fixtures/cgi-bin/nph-sesame" ADS_API_URL="$fixtures/ads"
export ARXIV_API_URL="$fixtures/arxiv-api" ARXIV_URL="$fixtures/arxiv"
mkdir -p "$work/project"
cd "$work/project"
cp "$root/crates/testkit/fixtures/pdfs/rudolf_ms.pdf" .
asterism() { "$bin/asterism" "$@"; }

asterism library import --offline rudolf_ms.pdf > /dev/null
asterism ask "Where is NGC 4258?" > /dev/null
asterism ask "Note that Kepler 1627 is a young planet host" > /dev/null
asterism ask "How old is Kepler 1627?" > /dev/null

rm -rf "$out"
mkdir -p "$out/expected"
asterism sessions list --json > "$out/expected/sessions.json"
for id in $(python3 -c 'import json,sys; print(" ".join(s["id"] for s in json.load(open(sys.argv[1]))))' "$out/expected/sessions.json"); do
  asterism sessions show "$id" --json > "$out/expected/session-$id.json"
done
asterism library list --json > "$out/expected/library.json"
asterism library notes --json > "$out/expected/notes.json"
# One file: the WAL folded in, nothing else of the data folder.
sqlite3 "$work/data/asterism.db" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null
cp "$work/data/asterism.db" "$out/asterism.db"
echo "wrote $out: $(ls "$out/expected" | wc -l) expected outputs, $(du -h "$out/asterism.db" | cut -f1) database"
