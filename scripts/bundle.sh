#!/usr/bin/env bash
# Builds the release packages: a .deb with the Tauri bundler, then an AppImage from its
# tree (scripts/appimage.sh), under target/release/bundle/. Each carries the app, the
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
# The AppImage is made from the .deb's tree by scripts/appimage.sh (the Tauri bundler's
# AppImage step downloads its tools from GitHub).
scripts/appimage.sh
ls -l target/release/bundle/*/* 2>/dev/null | grep -E '\.(deb|AppImage)$' || true
