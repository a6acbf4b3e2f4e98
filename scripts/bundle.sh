#!/usr/bin/env bash
# Builds the release packages with the Tauri bundler: a .deb (and an AppImage where the
# bundler can fetch linuxdeploy) under target/release/bundle/. Each carries the app, the
# `asterism` CLI (/usr/bin/asterism from the .deb), and as resources (/usr/lib/Asterism/)
# libpdfium, ONNX Runtime, the embedding model and the notices of everything shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
npm run ui:build --silent

# The CLI goes in as a Tauri "external binary", which must carry the target triple.
cargo build --release --locked -p asterism-cli
triple="$(rustc -vV | sed -n 's/^host: //p')"
cp target/release/asterism "target/release/asterism-$triple"

config=src-tauri/tauri.bundle.conf.json
npx tauri build --ci --config "$config" --bundles deb -- --locked
# The AppImage bundler downloads linuxdeploy from GitHub on first use; where that is
# out of reach the .deb is still made and this says so.
if ! npx tauri bundle --ci --config "$config" --bundles appimage >target/appimage.log 2>&1; then
  echo "warning: no AppImage (the bundler could not run linuxdeploy; see target/appimage.log)" >&2
fi
ls -l target/release/bundle/*/* 2>/dev/null | grep -E '\.(deb|AppImage)$' || true
