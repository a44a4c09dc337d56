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

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_file  # noqa: E402  (same directory)

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

    def text():
        made = word(r)
        for _ in range(r.randint(1, 6)):
            made += r.choices(joiners, weights)[0] + word(r)
        if r.random() < 0.1:
            made = r.choice(["-", "\u2013", "\u05BE"]) + made         # a word-initial hyphen at the start
        return made

    return corpus_file.distinct(COUNT, text)


if __name__ == "__main__":
    corpus_file.main(__doc__, "hyphens.txt", generate)
