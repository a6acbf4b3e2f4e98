#!/usr/bin/env bash
# Runs every test: formatting and lints, the Rust workspace (unit, integration, CLI),
# generated-file freshness, the CLI against a real model server (llama-server), the
# UI's Vitest suite, browser tests of the built UI in Chromium, the release .deb and
# AppImage built and checked from an empty folder, and the native end-to-end test of
# each under Xvfb. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
steps=() marks=()
step() {
  steps+=("$*") marks+=("$(date +%s)")
  echo; echo "==> $* ($(( marks[-1] - started )) s)"
}
# Each step's time, printed at the end whether the run passed or stopped at a step.
step_times() {
  local status=$? end i
  end=$(date +%s)
  echo; echo "==> time per step ($(( end - started )) s in all; exit status $status)"
  for i in "${!steps[@]}"; do
    printf '%6d s  %s\n' "$(( ${marks[i + 1]:-$end} - marks[i] ))" "${steps[i]%% (*}"
  done
}
# A run that stops early also stops the llama-server build started beside it.
stop_background() {
  if [ -n "${real_model_pid:-}" ] && kill -0 "$real_model_pid" 2>/dev/null; then
    kill -- "-$real_model_pid" 2>/dev/null || true
  fi
  rm -f "${real_model_env:-}" "${real_model_env:-}.log"
}
trap 'step_times; stop_background' EXIT

step "dependencies"
scripts/install-deps.sh

# llama-server (for the real-model step, the last) takes about ten minutes of CPU to
# build, once per machine. Built here at the lowest priority, beside the steps below, it
# gets only the CPU time they leave idle (tests waiting on processes, the network, a
# browser); its own process group, so that a failed run stops it. A new session is also
# a new scheduler autogroup, which Linux weighs like the tests' own whatever the niceness
# inside it (the first try took half the CPU and clippy ran 2.3x slower): the group is
# made the lowest too (`/proc/self/autogroup`, where the kernel has autogroups).
real_model_env="$(mktemp)"
setsid bash -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null; exec nice -n 19 scripts/real-model.sh' \
  >"$real_model_env" 2>"$real_model_env.log" &
real_model_pid=$!

step "UI build (embedded in the app binary)"
npm run ui:build --silent

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --features asterism-app/custom-protocol -- -D warnings

step "cargo build (CLI, fake servers and the app with embedded UI)"
cargo build --workspace --features asterism-app/custom-protocol

step "cargo test"
cargo test --workspace --features asterism-app/custom-protocol

# The tests that construct a web context need a display; the same build, nothing compiled.
step "cargo test: the webview's own settings, under Xvfb"
xvfb-run -a cargo test --workspace --features asterism-app/custom-protocol --lib -- --ignored web_memory::

step "generated files are fresh (ui/src/bindings.ts, the shared fold fixture)"
if ! git diff --exit-code -- ui/src/bindings.ts ui/src/timeline/fold.fixture.json; then
  echo "generated files changed: run 'make test' and commit them" >&2
  exit 1
fi

step "crash consistency: 10 ask/import processes killed with SIGKILL (scripts/soak.sh)"
scripts/soak.sh 10

step "UI tests (Vitest)"
npm run ui:test --silent

step "browser tests of the built UI (Chromium, mocked IPC)"
node e2e/browser.mjs

step "release packages (scripts/bundle.sh: the .deb, and the AppImage made from its tree)"
scripts/bundle.sh

step "the installed .deb from an empty folder, and the native end-to-end journey against it (WebKitWebDriver under Xvfb)"
scripts/test-installed.sh deb

step "the AppImage from an empty folder with the host's WebKitGTK hidden, and the native end-to-end journey against it"
scripts/test-installed.sh appimage

step "a real model server: asterism against llama.cpp's llama-server with Gemma 3 270M (scripts/real-model.sh, started beside the first steps, builds and fetches them once into .deps/llama)"
if ! wait "$real_model_pid"; then
  cat "$real_model_env.log" >&2
  exit 1
fi
real_model_pid=
cat "$real_model_env.log"
eval "$(cat "$real_model_env")"
export LLAMA_SERVER LLAMA_MODEL LLAMA_TEMPLATE
# The same profile and features as `cargo test` above, so nothing is compiled again; only
# the real-model tests, which a plain `cargo test` leaves ignored, one server at a time.
cargo test --workspace --features asterism-app/custom-protocol --test all -- --ignored --test-threads 1 real_model::

echo; echo "==> all tests passed in $(( $(date +%s) - started )) s"
