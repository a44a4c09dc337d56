#!/usr/bin/env python3
"""Sorts the disagreements of compare.py into the categories of docs/chromium-differences.md.

Reads .build/chromium-disagreements.tsv (compare.py), lays each disagreeing case out again in Chromium
(its lines) and with `textmeasure measure` (ours), finds the first line where they differ and names
the rule that explains it. Prints counts and up to three examples per category; --json FILE keeps
every case with both line lists.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium_lines as cl  # noqa: E402

SYMBOLS2 = None


BREAKING = "pango"


def ours_lines(binary, text, size, width):
    out = subprocess.run([binary, "measure", "--json", "--breaking", BREAKING, "--size", str(size), "--width",
                          str(width), text],
                         capture_output=True, text=True, check=True).stdout
    return [(l["text"], l["width"]) for l in json.loads(out)["lines"]]


def is_cj(ch):  # UAX #14 class CJ: small kana, prolonged sound mark
    return len(ch) == 1 and ch in "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿーｧｨｩｪｫｬｭｮｯｰ"


def category(text, clines, olines, width, binary, size):
    if "\r" in text.replace("\r\n", ""):
        return "lone CR is no line break"
    if "\u2028" in text or "\u2029" in text:
        return "U+2028/U+2029 are no line breaks"
    if text.endswith("\n"):
        return "final newline makes no empty last line"
    if "\t" in text:
        return "tab stops"
    # first differing line (Chromium's line texts keep their newline)
    cl_texts = [t for t, _ in clines]
    ol_texts = [t for t, _ in olines]
    i = next((k for k, (a, b) in enumerate(zip(cl_texts, ol_texts)) if a.rstrip("\n") != b), min(len(cl_texts), len(ol_texts)))
    if any(t.strip() == "" and t != "" for t in ol_texts[i:i + 2]):
        return "preserved spaces after an overflowing cluster hang"
    c = cl_texts[i].rstrip("\n") if i < len(cl_texts) else ""
    o = ol_texts[i] if i < len(ol_texts) else ""
    start = sum(len(t) for t in cl_texts[:i])
    end_c, end_o = start + len(c), start + len(o)
    def pair(p):
        return (text[p - 1] if p > 0 else "", text[p] if p < len(text) else "")
    a, b = pair(end_o)
    if "\u00ad" in c + o:
        return "soft hyphen: the hyphen's width counts"
    if any(a == "/" for a, _ in (pair(end_o), pair(end_c))) and (0x21 <= ord(b or " ") <= 0x7e):
        return "no break after '/' before ASCII (Blink ASCII pair table)"
    ca, cb = pair(end_c)
    if (ca == "-" and cb.isdigit()) or (a == "-" and b.isdigit()):
        return "break after '-' before a digit (Blink)"
    if is_cj(cb) or is_cj(b):
        return "line-break: normal allows a break before small kana / ー (CJ)"
    scripts = {unicodedata.name(ch, "?").split()[0] for ch in c + o if ord(ch) > 0x7f}
    if any(0x1F000 <= ord(ch) <= 0x1FAFF for ch in c + o):
        return "emoji: first family covering the character (text glyph from Symbols2)"
    if "THAI" in scripts:
        return "Thai segmentation after an overflow break"
    if "HANGUL" in scripts or "HEBREW" in scripts:
        return "space (and other common characters) from the first font, not the run's font"
    if "ARABIC" in scripts:
        return "Arabic: a line ending inside a joined word is reshaped (final form) before it fits"
    # 1/64 px tolerance: Chromium's longer line is too wide for us by at most 1/64 px
    if len(c) > len(o):
        w = ours_lines(binary, c.rstrip(" "), size, 1e6)[0][1] if c.strip() else 0
        if 0 < w - width <= 1 / 64 + 1e-9:
            return "fit tolerance: a line may overflow by up to 1/64 px (LayoutUnit epsilon)"
    if "f" in c + o and ("fi" in text or "ff" in text or "fl" in text) and width <= 40:
        return "ligature at a break inside a word wider than the line"
    if ord(a or " ") < 0x7f and ord(b or " ") < 0x7f:
        return "other ASCII pair (Blink ASCII pair table)"
    return "other"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--binary", default=os.path.join(cl.ROOT, ".build", "release", "textmeasure"))
    p.add_argument("--input", default=os.path.join(cl.ROOT, ".build", "chromium-disagreements.tsv"))
    p.add_argument("--json")
    p.add_argument("--breaking", default="pango", help="our rules: pango, browser or browser-strict")
    a = p.parse_args()
    global BREAKING
    BREAKING = a.breaking
    rows = [l.rstrip("\n").split("\t") for l in open(a.input, encoding="utf-8")][1:]
    texts = {c: {n: (t, spans) for n, t, spans in cl.load_styled_corpus(c)} for c in cl.GRIDS}
    session = cl.Session()
    counts, examples, kept = collections.Counter(), collections.defaultdict(list), []
    try:
        for r in rows:
            corpus, line, size, width = r[0], int(r[1]), float(r[2]), float(r[3])
            text, spans = texts[corpus][line]  # ours: the text alone (the CLI's measure takes no spans)
            clines = [(x["text"], x["width"]) for x in session.call("probe", cl.page_item(text, spans), size, width)["lines"]]
            olines = ours_lines(a.binary, text, size, width)
            cat = category(text, clines, olines, width, a.binary, size)
            counts[cat] += 1
            examples[cat].append((corpus, line, size, width, int(r[4]), int(r[5]), text))
            kept.append({"category": cat, "corpus": corpus, "line": line, "size": size, "width": width,
                         "ours": int(r[4]), "chromium": int(r[5]), "clines": clines, "olines": olines})
    finally:
        session.close()
    for cat, n in counts.most_common():
        print(f"{n:5d}  {cat}")
        for corpus, line, size, width, o, c, text in examples[cat][:3]:
            print(f"         {corpus}:{line} size {cl.fmt(size)} width {cl.fmt(width)}: ours {o}, chromium {c}  "
                  f"{json.dumps(text, ensure_ascii=False)[:70]}")
    if a.json:
        json.dump(kept, open(a.json, "w"), ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main()
