#!/usr/bin/env python3
"""Generates Tests/Corpus/hyphens.txt: 400 texts of words joined by hyphens, dashes and their neighbours.

A targeted corpus for the break rules around hyphens that differ between Debian's ICU 72 and the newer
ICU in Chromium (UAX #14 LB20a and LB21a of Unicode 16, see docs/chromium-differences.md, rule 19):
Hebrew words (with and without points, sometimes in presentation forms), Cyrillic, Arabic and Latin
words and numbers, joined by "-", the dashes of class HH the bundled fonts draw (U+2010, U+2012,
U+2013, U+05BE), BA characters (U+007C, U+00AD, U+2027, U+2002), spaces, no-break spaces, or a
hyphen with a space on one side. Unlike the held-out corpus, the rules were written against it.

Deterministic: one random.Random seeded with SEED, no other input; the standard library only.

Usage: Tools/corpus/make_hyphens.py [--out PATH] [--check]
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tools", "chromium-reference"))
import chromium_lines  # noqa: E402  (Corpus.escape and unescape)

SEED = 0x48594B4E
COUNT = 400

HEBREW = [chr(c) for c in range(0x05D0, 0x05EB)]
POINTS = [chr(c) for c in list(range(0x05B0, 0x05BD)) + [0x05C1, 0x05C2]]
PRESENTATION = ["\uFB1D", "\uFB2A", "\uFB2E", "\uFB35", "\uFB3B", "\uFB4B"]
CYRILLIC = [chr(c) for c in range(0x0430, 0x0450)]
ARABIC = [chr(c) for c in range(0x0627, 0x063B)] + [chr(c) for c in range(0x0641, 0x064B)]
LATIN = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0123456789"
# What joins two words, with weights: hyphens and dashes most, then BA characters and spaces.
JOINERS = [
    ("-", 8), ("\u2010", 3), ("\u2012", 2), ("\u2013", 4), ("\u05BE", 4), ("|", 2), ("\u00AD", 2),
    ("\u2027", 1), ("\u2002", 1), (" ", 10), ("\u00A0", 2), (" -", 3), ("- ", 2), (" \u2013", 2),
    ("\u00A0-", 1), (" \u05BE", 1), ("--", 1), ("-\u05BE", 1), (",", 1), ("/", 1),
]


def word(r):
    """A word of one script; Hebrew half the time."""
    kind = r.choices(["hebrew", "cyrillic", "arabic", "latin", "number"], [10, 3, 3, 3, 1])[0]
    n = r.randint(1, 7)
    if kind == "hebrew":
        out = ""
        for _ in range(n):
            out += r.choice(PRESENTATION) if r.random() < 0.04 else r.choice(HEBREW)
            if r.random() < 0.15:
                out += r.choice(POINTS)
        return out
    if kind == "number":
        return "".join(r.choice(DIGITS) for _ in range(r.randint(1, 4)))
    return "".join(r.choice({"cyrillic": CYRILLIC, "arabic": ARABIC, "latin": LATIN}[kind]) for _ in range(n))


def generate():
    r = random.Random(SEED)
    joiners, weights = zip(*JOINERS)
    texts = []
    seen = set()
    while len(texts) < COUNT:
        text = word(r)
        for _ in range(r.randint(1, 6)):
            text += r.choices(joiners, weights)[0] + word(r)
        if r.random() < 0.1:
            text = r.choice(["-", "\u2013", "\u05BE"]) + text         # a word-initial hyphen at the start
        if text not in seen:
            seen.add(text)
            texts.append(text)
    return texts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "Tests", "Corpus", "hyphens.txt"))
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    texts = generate()
    for t in texts:
        assert chromium_lines.unescape(chromium_lines.escape(t)) == t, t
    data = "".join(chromium_lines.escape(t) + "\n" for t in texts)
    if a.check:
        with open(a.out, encoding="utf-8") as f:
            same = f.read() == data
        print(f"{a.out}: {'identical' if same else 'DIFFERS'}")
        sys.exit(0 if same else 1)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(data)
    print(f"{a.out}: {len(texts)} texts, {sum(len(t) for t in texts)} code points")


if __name__ == "__main__":
    main()
