#!/usr/bin/env python3
"""Check the retrieval question set against the fixture PDFs.

For every question in crates/testkit/fixtures/retrieval/questions.json this
extracts the listed page(s) with pdftotext (poppler-utils), normalises the
text (Unicode NFKC, words split by "-" + newline joined, whitespace collapsed)
and checks that `evidence` occurs on each listed page. A page passes if the
evidence is found in either the reading-order output (`pdftotext`) or the
`-layout` output; the layout output is needed for table rows.

It also reports the OTHER pages of the same PDF on which the evidence occurs,
so ambiguous evidence is visible. Pages are physical 1-based page indexes.

Further checks:
  * fields: `paper` is the stem of a PDF in fixtures/pdfs/, `kind` and `lang`
    are known, `pages` is one page or two consecutive pages, `evidence` is
    5-15 words, a "zh" question is written in Chinese and an "en" one is not;
  * paraphrase: no question shares a run of 6 or more consecutive words with
    the text of its listed page(s);
  * coverage: per paper at least 16 English and 2 Chinese questions, whose
    English pages reach every quarter of the paper; over the set at least 64
    English and 8 Chinese questions, and among the English ones at least 10
    table, 10 caption, 12 number and 3 footnote questions.

Usage: python3 scripts/check-questions.py [--partial] [path/to/questions.json]
--partial skips the coverage checks (for a set still being written).
Exit status is 1 if any check fails.
"""
import collections
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "crates/testkit/fixtures"
DEFAULT_QUESTIONS = FIXTURES / "retrieval/questions.json"
PDF_DIR = FIXTURES / "pdfs"

KINDS = {"prose", "table", "caption", "number", "footnote", "equation"}
LANGS = {"en", "zh"}
KEYS = {"id", "paper", "pages", "kind", "lang", "question", "evidence"}
MAX_EVIDENCE = 150
EVIDENCE_WORDS = (5, 15)
SHARED_RUN = 6  # a question sharing this many consecutive words with its page is copied

MIN_EN_PER_PAPER = 16
MIN_ZH_PER_PAPER = 2
MIN_EN = 64
MIN_ZH = 8
MIN_EN_KINDS = {"table": 10, "caption": 10, "number": 12, "footnote": 3}

CJK = re.compile(r"[\u4e00-\u9fff]")


def normalise(text):
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"-[ \t]*\n\s*", "", text)  # join words hyphenated across lines
    return re.sub(r"\s+", " ", text).strip()


def words(text):
    """Lower-case word tokens; "H.E.S.S.", "n_sigma" and "log-likelihood" count as one word each."""
    return re.findall(r"[a-z0-9]+(?:[._'’-][a-z0-9]+)*", text.lower())


def page_count(pdf):
    out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))


