#!/usr/bin/env bash
# Builds and starts the desktop app with your configuration (environment, ./.env,
# {data dir}/.env). With DEMO=1 it starts against the scripted model and the recorded
# Sesame answers instead, so the whole path works without an API key.
# It builds and runs the release build; DEBUG=1 builds and runs a debug build instead
# (faster to compile, slower to run). On a machine without a display it runs under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
npm run ui:build --silent
if [ "${DEBUG:-0}" = "1" ]; then profile=debug; flags=(); else profile=release; flags=(--release); fi
cargo build "${flags[@]}" -p asterism-app -p asterism-testkit --features asterism-app/custom-protocol

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
if [ "${DEMO:-0}" = "1" ]; then
  coproc MOCK { exec target/$profile/asterism-mock-llm --script crates/testkit/scripts/ngc4258.json; }
  pids+=("$MOCK_PID"); read -r model_url <&"${MOCK[0]}"
  coproc FIXTURES { exec target/$profile/asterism-fixture-server; }
  pids+=("$FIXTURES_PID"); read -r fixture_url <&"${FIXTURES[0]}"
  export LLM_BASE_URL="$model_url" LLM_MODEL="qwen-scripted-demo" LLM_API_KEY="demo"
  export SESAME_URL="$fixture_url/cgi-bin/nph-sesame"
  export ASTERISM_DATA_DIR="${ASTERISM_DATA_DIR:-$PWD/target/demo-data}"
  echo "demo: scripted model at $model_url, Sesame fixtures at $fixture_url, data in $ASTERISM_DATA_DIR"
fi

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "no display: running under Xvfb (screen :99-ish, 1280x800)"
  xvfb-run -a -s "-screen 0 1280x800x24" target/$profile/asterism-app
else
  target/$profile/asterism-app
fi
