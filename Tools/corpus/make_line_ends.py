#!/usr/bin/env python3
"""Generates Tests/Corpus/line-ends.txt: 308 texts whose lines end at soft hyphens and at their paragraphs' ends.

A targeted corpus for how Blink ends lines (rules 22 and 23 of docs/chromium-differences.md): a
soft hyphen before white space shows its hyphen where a line breaks after that white space (the
white space hanging after the hyphen), and the last line of a paragraph takes the rest of the text
whole where it fits with its white space counted, so no break inside it needs to fit as a line's
end (a soft hyphen's hyphen, kerning lost at a break after "-" or "/"). Seven beginnings in five
scripts × eleven endings (a soft hyphen before one and two spaces, a narrow letter, a no-break
space, a tab, an ideographic space or nothing; a break after "-" and "/" before a kerned pair) ×
four continuations (none, a word, a line feed and a line, another soft hyphen). The rules were
written against it.

Deterministic, no input; the standard library only.

Usage: Tools/corpus/make_line_ends.py [--out PATH] [--check]
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_file  # noqa: E402  (same directory)

BEGINNINGS = ["x", "ab cd", "Hello wo", "Таблица ра", "中文", "مرحبا", "T-W"]
ENDINGS = ["\u00AD ", "\u00AD  ", "\u00ADi", "\u00AD\u00A0", "\u00AD\t", "\u00AD\u3000", "\u00AD", "\u00AD \u00AD ",
           "\u00ADl y", "-AV", "/Ty"]
CONTINUATIONS = ["", " end", "\nnext", "\u00ADment"]


def generate():
    return [b + e + c for b in BEGINNINGS for e in ENDINGS for c in CONTINUATIONS]


if __name__ == "__main__":
    corpus_file.main(__doc__, "line-ends.txt", generate)
