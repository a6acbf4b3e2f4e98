#!/usr/bin/env bash
# Crash consistency: kills `asterism ask` and `asterism library import` with SIGKILL at
# random moments, N times (default 50; `make test` runs a few), then checks that nothing
# stored was lost or garbled: PRAGMA integrity_check is ok, every session lists and
# replays, the killed session continues with --session, and `library index` finishes the
# interrupted imports. Uses the built binaries in target/debug (scripted model and
# recorded Sesame answers on loopback; no network).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-50}"
bin="${ASTERISM_BIN_DIR:-target/debug}"
work="$(mktemp -d)"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

coproc MOCK { exec "$bin/asterism-mock-llm" --script crates/testkit/scripts/ngc4258.json; }
pids+=("$MOCK_PID"); read -r model_url <&"${MOCK[0]}"
coproc FIXTURES { exec "$bin/asterism-fixture-server"; }
pids+=("$FIXTURES_PID"); read -r fixture_url <&"${FIXTURES[0]}"
export LLM_BASE_URL="$model_url" LLM_MODEL="qwen-scripted-soak" LLM_API_KEY="soak-key-0123456789"
export SESAME_URL="$fixture_url/cgi-bin/nph-sesame"
export ASTERISM_DATA_DIR="$work/data" ASTERISM_KEYRING=off EMBEDDINGS=none
asterism() { "$bin/asterism" --workspace "$work" "$@"; }

mkdir -p "$work/pdfs"
cp crates/testkit/fixtures/pdfs/*.pdf "$work/pdfs/"

# A session to continue, killed again and again.
asterism ask --json "Where is NGC 4258?" >"$work/first.jsonl"
session="$(head -n 1 "$work/first.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')"

kill_after() { # PID, seconds
  sleep "$2"
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

killed=0
for round in $(seq 1 "$rounds"); do
  delay="$(python3 -c 'import random; print(round(random.uniform(0.02, 0.9), 3))')"
  if (( round % 5 == 0 )); then
    asterism library import --offline --no-index "$work/pdfs" >/dev/null 2>&1 &
  elif (( round % 2 == 0 )); then
    asterism ask --wait --session "$session" "And its distance? (round $round)" >/dev/null 2>&1 &
  else
    asterism ask "Where is M 31? (round $round)" >/dev/null 2>&1 &
  fi
  kill_after "$!" "$delay"
  killed=$((killed + 1))
done

fail() { echo "soak: FAILED: $*" >&2; exit 1; }
integrity="$(python3 - "$ASTERISM_DATA_DIR/asterism.db" <<'PY'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])
PY
)"
[ "$integrity" = "ok" ] || fail "integrity_check: $integrity"

sessions="$(asterism sessions list --json --limit 100000 | python3 -c 'import json,sys; print("\n".join(s["id"] for s in json.load(sys.stdin)))')"
count=0
for id in $sessions; do
  asterism sessions show "$id" >/dev/null || fail "sessions show $id"
  asterism sessions replay "$id" --json >/dev/null || fail "sessions replay $id"
  count=$((count + 1))
done
asterism ask --wait --session "$session" "One more question after $killed kills" >"$work/last.txt" \
  || fail "the killed session does not continue"
asterism library import --offline --no-index "$work/pdfs" >/dev/null 2>&1 || true
asterism library index >/dev/null || fail "library index"
papers="$(asterism library list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
[ "$papers" -ge 4 ] || fail "only $papers of 4 papers in the library"
echo "soak: $killed processes killed with SIGKILL; integrity ok; $count sessions list and replay; the session continues; $papers papers indexed"
echo "1 passed, 0 failed"
