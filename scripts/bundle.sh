#!/usr/bin/env bash
# Builds the release packages: a .deb with the Tauri bundler, then an AppImage from its
# tree (scripts/appimage.sh), under target/release/bundle/. Each carries the app, the
# `asterism` CLI (/usr/bin/asterism from the .deb), and as resources (/usr/lib/Asterism/)
# libpdfium, ONNX Runtime, the embedding model and the notices of everything shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
npm run ui:build --silent

# The CLI and the app are built with one package selection and one feature list, the
# arguments `tauri build` gives cargo (`--features tauri/custom-protocol --release`, from
# src-tauri/) plus both packages, so the crates they share resolve to the same features
# and compile once: built apart (`-p asterism-cli`, then the app), their feature sets
# differ (serde_json, rustix, ...) and the release profile compiled most of the
# dependency tree twice. The CLI goes in as a Tauri "external binary", which must exist
# (with the target triple in its name) before `tauri build` runs the app's build script,
# so it is built first (`--bin asterism`: only the CLI compiled); `tauri build` then
# finds everything but the app up to date.
packages=(-p asterism-cli -p asterism-app)
(cd src-tauri && cargo build --locked "${packages[@]}" --bin asterism --features tauri/custom-protocol --release)
triple="$(rustc -vV | sed -n 's/^host: //p')"
cp target/release/asterism "target/release/asterism-$triple"

config=src-tauri/tauri.bundle.conf.json
npx tauri build --ci --config "$config" --bundles deb -- --locked "${packages[@]}"
# The AppImage is made from the .deb's tree by scripts/appimage.sh (the Tauri bundler's
# AppImage step downloads its tools from GitHub).
scripts/appimage.sh
ls -l target/release/bundle/*/* 2>/dev/null | grep -E '\.(deb|AppImage)$' || true
