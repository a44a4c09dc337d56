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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_file  # noqa: E402  (same directory)

CONTROLS = [0x01, 0x07, 0x08, 0x0B, 0x0C, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F]
CONTEXTS = ["x{c}x", "中{c}中", "aaaa{c}bbbb{c}cccc", "مرحبا{c}بالعالم", "שלום{c}עולם", "😀{c}😀", "{c}abc",
            "abc{c}", "a {c} b", "{c}{c}{c}x"]


def generate():
    return [context.format(c=chr(control)) for control in CONTROLS for context in CONTEXTS]


if __name__ == "__main__":
    corpus_file.main(__doc__, "controls.txt", generate)
