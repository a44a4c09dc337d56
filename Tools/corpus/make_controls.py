#!/usr/bin/env python3
"""Generates Tests/Corpus/controls.txt: 120 texts with control characters in them.

A targeted corpus for the font and width the browser modes give a control character (rule 4 of
docs/chromium-differences.md): Blink draws a C0 control (but tab and line feed) with the first font
that maps it (in the bundled cascade NanumGothic's blank glyph, 0.28 em), DEL and the C1 controls
with Noto Sans Symbols 2's empty glyph, whose ascent and descent the line then reaches; a lone CR,
an FF and NEL advance nothing. Twelve controls, each in ten contexts: between Latin, CJK, Arabic,
Hebrew letters and emoji, twice inside a word, at a text's start and end, between spaces, three in
a row. The rule was written against it.

Deterministic, no input; the standard library only.

Usage: Tools/corpus/make_controls.py [--out PATH] [--check]
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tools", "chromium-reference"))
import chromium_lines  # noqa: E402  (Corpus.escape and unescape)

CONTROLS = [0x01, 0x07, 0x08, 0x0B, 0x0C, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F]
CONTEXTS = ["x{c}x", "中{c}中", "aaaa{c}bbbb{c}cccc", "مرحبا{c}بالعالم", "שלום{c}עולם", "😀{c}😀", "{c}abc",
            "abc{c}", "a {c} b", "{c}{c}{c}x"]


def generate():
    return [context.format(c=chr(control)) for control in CONTROLS for context in CONTEXTS]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "Tests", "Corpus", "controls.txt"))
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
    print(f"{a.out}: {len(texts)} texts")


if __name__ == "__main__":
    main()
