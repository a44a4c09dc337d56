"""What the targeted corpus generators of this folder (make_hyphens.py, make_quotes.py,
make_controls.py, make_line_ends.py, make_mixed.py) do with their texts: write them to
Tests/Corpus/NAME, one text per line escaped as the other corpus files (`Corpus.unescape`), or with
--check compare them with the file."""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tools", "chromium-reference"))
import chromium_lines  # noqa: E402  (Corpus.escape and unescape)


def distinct(count, make):
    """The first `count` distinct texts `make()` returns, in order."""
    texts, seen = [], set()
    while len(texts) < count:
        text = make()
        if text not in seen:
            seen.add(text)
            texts.append(text)
    return texts


def main(doc, name, generate):
    """Parses --out and --check, and writes or checks the texts `generate()` returns.

    `doc` is the generator's module docstring (its first line describes the command), `name` the
    corpus file's name in Tests/Corpus."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "Tests", "Corpus", name))
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
