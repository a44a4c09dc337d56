#!/usr/bin/env python3
"""Generates Tests/Corpus/quotes.txt: 400 texts with quotation marks, most of them East Asian.

A targeted corpus for the break rule around quotation marks that differs between Debian's ICU 72 and
the newer ICU in Chromium (UAX #14 LB19a of Unicode 15.1, see docs/chromium-differences.md, rule 21).
The texts are not written here: they are the held-out corpus's (Tests/Corpus/held-out.txt, made from
Faker's word lists), with quotation marks put around stretches of them (whole words where words are
spaced). Chinese, Japanese and Korean
texts get the marks their writing uses most: “…” and ‘…’ (both), 「…」 and 『…』 (Japanese and
Traditional Chinese), and sometimes "…", «…» or a quotation after "：" or "说"; a fifth of the texts
are Latin, Cyrillic or Greek ones with “…”, «…», „…“ or "…", where nothing may change. Unlike the
held-out corpus, the rule was written against it.

Deterministic: one random.Random seeded with SEED, and the held-out corpus; the standard library only.

Usage: Tools/corpus/make_quotes.py [--out PATH] [--check]
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import os
import random
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_file  # noqa: E402  (same directory)

SEED = 0x51554F54
COUNT = 400
EAST_ASIAN_SHARE = 0.8

# Quotation pairs with weights, per kind of text.
EAST_ASIAN_PAIRS = [("“", "”", 8), ("‘", "’", 3), ("「", "」", 3), ("『", "』", 1), ("\"", "\"", 1), ("«", "»", 1)]
OTHER_PAIRS = [("“", "”", 4), ("«", "»", 2), ("„", "“", 1), ("\"", "\"", 2), ("‘", "’", 1)]


def script_of(text):
    """'cjk' when Han, Kana or Hangul letters are most of the letters, 'other' for Latin, Cyrillic or
    Greek ones, None for the rest."""
    votes = {"cjk": 0, "other": 0, "rest": 0}
    for ch in text:
        if not unicodedata.category(ch).startswith("L"):
            continue
        name = unicodedata.name(ch, "")
        if name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL")):
            votes["cjk"] += 1
        elif name.startswith(("LATIN", "CYRILLIC", "GREEK")):
            votes["other"] += 1
        else:
            votes["rest"] += 1
    total = sum(votes.values())
    if total == 0:
        return None
    for kind in ("cjk", "other"):
        if votes[kind] >= 0.75 * total:
            return kind
    return None


def quote(r, text, pairs, by_words):
    """The text with one to three stretches (not across a line break) between a pair of marks: around
    whole words where words are spaced (Korean, Latin, Cyrillic, Greek), else from any character."""
    opens, closes, weights = zip(*pairs)
    for _ in range(r.randint(1, 3)):
        if by_words:
            starts = [i for i in range(len(text)) if not text[i].isspace() and (i == 0 or text[i - 1].isspace())]
            ends = [i for i in range(1, len(text) + 1) if not text[i - 1].isspace() and (i == len(text) or text[i].isspace())]
            start = r.choice(starts)
            end = r.choice([e for e in ends if e > start][:3])
        else:
            start = r.randrange(len(text))
            end = min(len(text), start + r.randint(1, 14))
        if "\n" in text[start:end] or unicodedata.category(text[start]).startswith("M"):
            continue
        if end < len(text) and unicodedata.category(text[end]).startswith("M"):
            continue
        k = r.choices(range(len(opens)), weights)[0]
        lead = ""
        if opens[k] in "“「" and not by_words and r.random() < 0.2:
            lead = r.choice(["：", "说", "道："])
        text = text[:start] + lead + opens[k] + text[start:end] + closes[k] + text[end:]
    return text


def generate():
    held_out = [corpus_file.chromium_lines.unescape(line) for line in
                open(os.path.join(corpus_file.ROOT, "Tests", "Corpus", "held-out.txt"), encoding="utf-8").read().splitlines() if line]
    east_asian = [t for t in held_out if script_of(t) == "cjk" and len(t) >= 4]
    other = [t for t in held_out if script_of(t) == "other" and len(t) >= 4]
    r = random.Random(SEED)

    def text():
        if r.random() < EAST_ASIAN_SHARE:
            chosen = r.choice(east_asian)
            return quote(r, chosen, EAST_ASIAN_PAIRS, by_words=any("\uAC00" <= ch <= "\uD7A3" for ch in chosen))
        return quote(r, r.choice(other), OTHER_PAIRS, by_words=True)

    return corpus_file.distinct(COUNT, text)


if __name__ == "__main__":
    corpus_file.main(__doc__, "quotes.txt", generate)
