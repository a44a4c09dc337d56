#!/usr/bin/env python3
"""Line-count agreement with the committed Chromium fixtures (Python 3 standard library only).

Runs the package's CLI (`textmeasure batch`) over every (text, size, width) of a fixture and, with
--pango, Tools/pango-reference/pango_lines.c too, then prints the agreement of each pair overall, per
corpus and per script (each text classed by its dominant script), and writes every disagreement
with Chromium to .build/chromium-disagreements.tsv (corpus, line, size, width, ours, chromium, pango,
script, text).

Usage:
  swift build -c release --product textmeasure
  Tools/chromium-reference/compare.py [--pango] [--binary PATH] [--corpus multilingual|forced-breaks]
                                      [--breaking pango|browser|browser-strict]
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import chromium_lines  # noqa: E402  (corpus loading, font list, escapes)

ROOT = chromium_lines.ROOT


def load_fixture(name):
    path = os.path.join(ROOT, "Tests", "Fixtures", "chromium", name + ".tsv")
    header, rows = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header.append(line)
                continue
            if line.startswith("line\t"):
                continue
            n, size, width, count = line.split("\t")
            rows.append((int(n), float(size), float(width), int(count)))
    return header, rows


def script_of_char(ch):
    cp = ord(ch)
    if 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or cp in (0x200D, 0xFE0F) or 0x1F1E6 <= cp <= 0x1F1FF:
        return "emoji"
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return None
    cat = unicodedata.category(ch)
    for prefix, script in (("LATIN", "Latin"), ("CYRILLIC", "Cyrillic"), ("GREEK", "Greek"),
                           ("ARABIC", "Arabic"), ("HEBREW", "Hebrew"), ("DEVANAGARI", "Devanagari"),
                           ("THAI", "Thai"), ("HIRAGANA", "Kana"), ("KATAKANA", "Kana"),
                           ("HANGUL", "Hangul"), ("CJK UNIFIED", "Han"), ("CJK COMPATIBILITY IDEOGRAPH", "Han"),
                           ("MATHEMATICAL", "math/symbols")):
        if name.startswith(prefix):
            return script
    if cat in ("Sm", "So"):
        return "math/symbols"
    return None  # spaces, digits, punctuation, marks: no vote


def dominant_script(text):
    votes = collections.Counter(s for s in map(script_of_char, text) if s)
    if not votes:
        return "other (digits, punctuation, spaces)"
    if votes["Kana"] and votes["Kana"] + votes["Han"] >= 0.6 * sum(votes.values()):
        return "Japanese (Kana + Han)"
    script, count = votes.most_common(1)[0]
    if count >= 0.75 * sum(votes.values()):
        return {"Han": "Chinese (Han)"}.get(script, script)
    return "mixed"


def build_binary():
    out = subprocess.run(["swift", "build", "-c", "release", "--product", "textmeasure", "--show-bin-path"],
                         cwd=ROOT, capture_output=True, text=True)
    return os.path.join(out.stdout.strip(), "textmeasure")


def run_ours(binary, cases, breaking="pango"):
    lines = "".join(json.dumps({"text": t, "width": w, "size": s, "breaking": breaking}) + "\n" for t, s, w in cases)
    run = subprocess.run(["nice", "-n", "10", binary, "batch"], input=lines, capture_output=True, text=True,
                         check=True)
    answers = [json.loads(l) for l in run.stdout.splitlines()]
    assert len(answers) == len(cases), f"batch answered {len(answers)} of {len(cases)}"
    return [a.get("lineCount", -1) for a in answers]


def run_pango(cases):
    source = os.path.join(ROOT, "Tools", "pango-reference", "pango_lines.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "pango-lines")
        subprocess.run(f"cc -O2 '{source}' $(pkg-config --cflags --libs pangocairo pangoft2 fontconfig) -o '{exe}'",
                       shell=True, check=True)
        fonts = [os.path.join(ROOT, "Fonts", f) for f in chromium_lines.FONT_FILES]
        data = "".join(f"{s}\t{w}\t{chromium_lines.tsv_escape(t)}\n" for t, s, w in cases)
        run = subprocess.run(["nice", "-n", "10", exe, "--quiet", *fonts], input=data, capture_output=True,
                             text=True, check=True)
    answers = [int(l.split("\t")[0]) for l in run.stdout.splitlines()]
    assert len(answers) == len(cases), f"pango answered {len(answers)} of {len(cases)}"
    return answers


def pct(a, n):
    return f"{a}/{n} = {100.0 * a / n:.2f} %" if n else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary")
    parser.add_argument("--pango", action="store_true", help="also compare Pango (builds pango_lines.c)")
    parser.add_argument("--breaking", default="pango", help="our rules: pango, browser or browser-strict")
    parser.add_argument("--corpus", action="append", choices=list(chromium_lines.GRIDS))
    parser.add_argument("--out", default=os.path.join(ROOT, ".build", "chromium-disagreements.tsv"))
    args = parser.parse_args()
    binary = args.binary or build_binary()
    corpora = args.corpus or list(chromium_lines.GRIDS)

    records = []  # (corpus, line, size, width, ours, chromium, pango, script, text)
    for name in corpora:
        header, rows = load_fixture(name)
        print(f"{name}: {' '.join(h.lstrip('# ') for h in header[:1])}")
        texts = dict(chromium_lines.load_corpus(name))
        cases = [(texts[n], s, w) for n, s, w, _ in rows]
        ours = run_ours(binary, cases, args.breaking)
        pango = run_pango(cases) if args.pango else [None] * len(cases)
        for (n, s, w, c), o, p in zip(rows, ours, pango):
            records.append((name, n, s, w, o, c, p, dominant_script(texts[n]), texts[n]))

    def table(group_key, title):
        groups = collections.defaultdict(list)
        for r in records:
            groups[group_key(r)].append(r)
        print(f"\n{title}")
        cols = ["ours ~ Chromium"] + (["Pango ~ Chromium", "ours ~ Pango"] if args.pango else [])
        print("| " + " | ".join(["group", "texts", "cases"] + cols) + " |")
        print("|" + "---|" * (3 + len(cols)))
        for key in sorted(groups, key=lambda k: (k == "all", str(k))):
            g = groups[key]
            texts = len({(r[0], r[1]) for r in g})
            cells = [pct(sum(r[4] == r[5] for r in g), len(g))]
            if args.pango:
                cells.append(pct(sum(r[6] == r[5] for r in g), len(g)))
                cells.append(pct(sum(r[4] == r[6] for r in g), len(g)))
            print(f"| {key} | {texts} | {len(g)} | " + " | ".join(cells) + " |")

    table(lambda r: "all", "Overall")
    table(lambda r: r[0], "Per corpus")
    table(lambda r: r[7], "Per dominant script (both corpora)")

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("corpus\tline\tsize\twidth\tours\tchromium\tpango\tscript\ttext\n")
        for r in records:
            if r[4] != r[5]:
                f.write("\t".join(map(str, r[:8])) + "\t" + chromium_lines.tsv_escape(r[8]) + "\n")
    dis = [r for r in records if r[4] != r[5]]
    by_text = collections.Counter((r[0], r[1]) for r in dis)
    print(f"\n{len(dis)} disagreements with Chromium in {len(by_text)} texts -> {args.out}")
    for (corpus, n), k in by_text.most_common(25):
        text = dict(chromium_lines.load_corpus(corpus))[n]
        print(f"  {k:4d}  {corpus}:{n}  {chromium_lines.tsv_escape(text)[:90]}")


if __name__ == "__main__":
    main()
