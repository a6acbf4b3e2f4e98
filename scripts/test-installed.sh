#!/usr/bin/env bash
# Checks a release package built by scripts/bundle.sh from an empty folder with no
# checkout: the CLI's version, a PDF parsed by the bundled pdfium, an import embedded by
# the bundled model and a search that uses vectors; then the native end-to-end journey
# against the packaged app.
#
#   scripts/test-installed.sh deb       installs the .deb (apt resolves its
#                                       dependencies), checks /usr/bin/asterism and
#                                       /usr/bin/asterism-app, removes it at the end
#   scripts/test-installed.sh appimage  runs the AppImage (the CLI through a link to it
#                                       named `asterism`) with the host's WebKitGTK
#                                       hidden, so only the WebKitGTK inside it can work
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kind="${1:-deb}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
deb="$(ls -t "$root"/target/release/bundle/deb/*.deb | head -1)"
expected="asterism $(dpkg-deb -f "$deb" Version)"
empty="$(mktemp -d)"
fail() { echo "$kind: $*" >&2; exit 1; }

case "$kind" in
  deb)
    package="$(dpkg-deb -f "$deb" Package)"
    # Chinese text renders where the system has no CJK font yet.
    dpkg-deb -f "$deb" Recommends | grep -qw fonts-noto-cjk \
      || fail "the .deb does not recommend fonts-noto-cjk: $(dpkg-deb -f "$deb" Recommends)"
    trap '$sudo dpkg -r "$package" >/dev/null 2>&1 || true; rm -rf "$empty"' EXIT
    echo "installing $deb ($(du -h "$deb" | cut -f1))"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
    cli=/usr/bin/asterism
    app=/usr/bin/asterism-app
    ;;
  appimage)
    app="$(ls -t "$root"/target/release/bundle/appimage/*.AppImage | head -1)"
    trap 'rm -rf "$empty"' EXIT
    echo "running $app ($(du -h "$app" | cut -f1))"
    mkdir -p "$empty/bin"
    ln -s "$app" "$empty/bin/asterism"
    cli="$empty/bin/asterism"
    ;;
  *) fail "say deb or appimage" ;;
esac

cd "$empty"
export ASTERISM_DATA_DIR="$empty/data" HOME="$empty/home"
mkdir -p "$HOME"
cp "$root/crates/testkit/fixtures/pdfs/celerite_ms.pdf" paper.pdf
unset LLM_BASE_URL LLM_API_KEY LLM_MODEL ASTERISM_PDFIUM ASTERISM_EMBEDDING_DIR

if [ "$kind" = appimage ] && ! "$cli" --version >/dev/null 2>&1; then
  echo "the AppImage cannot mount itself here (no FUSE): it extracts itself instead"
  export APPIMAGE_EXTRACT_AND_RUN=1
fi
version="$("$cli" --version)"
[ "$version" = "$expected" ] || fail "asterism --version said '$version'"
echo "ok: $version"

engine="$("$cli" papers parse paper.pdf --json --out paper.md | python3 -c 'import json,sys; print(json.load(sys.stdin)["engine"])')"
[ "$engine" = "pdfium" ] || fail "papers parse used '$engine', not the bundled pdfium"
echo "ok: papers parse read the PDF with $engine"

"$cli" library import paper.pdf >/dev/null
"$cli" library search "Gaussian process kernel for stellar variability" --json >hits.json
python3 - hits.json <<'PY' || fail "library search did not use the bundled embedding model"
import json, sys
results = json.load(open(sys.argv[1]))
hits = results["hits"]
assert results["mode"] == "hybrid", results["mode"]
# Reference lists are kept for keywords only, so not every hit has a similarity.
similar = [hit["similarity"] for hit in hits if hit["similarity"] is not None]
assert hits and similar and hits[0]["similarity"] is not None, hits[:1]
print(f"ok: library search ({results['mode']}), best similarity {max(similar):.3f}")
PY

cd "$root"
journey=(env E2E_APP="$app" xvfb-run -a -s "-screen 0 1280x800x24" node e2e/native.mjs)
if [ "$kind" = deb ]; then
  "${journey[@]}"
  exit
fi
# The AppImage's journey in a mount namespace where the host's libwebkit2gtk and
# libjavascriptcoregtk are empty files and its WebKit folder (helper processes,
# MiniBrowser) is empty: a copy that reached for them would fail to start.
lib=/usr/lib/"$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
mkdir -p "$empty/nothing"
$sudo unshare -m bash -c '
  empty="$1"; lib="$2"; shift 2
  mount --bind "$empty/nothing" "$lib/webkit2gtk-4.1"
  mount --bind /dev/null "$(readlink -f "$lib/libwebkit2gtk-4.1.so.0")"
  mount --bind /dev/null "$(readlink -f "$lib/libjavascriptcoregtk-4.1.so.0")"
  exec "$@"' _ "$empty" "$lib" "${journey[@]}"