def page_text(pdf, page, layout):
    cmd = ["pdftotext", "-f", str(page), "-l", str(page)]
    if layout:
        cmd.append("-layout")
    cmd += [str(pdf), "-"]
    return normalise(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def pdf_path(paper):
    return PDF_DIR / f"{paper}.pdf"


class Pages:
    """Lazily extracted, normalised page texts per PDF: {page: (raw, layout)}."""

    def __init__(self):
        self.cache = {}

    def get(self, paper):
        if paper not in self.cache:
            pdf = pdf_path(paper)
            self.cache[paper] = {
                p: (page_text(pdf, p, False), page_text(pdf, p, True))
                for p in range(1, page_count(pdf) + 1)
            }
        return self.cache[paper]


def shared_run(question, page_texts):
    """The first run of SHARED_RUN consecutive question words found in the page texts, or None."""
    q = words(question)
    pages = [" " + " ".join(words(t)) + " " for t in page_texts]
    for i in range(len(q) - SHARED_RUN + 1):
        run = " ".join(q[i : i + SHARED_RUN])
        if any(f" {run} " in p for p in pages):
            return run
    return None


def check_fields(q):
    problems = []
    if q["kind"] not in KINDS:
        problems.append(f"unknown kind {q['kind']!r}")
    if q["lang"] not in LANGS:
        problems.append(f"unknown lang {q['lang']!r}")
    has_cjk = bool(CJK.search(q["question"]))
    if q["lang"] == "zh" and not has_cjk:
        problems.append("lang zh but the question has no Chinese characters")
    if q["lang"] == "en" and has_cjk:
        problems.append("lang en but the question has Chinese characters")
    if len(q["evidence"]) > MAX_EVIDENCE:
        problems.append(f"evidence longer than {MAX_EVIDENCE} chars")
    n = len(q["evidence"].split())
    if not EVIDENCE_WORDS[0] <= n <= EVIDENCE_WORDS[1]:
        problems.append(f"evidence has {n} words, want {EVIDENCE_WORDS[0]}-{EVIDENCE_WORDS[1]}")
    listed = q["pages"]
    if not isinstance(listed, list) or not 1 <= len(listed) <= 2:
        problems.append(f"pages must list one or two pages, got {listed!r}")
    elif len(listed) == 2 and listed[1] != listed[0] + 1:
        problems.append(f"two pages must be consecutive, got {listed}")
    return problems


def check_question(q, pages, warnings):
    """Problems with one question (empty list if none); ambiguity goes to warnings."""
    problems = check_fields(q)
    texts = pages.get(q["paper"])
    listed = q["pages"] if isinstance(q["pages"], list) else []
    if not listed or any(p not in texts for p in listed):
        return problems + [f"bad pages {q['pages']!r} (PDF has {len(texts)})"]
    evidence = normalise(q["evidence"])
    for p in listed:
        if not any(evidence in t for t in texts[p]):
            problems.append(f"evidence not found on page {p}")
    others = [p for p, ts in texts.items() if p not in listed and any(evidence in t for t in ts)]
    if others:
        warnings.append(f"{q['id']}: evidence also on page(s) {others}")
    run = shared_run(q["question"], [t for p in listed for t in texts[p]])
    if run:
        problems.append(f"question copies the page: {run!r}")
    return problems


def check_coverage(questions, pages):
    """Set-level failures: counts per paper, lang and kind, and spread over each paper."""
    failures = []
    english = [q for q in questions if q["lang"] == "en"]
    chinese = [q for q in questions if q["lang"] == "zh"]
    if len(english) < MIN_EN:
        failures.append(f"{len(english)} English questions, want at least {MIN_EN}")
    if len(chinese) < MIN_ZH:
        failures.append(f"{len(chinese)} Chinese questions, want at least {MIN_ZH}")
    kinds = collections.Counter(q["kind"] for q in english)
    for kind, least in MIN_EN_KINDS.items():
        if kinds[kind] < least:
            failures.append(f"{kinds[kind]} English {kind} questions, want at least {least}")
    for pdf in sorted(PDF_DIR.glob("*.pdf")):
        paper = pdf.stem
        en = [q for q in english if q["paper"] == paper]
        zh = [q for q in chinese if q["paper"] == paper]
        if len(en) < MIN_EN_PER_PAPER:
            failures.append(f"{paper}: {len(en)} English questions, want at least {MIN_EN_PER_PAPER}")
        if len(zh) < MIN_ZH_PER_PAPER:
            failures.append(f"{paper}: {len(zh)} Chinese questions, want at least {MIN_ZH_PER_PAPER}")
        total = len(pages.get(paper)) if en else 0
        quarters = {min(3, (p - 1) * 4 // total) for q in en for p in q["pages"]} if total else set()
        missing = sorted(set(range(4)) - quarters)
        if en and missing:
            failures.append(f"{paper}: no English question in quarter(s) {[m + 1 for m in missing]} of its pages")
    return failures


def valid_shape(q, failures):
    qid = q.get("id", "?")
    missing = KEYS - q.keys()
    if missing:
        failures.append(f"{qid}: missing keys {sorted(missing)}")
        return False
    if not pdf_path(q["paper"]).is_file():
        failures.append(f"{qid}: no such PDF {q['paper']}.pdf")
        return False
    return True


def report(path, questions, warnings, failures):
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"{len(questions)} questions in {shown}")
    for field in ("paper", "kind", "lang"):
        counts = collections.Counter(q.get(field) for q in questions)
        print(f"  by {field}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    english = collections.Counter(q.get("kind") for q in questions if q.get("lang") == "en")
    print("  English by kind: " + ", ".join(f"{k}={v}" for k, v in sorted(english.items())))
    for w in warnings:
        print("WARN", w)
    for f in failures:
        print("FAIL", f)
    print("OK" if not failures else f"{len(failures)} failure(s)")


def main():
    args = sys.argv[1:]
    partial = "--partial" in args
    args = [a for a in args if a != "--partial"]
    path = Path(args[0]) if args else DEFAULT_QUESTIONS
    questions = json.loads(path.read_text(encoding="utf-8"))
    pages = Pages()
    failures, warnings = [], []
    seen_ids = set()
    valid = []
    for q in questions:
        qid = q.get("id", "?")
        if qid in seen_ids:
            failures.append(f"{qid}: duplicate id")
        seen_ids.add(qid)
        if not valid_shape(q, failures):
            continue
        valid.append(q)
        problems = check_question(q, pages, warnings)
        if problems:
            failures.append(f"{qid}: " + "; ".join(problems))
    if not partial:
        failures += check_coverage(valid, pages)
    report(path, questions, warnings, failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
