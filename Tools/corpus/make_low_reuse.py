#!/usr/bin/env python3
"""Generates Benchmarks/Corpus/low-reuse.txt: 6,000 Faker texts that share as few words as they can.

The cold benchmark corpus of issue 35. `Benchmarks/compare-pango.py --corpus low-reuse` measures every
text once (the cold workload) and 2,000 of them at 8 widths. The default workloads combine the 196
sentences of Tests/Corpus/multilingual.txt, so most of their words are in the shaped-word cache after
the first few hundred texts; a corpus whose texts repeat little measures what a feed of new text costs.

Texts come from make_held_out.py's generator (Faker's word lists and templates, its fourteen script
groups in the same proportions, its rules: every character in a bundled font, one script per
single-script group, no duplicates) with another seed, and none is a line of another corpus. For each
text the generator makes CANDIDATES texts and keeps, among those of about the first one's length, the
one whose words (runs of letters, digits and marks) were seen least often in the texts kept so far (the
first such on a tie), so the corpus repeats
a word only where a script's word lists run out: Faker's lorem lists hold a few hundred to a few
thousand words per locale, and CJK text is cached per character whatever the corpus.

Deterministic as make_held_out.py (fixed seed, Faker's "now" pinned, PYTHONHASHSEED=0 by running itself
again). Same escapes, one text per line.

Usage: Tools/corpus/make_low_reuse.py [--out PATH] [--check]   (needs `pip install faker==40.63.0 fonttools`)
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import collections
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_held_out as base  # noqa: E402  (Faker setup, fragments, coverage; imports chromium_lines)
from make_held_out import ROOT, chromium_lines  # noqa: E402

SEED = 20261126
SCALE = 3  # make_held_out.py's 2,000 texts per group proportions, three times
CATEGORIES = [(c, n * SCALE) for c, n in base.CATEGORIES]
COUNT = sum(n for _, n in CATEGORIES)
CANDIDATES = 8
WORD = re.compile(r"[\w\u0300-\u036f\u0591-\u05c7\u064b-\u065f\u0670\u06d6-\u06ed\u0900-\u0903\u093a-\u094f"
                  r"\u0951-\u0957\u0962\u0963\u0e31\u0e34-\u0e3a\u0e47-\u0e4e]+")


def words(text):
    return WORD.findall(text)


def other_corpora():
    seen = set()
    for name in ("held-out", "multilingual", "forced-breaks", "styled"):
        seen |= {t for _, t in chromium_lines.load_corpus(name)}
    return seen


def generate():
    gen = base.Generator(SEED)
    coverage = base.Coverage()
    taken = other_corpora()
    seen = set()
    uses = collections.Counter()  # word -> texts kept so far that hold it
    texts = []  # (category, text)
    rejected = collections.Counter()
    for category, n in CATEGORIES:
        for _ in range(n):
            best, best_score, target = None, None, None
            tries = 0
            while best is None or tries < CANDIDATES:
                tries += 1
                t = base.candidate(gen, category, coverage, rejected)
                if t is None:
                    continue
                if t in seen or t in taken:
                    rejected["duplicate"] += 1
                    continue
                # The first candidate draws the length (make_held_out.py's distribution); the others
                # compete only at about that length, so that novelty does not favour short texts.
                target = len(t) if target is None else target
                if abs(len(t) - target) > target // 4 + 4:
                    continue
                ws = words(t)
                # Mean uses of the text's words so far: new words count 0.
                score = sum(uses[w] for w in ws) / len(ws) if ws else 0.0
                if best is None or score < best_score:
                    best, best_score = t, score
            assert chromium_lines.unescape(chromium_lines.escape(best)) == best, best
            seen.add(best)
            uses.update(set(words(best)))
            texts.append((category, best))
    return texts, rejected


def main():
    args = base.arguments(__file__, __doc__, os.path.join(ROOT, "Benchmarks", "Corpus", "low-reuse.txt"))
    texts, rejected = generate()
    data = "".join(chromium_lines.escape(t) + "\n" for _, t in texts)
    assert "\n\n" not in data and len(data.split("\n")) == COUNT + 1
    if not args.check:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
    same = base.write_or_check(args.out, data, check=args.check, count=len(texts), seed=SEED)

    all_words = [w for _, t in texts for w in words(t)]
    distinct = collections.Counter(all_words)
    once = sum(1 for c in distinct.values() if c == 1)
    print(f"\nwords (runs of letters, digits, marks): {len(all_words)}, distinct {len(distinct)} "
          f"({len(distinct) / len(all_words) * 100:.1f} %), seen once {once}")
    print("\nper generator category: texts, median length, distinct words / words")
    for c, _ in CATEGORIES:
        group = [t for cc, t in texts if cc == c]
        ws = [w for t in group for w in words(t)]
        print(f"  {c:18s} {len(group):5d} {statistics.median(len(t) for t in group):6.0f}"
              f"   {len(set(ws)) / max(1, len(ws)) * 100:5.1f} %")
    base.print_scripts_and_lengths([t for _, t in texts], rejected)
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
