#!/usr/bin/env bash
# Crash consistency: kills `asterism ask` and `asterism library import` with SIGKILL at
# random moments, N times (default 50; `make test` runs 10), then checks that nothing
# stored was lost or garbled. Each kill reaches the `asterism` process itself (the
# background job execs it, and /proc names the program before the signal is sent).
# Before every kill the database is photographed; afterwards:
# - PRAGMA integrity_check is ok;
# - every message stored before a kill is still there, unchanged;
# - every session whose answer finished (RunFinished) still replays with it, every
#   session lists and replays, and the killed session continues with --session;
# - every paper listed with passages before a kill is still listed with the same
#   passages, and the import run last resumes the interrupted ones without parsing a
#   finished paper again (its parsed_at is unchanged).
# Uses the built binaries in target/debug (scripted model and recorded Sesame answers on
# loopback; no network).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-50}"
bin="${ASTERISM_BIN_DIR:-target/debug}"
work="$(mktemp -d)"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "soak: FAILED: $*" >&2; exit 1; }

coproc MOCK { exec "$bin/asterism-mock-llm" --script crates/testkit/scripts/ngc4258.json; }
pids+=("$MOCK_PID"); read -r model_url <&"${MOCK[0]}"
coproc FIXTURES { exec "$bin/asterism-fixture-server"; }
pids+=("$FIXTURES_PID"); read -r fixture_url <&"${FIXTURES[0]}"
export LLM_BASE_URL="$model_url" LLM_MODEL="qwen-scripted-soak" LLM_API_KEY="soak-key-0123456789"
export SESAME_URL="$fixture_url/cgi-bin/nph-sesame"
export ASTERISM_DATA_DIR="$work/data" ASTERISM_KEYRING=off EMBEDDINGS=none
db="$ASTERISM_DATA_DIR/asterism.db"
# `asterism … &`: the background job execs the program, so $! is asterism's own pid.
# `run …`: the same in the foreground (in a subshell, which the exec replaces).
# (The workspace is a project folder of its own: one holding the data folder is refused.)
asterism() { exec "$bin/asterism" --workspace "$work/project" "$@"; }
run() { ( asterism "$@" ); }

