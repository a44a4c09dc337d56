#!/usr/bin/env python3
"""Side by side: the lines Chromium makes and the lines `textmeasure measure` makes, for experiments.

Usage: explain.py [--binary PATH] [--breaking pango|browser|browser-strict] SIZE WIDTH TEXT...   (TEXT may use \\n \\t \\uXXXX escapes; a TEXT of
the form corpus:LINE, e.g. multilingual:12, names a corpus text)
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium_lines as cl  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default=os.path.join(cl.ROOT, ".build", "release", "textmeasure"))
    p.add_argument("--lang")
    p.add_argument("--css", default="")
    p.add_argument("--breaking", default="pango", help="ours: pango, browser or browser-strict")
    p.add_argument("size", type=float)
    p.add_argument("width", type=float)
    p.add_argument("texts", nargs="+")
    a = p.parse_args()
    session = cl.Session(lang=a.lang, extra_css=a.css)
    try:
        for text in a.texts:
            corpus, _, line = text.partition(":")
            spans = []
            if corpus in cl.GRIDS and line.isdigit():
                text, spans = {n: (t, s) for n, t, s in cl.load_styled_corpus(corpus)}[int(line)]
            else:
                text = cl.unescape(text)
            chrome = session.call("probe", cl.page_item(text, spans), a.size, a.width)  # ours: the text alone
            ours = json.loads(subprocess.run([a.binary, "measure", "--json", "--breaking", a.breaking, "--size", str(a.size),
                                              "--width", str(a.width), "--", text], capture_output=True, text=True,
                                             check=True).stdout)
            print(f"size {cl.fmt(a.size)} width {cl.fmt(a.width)}: chromium {round(chrome['height'] / 100)} lines, "
                  f"ours {ours['lineCount']}  {json.dumps(text, ensure_ascii=False)[:100]}")
            n = max(len(chrome["lines"]), len(ours["lines"]))
            for i in range(n):
                c = chrome["lines"][i] if i < len(chrome["lines"]) else {"text": "", "width": 0}
                o = ours["lines"][i] if i < len(ours["lines"]) else {"text": "", "width": 0}
                mark = " " if c["text"] == o["text"] else "*"
                print(f" {mark} {c['width']:9.4f} {json.dumps(c['text'], ensure_ascii=False):40s}"
                      f" | {o['width']:9.4f} {json.dumps(o['text'], ensure_ascii=False)}")
    finally:
        session.close()


if __name__ == "__main__":
    main()
