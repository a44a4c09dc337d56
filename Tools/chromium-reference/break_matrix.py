#!/usr/bin/env python3
"""Chromium's line-break opportunities around chosen characters, as a committed fixture.

Each text is a character before, a character under test and a character after (any of them may be
several code points: a base with a mark, a ZWJ sequence; the one after may be empty: the end of the
text). Chromium lays each out at its min-content width (`width: 1px; overflow-wrap: normal`, the
rest of the CSS as `chromium_lines.py`'s), where every break opportunity ends a line, and the
fixture records where its lines end: the opportunities, as code point offsets. Once with
`line-break: auto` and once with `line-break: strict`. `LineBreakMatrixTests` compares them with the
opportunities `.browser` and `.browserStrict` find, so no test needs Chromium.

Matrices:
  quotes   quotation marks between East Asian and other characters (Unicode 15.1's LB19a, rule 21 of
           docs/chromium-differences.md) -> Tests/Fixtures/chromium/quote-breaks.tsv

Usage: break_matrix.py [--chromium PATH] quotes [--out FILE]
"""

import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium_lines  # noqa: E402  (same directory)

QUOTE_MATRIX = {
    # East Asian (East_Asian_Width F, W, H) of several classes, and others; with marks; at the start.
    "before": ["中", "。", "「", "ー", "！", "，", "한", "ｶ", "😀", "a", "1", "Ａ", "、", "ぁ", "々", "\u3000",
               "￥", "…", "中\u0301", "a\u0301", " \u0301", "👩\u200d💻", "\u200b", ""],
    # Every kind: Pi and Pf of class QU, QU that is neither ("\"", "'"), OP ("„", "「").
    "quote": ["“", "”", "‘", "’", "\"", "'", "«", "»", "„", "‹", "›", "‟", "⸜", "⸝", "「"],
    "after": ["中", "a", "。", "ー", "、", "1", "😀", "「", "」", "Ａ", "한", " ", "！", "ぁ", "￥", "％", "０",
              "（", "・", "\u3000", "…", "\u0301中", "\u200b中", ""],
}

MATRICES = {"quotes": (QUOTE_MATRIX, os.path.join("Tests", "Fixtures", "chromium", "quote-breaks.tsv"))}

MIN_CONTENT_CSS = {"normal": "overflow-wrap: normal;", "strict": "overflow-wrap: normal; line-break: strict;"}


def texts_of(matrix):
    return [b + q + a for b in matrix["before"] for q in matrix["quote"] for a in matrix["after"]]


def opportunities(session, texts):
    """Per text, the code point offsets (0 < offset < length) where Chromium's lines at 1 px end."""
    result = []
    for text in texts:
        lines = session.call("probe", chromium_lines.page_item(text, []), 17, 1)["lines"]
        joined = "".join(line["text"] for line in lines)
        if joined != text:
            raise RuntimeError(f"lines of {text!r} are {[line['text'] for line in lines]!r}")
        offsets, at = [], 0
        for line in lines[:-1]:
            at += len(line["text"])
            offsets.append(at)
        result.append(offsets)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("matrix", choices=list(MATRICES))
    parser.add_argument("--out")
    args = parser.parse_args()
    matrix, default_out = MATRICES[args.matrix]
    out = args.out or os.path.join(chromium_lines.ROOT, default_out)
    texts = texts_of(matrix)
    rows, version = [], None
    for strictness, css in MIN_CONTENT_CSS.items():
        session = chromium_lines.Session(args.chromium, extra_css=css)
        try:
            version = session.version
            for text, offsets in zip(texts, opportunities(session, texts)):
                rows.append((strictness, text, offsets))
        finally:
            session.close()
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"# {version}, {datetime.date.today().isoformat()}, by Tools/chromium-reference/break_matrix.py "
                f"{args.matrix}: the line-break\n")
        f.write("# opportunities Chromium finds in each text (code point offsets, comma-separated; none: -),\n")
        f.write("# at min-content width with overflow-wrap: normal and line-break: auto (normal) or strict.\n")
        f.write("strictness\ttext\tbreaks\n")
        for strictness, text, offsets in rows:
            f.write(f"{strictness}\t{chromium_lines.escape(text)}\t{','.join(map(str, offsets)) or '-'}\n")
    print(f"{len(rows)} rows -> {out}")


if __name__ == "__main__":
    main()
