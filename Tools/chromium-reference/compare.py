#!/usr/bin/env python3
"""Line-count and height agreement with the committed Chromium fixtures (Python 3 standard library only).

Runs the package's CLI (`textmeasure batch`) over every (text, size, width) of a fixture and, with
--pango, Tools/pango-reference/pango_lines.c too, then prints the agreement of each pair overall, per
corpus and per script (each text classed by its dominant script): line counts (the fixture's
`lineCount`, Chromium with line-height: 100px; Pango's line count) and heights (ours within 0.5 px of
the fixture's `height`, Chromium with line-height: normal, and of Pango's layout height; batch
output's "height"). Writes every line-count disagreement with Chromium to
.build/chromium-disagreements.tsv (corpus, line, size, width, ours, chromium, pango, script, text,
spans; what categorize.py reads) and every height disagreement to
.build/chromium-height-disagreements.tsv (corpus, line, size, width, ours, chromium, difference,
lines ours, lines chromium, script, text); with --pango, every layout whose line count or height differs
from Pango's to .build/pango-disagreements.tsv.

Corpora: multilingual and forced-breaks by default (the ones the code was tuned on); the held-out
corpus (Tools/corpus/make_held_out.py) and the styled corpus (Tools/corpus/make_styled.py,
Tests/Corpus/styled.jsonl) only when asked for: --corpus held-out, --corpus styled, or --corpus all.
A styled text goes to `textmeasure batch` with its "spans" as they are in the corpus, and to the
Pango harness with its SPANS field (and the bold, italic and mono faces); --plain drops the spans
from what `textmeasure batch` gets (the texts measured as plain text), the references stay styled.

Usage:
  swift build -c release --product textmeasure
  Tools/chromium-reference/compare.py [--pango] [--binary PATH] [--plain]
                                      [--corpus multilingual|forced-breaks|held-out|styled|all ...]
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


HEIGHT_TOLERANCE = 0.5  # px
DEFAULT_CORPORA = ["multilingual", "forced-breaks"]


def load_fixture(name):
    """Header comment lines and rows (line, size, width, lineCount, height or None for 4 columns)."""
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
            fields = line.split("\t")
            if len(fields) not in (4, 5):
                raise SystemExit(f"{path}: bad row {line!r}")
            height = float(fields[4]) if len(fields) == 5 else None
            rows.append((int(fields[0]), float(fields[1]), float(fields[2]), int(fields[3]), height))
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


def batch_line(text, size, width, breaking, spans):
    """One `textmeasure batch` input line; spans (if any) in the corpus's compact form, key order kept."""
    line = json.dumps({"text": text, "width": width, "size": size, "breaking": breaking})
    if spans:
        line = line[:-1] + ', "spans": ' + json.dumps(spans, ensure_ascii=False, separators=(",", ":")) + "}"
    return line + "\n"


def run_ours(binary, cases, breaking="pango"):
    """(lineCount, height) of `textmeasure batch` for each (text, size, width, spans); (-1, None) on an
    error."""
    lines = "".join(batch_line(t, s, w, breaking, spans) for t, s, w, spans in cases)
    run = subprocess.run(["nice", "-n", "10", binary, "batch"], input=lines, capture_output=True, text=True,
                         check=True)
    answers = [json.loads(l) for l in run.stdout.splitlines()]
    assert len(answers) == len(cases), f"batch answered {len(answers)} of {len(cases)}"
    return [(a.get("lineCount", -1), a.get("height")) for a in answers]


def height_agrees(ours, chromium):
    return ours is not None and chromium is not None and abs(ours - chromium) <= HEIGHT_TOLERANCE


def pango_style_options():
    """The harness's options for styled text: every face beside the regular files (bold, italic, mono)
    as --face, and the mono family's name."""
    regular = set(chromium_lines.FONT_FILES)
    options = []
    for _, f, _, _ in chromium_lines.FONT_FACES:
        if f not in regular:
            options += ["--face", os.path.join(ROOT, "Fonts", f)]
    mono = chromium_lines.font_name(os.path.join(ROOT, "Fonts", chromium_lines.MONO_FILE), 1)
    return options + ["--mono-family", mono]


