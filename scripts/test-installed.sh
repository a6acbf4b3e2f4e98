#!/usr/bin/env bash
# Installs the .deb built by scripts/bundle.sh (apt resolves its dependencies), and from
# an empty folder with no checkout checks what an astronomer's first minutes need:
# the CLI's version, a PDF parsed by the bundled pdfium, an import embedded by the
# bundled model and a search that uses vectors; then the native end-to-end journey
# against the installed /usr/bin/asterism-app. Removes the package at the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
deb="$(ls -t "$root"/target/release/bundle/deb/*.deb | head -1)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
package="$(dpkg-deb -f "$deb" Package)"
empty="$(mktemp -d)"
cleanup() { $sudo dpkg -r "$package" >/dev/null 2>&1 || true; rm -rf "$empty"; }
trap cleanup EXIT

echo "installing $deb ($(du -h "$deb" | cut -f1))"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
fail() { echo "installed package: $*" >&2; exit 1; }

cd "$empty"
export ASTERISM_DATA_DIR="$empty/data" HOME="$empty/home"
mkdir -p "$HOME"
cp "$root/crates/testkit/fixtures/pdfs/celerite_ms.pdf" paper.pdf
unset LLM_BASE_URL LLM_API_KEY LLM_MODEL ASTERISM_PDFIUM ASTERISM_EMBEDDING_DIR

version="$(/usr/bin/asterism --version)"
[ "$version" = "asterism $(dpkg-deb -f "$deb" Version)" ] || fail "asterism --version said '$version'"
echo "ok: $version"

engine="$(/usr/bin/asterism papers parse paper.pdf --json --out paper.md | python3 -c 'import json,sys; print(json.load(sys.stdin)["engine"])')"
[ "$engine" = "pdfium" ] || fail "papers parse used '$engine', not the bundled pdfium"
echo "ok: papers parse read the PDF with $engine"

/usr/bin/asterism library import paper.pdf >/dev/null
/usr/bin/asterism library search "Gaussian process kernel for stellar variability" --json >hits.json
python3 - hits.json <<'PY' || fail "library search did not use the bundled embedding model"
import json, sys
results = json.load(open(sys.argv[1]))
hits = results["hits"]
assert results["mode"] == "hybrid", results["mode"]
assert hits and all(hit["similarity"] is not None for hit in hits), hits[:1]
print(f"ok: library search ({results['mode']}), best similarity {hits[0]['similarity']:.3f}")
PY

cd "$root"
E2E_APP=/usr/bin/asterism-app xvfb-run -a -s "-screen 0 1280x800x24" node e2e/native.mjs