mkdir -p "$work/pdfs" "$work/shots" "$work/project"
cp crates/testkit/fixtures/pdfs/*.pdf "$work/pdfs/"

# What the database holds: messages (session, seq, digest of every column), papers
# with passages (id, passage count, parsed_at) and sessions with a finished run.
cat >"$work/shot.py" <<'PY'
import hashlib, json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=30)
messages = {
    f"{row[0]}/{row[1]}": hashlib.sha256(repr(row).encode()).hexdigest()
    for row in db.execute("SELECT session_id, seq, run_id, role, content, tool_calls, tool_call_id, raw_json FROM agent_messages")
}
papers = {
    row[0]: [row[1], row[2]]
    for row in db.execute(
        "SELECT p.id, (SELECT COUNT(*) FROM chunks c WHERE c.paper_id = p.id), t.parsed_at"
        " FROM papers p JOIN paper_texts t ON t.paper_id = p.id")
    if row[1] > 0
}
json.dump({"messages": messages, "papers": papers}, sys.stdout)
PY

# A session to continue, killed again and again.
run ask --json "Where is NGC 4258?" >"$work/first.jsonl"
session="$(head -n 1 "$work/first.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')"
finished_sessions=("$session")

# Waits DELAY seconds, then kills PID with SIGKILL if it is still the running asterism
# program; sets `outcome` to `killed`, or `ended` when it finished first.
kill_after() { # PID, seconds
  local pid="$1" comm="" status=0
  sleep "$2"
  comm="$(cat "/proc/$pid/comm" 2>/dev/null || true)"
  if [ -z "$comm" ] || grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
    # (It may have failed: the scripted model, shared by killed runs, can be mid-way
    # through another run's turns; its run is then stored as failed.)
    wait "$pid" 2>/dev/null && outcome=ended || outcome=failed
    return
  fi
  [ "$comm" = "asterism" ] || fail "pid $pid is '$comm', not asterism: the kill would miss it"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || status=$?
  [ "$status" -eq 137 ] || fail "pid $pid (asterism) ended with $status, not by SIGKILL"
  outcome=killed
}

killed=0; ended=0; failed=0; points=()
for round in $(seq 1 "$rounds"); do
  python3 "$work/shot.py" "$db" >"$work/shots/$round.json"
  delay="$(python3 -c 'import random; print(round(random.uniform(0.05, 0.9), 3))')"
  # Every seventh run is given time to finish, so finished sessions exist to check.
  (( round % 7 == 0 )) && delay=4
  if (( round % 5 == 0 )); then
    # An import is killed after it reported 0-2 papers done (then the random delay), so
    # papers finished before a kill exist to be checked.
    what=import; asterism library import --offline --no-index "$work/pdfs" >"$work/import-$round.txt" 2>&1 &
    lines=$(( (round / 5) % 3 ))
    while (( $(wc -l <"$work/import-$round.txt") < lines )) && [ -d "/proc/$!" ]; do sleep 0.05; done
  elif (( round % 2 == 0 )); then
    what=continue; asterism ask --wait --session "$session" "And its distance? (round $round)" >/dev/null 2>&1 &
  else
    what=ask; asterism ask --json "Where is M 31? (round $round)" >"$work/ask-$round.jsonl" 2>/dev/null &
  fi
  kill_after "$!" "$delay"
  case "$outcome" in
    killed) killed=$((killed + 1)); points+=("$what@${delay}s") ;;
    ended)
      ended=$((ended + 1))
      if [ "$what" = ask ]; then
        finished_sessions+=("$(head -n 1 "$work/ask-$round.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')")
      fi ;;
    failed) failed=$((failed + 1)) ;;
  esac
done
(( killed * 2 >= rounds )) || fail "only $killed of $rounds processes were killed while running"

integrity="$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$db")"
[ "$integrity" = "ok" ] || fail "integrity_check: $integrity"

python3 "$work/shot.py" "$db" >"$work/after-kills.json"
complete="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["papers"]))' "$work/after-kills.json")"
(( rounds < 10 || complete > 0 )) || fail "no paper was complete before the last kill: the resume check would check nothing"
python3 - "$work/shots" "$work/after-kills.json" <<'PY' || fail "something stored before a kill was lost"
import glob, json, sys
now = json.load(open(sys.argv[2]))
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    shot = json.load(open(path))
    for key, digest in shot["messages"].items():
        assert now["messages"].get(key) == digest, f"message {key} stored before kill {path} changed or vanished"
    for paper, passages in shot["papers"].items():
        assert now["papers"].get(paper) == passages, f"paper {paper} with {passages} before kill {path} is now {now['papers'].get(paper)}"
PY

sessions="$(run sessions list --json --limit 100000 | python3 -c 'import json,sys; print("\n".join(s["id"] for s in json.load(sys.stdin)))')"
count=0
for id in $sessions; do
  run sessions show "$id" >/dev/null || fail "sessions show $id"
  run sessions replay "$id" --json >"$work/replay.jsonl" || fail "sessions replay $id"
  count=$((count + 1))
done
for id in "${finished_sessions[@]}"; do
  run sessions replay "$id" --json | grep -q '"type":"RunFinished"' \
    || fail "session $id finished before the kills and no longer replays its RunFinished"
done
run ask --wait --session "$session" "One more question after $killed kills" >"$work/last.txt" \
  || fail "the killed session does not continue"

# The interrupted imports resume; the papers finished before are not parsed again.
run library import --offline --no-index "$work/pdfs" >"$work/import.txt" 2>&1 \
  || fail "the last import: $(cat "$work/import.txt")"
run library index >/dev/null || fail "library index"
python3 "$work/shot.py" "$db" >"$work/final.json"
python3 - "$work/after-kills.json" "$work/final.json" <<'PY' || fail "a finished paper was parsed again"
import json, sys
before, after = (json.load(open(path)) for path in sys.argv[1:])
for paper, passages in before["papers"].items():
    assert after["papers"].get(paper) == passages, f"{paper}: {passages} -> {after['papers'].get(paper)}"
PY
papers="$(run library list --json | python3 -c '
import json, sys
papers = json.load(sys.stdin)
assert all(p["chunks"] > 0 for p in papers), [p["title"] for p in papers if p["chunks"] == 0]
assert len({p["files"][0]["sha256"] for p in papers}) == len(papers)
print(len(papers))')" || fail "a paper without passages, or twice"
[ "$papers" -eq 4 ] || fail "$papers papers in the library, not the 4 imported"
echo "soak: $killed asterism processes killed with SIGKILL (${points[*]}), $ended ended first, $failed failed first; integrity ok;" \
  "nothing stored before a kill lost; $count sessions list and replay, ${#finished_sessions[@]} finished ones with RunFinished;" \
  "the session continues; $papers papers with passages, the $complete finished before a kill not parsed again"
echo "1 passed, 0 failed"