def run_pango(cases):
    """(lineCount, layout height in px) of the Pango harness for each (text, size, width, spans)."""
    source = os.path.join(ROOT, "Tools", "pango-reference", "pango_lines.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "pango-lines")
        subprocess.run(f"cc -O2 '{source}' $(pkg-config --cflags --libs pangocairo pangoft2 fontconfig) -o '{exe}'",
                       shell=True, check=True)
        fonts = [os.path.join(ROOT, "Fonts", f) for f in chromium_lines.FONT_FILES]
        styled = any(spans for *_, spans in cases)
        data = "".join(f"{s}\t{w}\t{chromium_lines.tsv_escape(t)}"
                       + (f"\t{chromium_lines.spans_field(spans)}" if spans else "") + "\n" for t, s, w, spans in cases)
        # Pango draws hex boxes' digits in the family fontconfig matches for `monospace`: the mono faces
        # must be known to it for plain text too (as PangoReference passes them).
        mono = ["--face", os.path.join(ROOT, "Fonts", chromium_lines.MONO_FILE)]
        run = subprocess.run(["nice", "-n", "10", exe, *(pango_style_options() if styled else mono), *fonts],
                             input=data, capture_output=True, text=True, check=True)
    answers = []
    for line in run.stdout.splitlines():
        if line.startswith("  line "):  # --runs output, not asked for
            continue
        fields = line.split("\t")
        if fields[0] == "error":
            answers.append((-1, None))
            continue
        answers.append((int(fields[0]), sum(int(h) for h in fields[2].split(",")) / 1024))
    assert len(answers) == len(cases), f"pango answered {len(answers)} of {len(cases)}"
    return answers


def pct(a, n):
    return f"{a}/{n} = {100.0 * a / n:.2f} %" if n else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary")
    parser.add_argument("--pango", action="store_true", help="also compare Pango (builds pango_lines.c)")
    parser.add_argument("--breaking", default="pango", help="our rules: pango, browser or browser-strict")
    parser.add_argument("--plain", action="store_true",
                        help="measure styled texts as plain text (drop the spans from the batch input only)")
    parser.add_argument("--corpus", action="append", choices=list(chromium_lines.GRIDS) + ["all"],
                        help=f"repeatable; default: {' and '.join(DEFAULT_CORPORA)}; all: every fixture")
    parser.add_argument("--out", default=os.path.join(ROOT, ".build", "chromium-disagreements.tsv"))
    parser.add_argument("--heights-out", default=os.path.join(ROOT, ".build", "chromium-height-disagreements.tsv"))
    parser.add_argument("--pango-out", default=os.path.join(ROOT, ".build", "pango-disagreements.tsv"),
                        help="with --pango: where every layout whose line count or height differs from Pango's goes")
    args = parser.parse_args()
    binary = args.binary or build_binary()
    corpora = args.corpus or DEFAULT_CORPORA
    if "all" in corpora:
        corpora = list(chromium_lines.GRIDS)
    corpora = list(dict.fromkeys(corpora))

    # (corpus, line, size, width, ours, chromium, pango, script, text, ours height, chromium height,
    #  pango height, spans)
    records = []
    for name in corpora:
        header, rows = load_fixture(name)
        print(f"{name}: {' '.join(h.lstrip('# ') for h in header[:1])}")
        if any(r[4] is None for r in rows):
            print(f"  (no height column: regenerate with chromium_lines.py fixtures)")
        texts = {n: (t, spans) for n, t, spans in chromium_lines.load_styled_corpus(name)}
        if args.plain and any(spans for _, spans in texts.values()):
            print("  --plain: the batch gets the texts without their spans; Chromium and Pango lay out the spans")
        cases = [(*texts[n], s, w) for n, s, w, _, _ in rows]
        cases = [(t, s, w, spans) for t, spans, s, w in cases]
        ours = run_ours(binary, [(t, s, w, [] if args.plain else spans) for t, s, w, spans in cases], args.breaking)
        pango = run_pango(cases) if args.pango else [(None, None)] * len(cases)
        for (n, s, w, c, ch), (o, oh), (p, ph) in zip(rows, ours, pango):
            text, spans = texts[n]
            records.append((name, n, s, w, o, c, p, dominant_script(text), text, oh, ch, ph, spans))

    def table(group_key, title, subset=None):
        groups = collections.defaultdict(list)
        for r in subset if subset is not None else records:
            groups[group_key(r)].append(r)
        print(f"\n{title}")
        cols = ["lines ours ~ Chromium", f"height ours ~ Chromium (± {HEIGHT_TOLERANCE:g} px)"]
        cols += ["lines Pango ~ Chromium", "lines ours ~ Pango", "height ours ~ Pango"] if args.pango else []
        print("| " + " | ".join(["group", "texts", "cases"] + cols) + " |")
        print("|" + "---|" * (3 + len(cols)))
        for key in sorted(groups, key=lambda k: (k == "all", str(k))):
            g = groups[key]
            texts = len({(r[0], r[1]) for r in g})
            with_height = [r for r in g if r[10] is not None]
            cells = [pct(sum(r[4] == r[5] for r in g), len(g)),
                     pct(sum(height_agrees(r[9], r[10]) for r in with_height), len(with_height))]
            if args.pango:
                cells.append(pct(sum(r[6] == r[5] for r in g), len(g)))
                cells.append(pct(sum(r[4] == r[6] for r in g), len(g)))
                cells.append(pct(sum(height_agrees(r[9], r[11]) for r in g), len(g)))
            print(f"| {key} | {texts} | {len(g)} | " + " | ".join(cells) + " |")

    table(lambda r: "all", "Overall (" + ", ".join(corpora) + ")")
    table(lambda r: r[0], "Per corpus")
    for name in corpora:
        table(lambda r: r[7], f"Per dominant script: {name}", [r for r in records if r[0] == name])

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("corpus\tline\tsize\twidth\tours\tchromium\tpango\tscript\ttext\tspans\n")
        for r in records:
            if r[4] != r[5]:
                f.write("\t".join(map(str, r[:8])) + "\t" + chromium_lines.tsv_escape(r[8]) + "\t"
                        + json.dumps(r[12], separators=(",", ":")) + "\n")
    dis = [r for r in records if r[4] != r[5]]
    by_text = collections.Counter((r[0], r[1]) for r in dis)
    print(f"\n{len(dis)} line-count disagreements with Chromium in {len(by_text)} texts -> {args.out}")
    for (corpus, n), k in by_text.most_common(25):
        text = dict(chromium_lines.load_corpus(corpus))[n]
        print(f"  {k:4d}  {corpus}:{n}  {chromium_lines.tsv_escape(text)[:90]}")

    fmt = chromium_lines.fmt
    if args.pango:
        pdis = [r for r in records if r[4] != r[6] or not height_agrees(r[9], r[11])]
        with open(args.pango_out, "w", encoding="utf-8") as f:
            f.write("corpus\tline\tsize\twidth\tlinesOurs\tlinesPango\theightOurs\theightPango\tscript\ttext\tspans\n")
            for r in pdis:
                f.write("\t".join([r[0], str(r[1]), fmt(r[2]), fmt(r[3]), str(r[4]), str(r[6]),
                                   "" if r[9] is None else fmt(r[9]), "" if r[11] is None else fmt(r[11]), r[7],
                                   chromium_lines.tsv_escape(r[8]), json.dumps(r[12], separators=(",", ":"))]) + "\n")
        print(f"\n{len(pdis)} layouts whose line count or height differs from Pango's "
              f"({sum(r[4] == r[6] for r in pdis)} of them with the same line count) -> {args.pango_out}")

    hdis = [r for r in records if r[10] is not None and not height_agrees(r[9], r[10])]
    os.makedirs(os.path.dirname(args.heights_out), exist_ok=True)
    with open(args.heights_out, "w", encoding="utf-8") as f:
        f.write("corpus\tline\tsize\twidth\tours\tchromium\tdifference\tlinesOurs\tlinesChromium\tscript\ttext\n")
        for r in hdis:
            diff = fmt(round(r[9] - r[10], 6)) if r[9] is not None else ""
            f.write("\t".join([r[0], str(r[1]), fmt(r[2]), fmt(r[3]), "" if r[9] is None else fmt(r[9]), fmt(r[10]), diff,
                               str(r[4]), str(r[5]), r[7], chromium_lines.tsv_escape(r[8])]) + "\n")
    same_lines = [r for r in hdis if r[4] == r[5]]
    print(f"\n{len(hdis)} height disagreements (more than {HEIGHT_TOLERANCE:g} px) with Chromium, "
          f"{len(same_lines)} of them with the same line count -> {args.heights_out}")
    diffs = collections.Counter(round(r[9] - r[10], 2) for r in same_lines if r[9] is not None)
    if diffs:
        print("  most common differences (ours - Chromium, px) where the line counts agree: "
              + ", ".join(f"{d:+g} ×{k}" for d, k in diffs.most_common(8)))


if __name__ == "__main__":
    main()
