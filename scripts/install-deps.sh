#!/usr/bin/env bash
# Installs what building, running and testing Asterism needs on Debian/Ubuntu:
# WebKitGTK and friends for the Tauri shell, Xvfb and WebKitWebDriver for the native
# end-to-end test, poppler-utils for the parsing benchmarks, and the npm packages.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev
  xvfb xauth imagemagick webkit2gtk-driver poppler-utils
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v cargo >/dev/null || { echo "Rust is needed: https://rustup.rs" >&2; exit 1; }
command -v npm >/dev/null || { echo "Node.js 20 and npm are needed" >&2; exit 1; }

# npm packages (root workspace: the Tauri CLI and the UI), exactly as locked.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

# libpdfium for PDF text extraction (Debian has none): the pypdfium2 wheel on PyPI ships
# it. Pinned by version and sha256; unpacked into .deps/pdfium/, where Asterism looks for
# it (ASTERISM_PDFIUM overrides). Without it the pure-Rust extractor is used instead.
pdfium_dir=.deps/pdfium
if [ ! -f "$pdfium_dir/libpdfium.so" ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  wheel_url="https://files.pythonhosted.org/packages/c8/e5/2e668bc1bc6fe22f9006694b5571a2dd2c9b874d6a21d16ee839c8f7f6ea/pypdfium2-5.15.2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
  wheel_sha256="dc31aea5b0fb9fefc9b537a65f4113980b2c40798445736a7e6565bc85161e37"
  mkdir -p "$pdfium_dir"
  tmp="$(mktemp -d)"
  if curl -fsSL --retry 3 -o "$tmp/pypdfium2.whl" "$wheel_url" \
    && echo "$wheel_sha256  $tmp/pypdfium2.whl" | sha256sum -c --quiet -; then
    python3 - "$tmp/pypdfium2.whl" "$pdfium_dir" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in ("pypdfium2_raw/libpdfium.so", "pypdfium2_raw/version.json"):
        target = sys.argv[2] + "/" + name.split("/")[-1]
        with wheel.open(name) as source, open(target, "wb") as out:
            out.write(source.read())
PY
    echo "installed libpdfium (pypdfium2 5.15.2) into $pdfium_dir"
  else
    echo "warning: could not fetch libpdfium; PDFs will be parsed by the pure-Rust extractor" >&2
  fi
  rm -rf "$tmp"
fi
