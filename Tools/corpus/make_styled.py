#!/usr/bin/env python3
"""Generates Tests/Corpus/styled.jsonl: 1,500 styled texts (a text plus bold/italic/mono/size spans).

The styled counterpart of held-out.txt: texts assembled from Faker's word lists by make_held_out.py's
generator (a different seed; none of them is a line of held-out.txt, multilingual.txt or
forced-breaks.txt), then styled the way chat messages, feed cards and search results are: a bold sender
name run into the message ("**Anna:** text"), bold matched search words, bold and italic phrases, `code`
spans (mono) over identifiers, paths, commands and numbers inserted into the text or already in it, a
larger heading run, a smaller time stamp, a bigger word or emoji, a style over the whole text, and
overlapping spans (bold + italic, code inside bold, a size inside a bold run). A small share of the
spans are edge cases: empty spans (start == end), spans over spaces only, a style change inside a Thai
word and inside an Arabic word, and span edges inside a grapheme cluster (between a base and its
combining mark, inside an emoji ZWJ sequence, between an emoji and its skin tone, between a flag's two
regional indicators).

One JSON object per line, compact, not ASCII-escaped:
  {"text": String, "spans": [{"start": Int, "end": Int, "bold"?: true, "italic"?: true, "mono"?: true,
                              "size"?: Number}, ...]}
start/end count Unicode scalar values (code points) of "text", end exclusive; false or absent
attributes are left out; sizes are absolute px. Spans may overlap: a character is bold / italic / mono
if any span covering it says so; its size is that of the last span in list order covering it that has
one (the batch contract of issue 32). Spans are listed by start (an enclosing span before the spans
inside it), except a few size spans deliberately listed after a span they overlap.

Rules, on top of make_held_out.py's: every character under a mono span is in a font of the mono
cascade (Noto Sans Mono, then the regular cascade without Noto Sans); no text appears twice.

Deterministic as make_held_out.py (a fixed seed, Faker's "now" pinned, PYTHONHASHSEED=0 by running
itself again). Usage: Tools/corpus/make_styled.py [--out PATH] [--check]   (needs faker, fontTools)
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import collections
import json
import os
import re
import statistics
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_held_out as base  # noqa: E402  (Faker setup, fragments, coverage; imports chromium_lines)
from make_held_out import ROOT, chromium_lines, faker  # noqa: E402

from fontTools.ttLib import TTFont  # noqa: E402  (make_held_out.py checked that it is there)

SEED = 20270419
COUNT = 1500

# Latin about a quarter, the other thirteen groups of held-out.txt about equal.
CATEGORIES = [
    ("Latin", 375),
    ("Greek", 87), ("Cyrillic", 87), ("Hebrew", 87), ("Arabic", 87), ("Persian", 87), ("Thai", 87),
    ("Devanagari", 87), ("Chinese (zh_CN)", 86), ("Chinese (zh_TW)", 86), ("Japanese", 86), ("Korean", 86),
    ("emoji", 86), ("mixed", 86),
]
assert sum(n for _, n in CATEGORIES) == COUNT

MONO_FILE = "NotoSansMono-Regular.ttf"

# Where a sender's name comes from, per group (the mixed group takes any of them).
NAME_LOCALES = {
    "Latin": [l for l, _ in base.LATIN_LOCALES], "Greek": ["el_GR"], "Cyrillic": ["ru_RU", "uk_UA"],
    "Hebrew": ["he_IL"], "Arabic": ["ar_AA", "ar_SA", "ar_PS"], "Persian": ["fa_IR"], "Thai": ["th_TH"],
    "Devanagari": ["hi_IN"], "Chinese (zh_CN)": ["zh_CN"], "Chinese (zh_TW)": ["zh_TW"],
    "Japanese": ["ja_JP"], "Korean": ["ko_KR"], "emoji": ["en_US", "de_DE", "fr_FR", "es_ES", "pl_PL"],
}
UNSPACED = {"Chinese (zh_CN)", "Chinese (zh_TW)", "Japanese"}

# Realistic features and their weights; each text takes one to four (a few none, a few many spans).
FEATURES = [
    ("sender", 16), ("search", 13), ("italic", 10), ("bold", 10), ("code", 14), ("heading", 6),
    ("stamp", 6), ("big", 5), ("whole", 5), ("bold+italic", 4), ("code-in-bold", 3), ("size-in-bold", 3),
]
# Edge cases: (feature, share of the texts of the groups where it applies).
EDGE_CASES = [
    ("empty", 0.02), ("spaces", 0.02), ("thai-inside-word", 0.2), ("arabic-inside-word", 0.1),
    ("cluster-mark", 0.08), ("cluster-emoji", 0.25),
]
EDGE_GROUPS = {
    "thai-inside-word": {"Thai", "mixed"}, "arabic-inside-word": {"Arabic", "Persian", "mixed"},
    "cluster-mark": {"Thai", "Devanagari", "Arabic", "Persian", "mixed"}, "cluster-emoji": {"emoji", "mixed"},
}
HEADING_SIZES, STAMP_SIZES, BIG_SIZES, WHOLE_SIZES, INNER_SIZES = (20, 28), (10, 12), (20, 28), (14, 15, 20), (12, 14, 15)
ATTRIBUTES = ("bold", "italic", "mono", "size")


def is_word_char(ch):
    """Letters, marks, digits and the Persian ZWNJ (not the ZWJ: it joins emoji)."""
    return unicodedata.category(ch)[0] in "LMN" or ch == "\u200c"


def is_mark(ch):
    return unicodedata.category(ch).startswith("M")


class Styled:
    """A text being styled: insertions shift the spans after them (and widen the spans around them)."""

    def __init__(self, text):
        self.text = text
        self.spans = []  # [start, end, attributes, kind, late]

    def insert(self, pos, s):
        self.text = self.text[:pos] + s + self.text[pos:]
        for span in self.spans:
            start = span[0]
            if start >= pos:
                span[0] += len(s)
            if span[1] > pos or start >= pos:
                span[1] += len(s)
        return pos

    def add(self, start, end, kind, late=False, **attributes):
        assert 0 <= start <= end <= len(self.text), (start, end, len(self.text), kind)
        self.spans.append([start, end, attributes, kind, late])

    def ordered(self):
        early = sorted((s for s in self.spans if not s[4]), key=lambda s: (s[0], -s[1]))
        return early + [s for s in self.spans if s[4]]


def span_json(start, end, attributes):
    out = {"start": start, "end": end}
    for key in ATTRIBUTES:
        value = attributes.get(key)
        if value:
            out[key] = value
    return out


def flatten(text, spans):
    """Per scalar (bold, italic, mono, size or None) by the contract's rules."""
    out = [[False, False, False, None] for _ in text]
    for span in spans:
        for i in range(span["start"], span["end"]):
            a = out[i]
            a[0] |= bool(span.get("bold"))
            a[1] |= bool(span.get("italic"))
            a[2] |= bool(span.get("mono"))
            if "size" in span:
                a[3] = span["size"]
    return out


class StyledGenerator:
    def __init__(self):
        self.gen = base.Generator(SEED)
        self.rng = self.gen.rng
        self.thai_words = self._thai_words()

    def _thai_words(self):
        from faker.providers.lorem.th_TH import Provider
        return sorted({w for w in Provider.word_list if len(w) >= 2}, key=lambda w: (-len(w), w))

    # ---- where spans may go ----------------------------------------------------------------------

    def words(self, text, category):
        """(start, end) of the text's words: runs of word characters; in Chinese and Japanese, pieces
        of two to four characters of such runs; in Thai, Faker's Thai words found in the runs."""
        words = []
        for s, e in self._word_runs(text):
            if category in UNSPACED and e - s > 4:
                i = s
                while i < e:
                    n = min(e - i, self.rng.randint(2, 4))
                    words.append((i, i + n))
                    i += n
            elif any("\u0e00" <= c <= "\u0e7f" for c in text[s:e]):
                words.extend(self.thai_in(text, s, e))
            else:
                words.append((s, e))
        return words

    @staticmethod
    def _word_runs(text):
        runs, start = [], None
        for i, c in enumerate(text + " "):
            if i < len(text) and is_word_char(c) and not (start is None and is_mark(c)):
                if start is None:
                    start = i
            elif start is not None:
                runs.append((start, i))
                start = None
        return runs

    def thai_in(self, text, s, e):
        """Faker Thai words in text[s:e], longest first from the left; a match must not end before a
        combining mark (then it is not where a word ends)."""
        found, i = [], s
        while i < e:
            for w in self.thai_words:
                j = i + len(w)
                if j <= e and text.startswith(w, i) and (j == len(text) or not is_mark(text[j])):
                    found.append((i, j))
                    i = j
                    break
            else:
                i += 1
        return found

    def phrase(self, text, words, lo=1, hi=4):
        """A run of lo..hi consecutive words: (start, end), or None."""
        if not words:
            return None
        n = self.rng.randint(lo, hi)
        i = self.rng.randrange(len(words))
        j = min(len(words) - 1, i + n - 1)
        s, e = words[i][0], words[j][1]
        if "\n" in text[s:e] and self.rng.random() < 0.7:
            return words[i]
        return s, e

    # ---- code tokens -----------------------------------------------------------------------------

    def code_token(self):
        r = self.rng
        en = self.gen.fk("en_US")
        w = lambda: en.word().lower()  # noqa: E731
        kind = base.weighted(r, [("ident", 5), ("call", 3), ("path", 3), ("file", 2), ("command", 3),
                                 ("number", 3), ("hex", 1), ("version", 2), ("flag", 1), ("assign", 1),
                                 ("ip", 1), ("commit", 1)])
        if kind == "ident":
            parts = [w() for _ in range(r.randint(1, 3))]
            return r.choice(["_".join(parts), parts[0] + "".join(p.capitalize() for p in parts[1:]),
                             "".join(p.capitalize() for p in parts), "_".join(parts).upper()])
        if kind == "call":
            parts = [w() for _ in range(r.randint(1, 2))]
            args = r.choice(["", "", w(), str(r.randint(0, 99)), f"{w()}, {w()}"])
            return parts[0] + "".join(p.capitalize() for p in parts[1:]) + f"({args})"
        if kind == "path":
            return r.choice([en.file_path(depth=r.randint(1, 3)), f"src/{w()}/{en.file_name()}",
                             f"~/{w()}/{w()}", f"./{en.file_name()}", f"/etc/{w()}.conf"])
        if kind == "file":
            return en.file_name()
        if kind == "command":
            return r.choice([f"git checkout -b {w()}-{w()}", f"npm install {w()}", f"make {w()}",
                             f"pip install {w()}=={r.randint(0, 4)}.{r.randint(0, 20)}", f"ls -la {w()}/",
                             f"grep -rn {w()} .", f"cd {w()}", f"kubectl get pods -n {w()}", "git pull --rebase",
                             f"docker run -p {r.choice([80, 3000, 8080])}:{r.choice([80, 8000])} {w()}"])
        if kind == "number":
            return r.choice([str(r.randint(0, 999)), str(r.randint(1000, 99999999)), f"{r.uniform(0, 100):.2f}",
                             f"{r.randint(1, 9999)}ms", f"{r.randint(1, 64)} GB", str(r.choice([200, 404, 500, 503]))])
        if kind == "hex":
            return r.choice([f"0x{r.getrandbits(16):04X}", f"0x{r.getrandbits(32):08x}", f"#{r.getrandbits(24):06x}"])
        if kind == "version":
            return f"{r.choice(['v', '', ''])}{r.randint(0, 12)}.{r.randint(0, 30)}.{r.randint(0, 9)}"
        if kind == "flag":
            return f"--{w()}" + r.choice(["", f"-{w()}", f"={r.randint(1, 16)}"])
        if kind == "assign":
            return f"{w().upper()}_{w().upper()}={r.choice([str(r.randint(0, 1)), 'true', 'false', w()])}"
        if kind == "ip":
            return en.ipv4() + r.choice(["", f":{r.choice([22, 443, 5432, 8080])}"])
        return en.sha1()[:r.choice([7, 8, 10])]

    # ---- features --------------------------------------------------------------------------------

    def sender_name(self, category):
        locales = NAME_LOCALES.get(category) or [l for ls in NAME_LOCALES.values() for l in ls]
        for _ in range(20):
            locale = self.rng.choice(locales)
            f = self.gen.fk(locale)
            name = f.first_name() if self.rng.random() < 0.7 else f.name()
            if category in base.SCRIPT_PREFIXES and not base.letters_of(name, base.SCRIPT_PREFIXES[category]):
                continue
            return name, locale
        return None, None

    def apply(self, st, category, feature):
        """Adds one feature to st; False if it does not apply to this text."""
        r = self.rng
        text = st.text
        if feature == "sender":
            name, locale = self.sender_name(category)
            if not name:
                return False
            colon = "：" if locale[:2] in ("zh", "ja") and r.random() < 0.7 else ":"
            gap = "" if colon == "：" else (" " if r.random() < 0.92 else "  ")
            st.insert(0, name + colon + gap)
            st.add(0, len(name) + (len(colon) if r.random() < 0.8 else 0), "sender", bold=True)
            return True
        if feature == "stamp":
            stamp = self.gen.time()
            if category == "Latin" and r.random() < 0.3:
                stamp = r.choice(["(edited)", "edited", "· " + stamp])
            start = len(st.text) + 1
            st.insert(len(st.text), " " + stamp)
            st.add(start if r.random() < 0.8 else start - 1, len(st.text), "stamp", size=r.choice(STAMP_SIZES))
            return True
        if feature in ("code", "code-in-bold"):
            # mono over a number, date, e-mail or URL already in the text, or a token inserted into it
            existing = [m.span() for m in re.finditer(r"[\w.+-]+@[\w.-]+\w|https?://\S+\w|\b\d[\d:./,-]*\d\b", text)]
            if feature == "code" and existing and r.random() < 0.35:
                s, e = r.choice(existing)
            else:
                token = self.code_token()
                words = self.words(text, category)
                spaced = category not in UNSPACED or r.random() < 0.3
                if words and r.random() < 0.8:
                    i = r.randrange(len(words) + 1)
                    pos = words[i][0] if i < len(words) else words[-1][1]
                else:
                    pos = len(text)
                before = spaced and pos > 0 and not text[pos - 1].isspace()
                after = spaced and pos < len(text) and not text[pos].isspace()
                s = st.insert(pos, (" " if before else "") + token + (" " if after else "")) + (1 if before else 0)
                e = s + len(token)
            st.add(s, e, "code", mono=True, **({"bold": True} if r.random() < 0.08 else {}))
            if feature == "code-in-bold":
                words = [w for w in self.words(st.text, category)]
                left = [w[0] for w in words if w[0] < s] or [s]
                right = [w[1] for w in words if w[1] > e] or [e]
                bs = r.choice([s, r.choice(left[-3:])])
                be = r.choice([e, r.choice(right[:3])])
                st.add(bs, be, "code-in-bold", bold=True)
            return True
        words = self.words(text, category)
        if feature == "search":
            if not words:
                return False
            candidates = [w for w in words if w[1] - w[0] >= 2 and not text[w[0]:w[1]].isdigit()] or words
            s, e = r.choice(candidates)
            query = text[s:e]
            if r.random() < 0.15 and e - s >= 4:  # search as you type: a prefix
                query = query[:r.randint(2, e - s - 1)]
                if is_mark(text[s + len(query)]):
                    query = text[s:e]
            hits = [m.span() for m in re.finditer(re.escape(query), text, re.IGNORECASE)]
            starts = {w[0] for w in words}
            hits = [h for h in hits if h[0] in starts or h == (s, s + len(query))]
            for hs, he in hits[:12]:
                st.add(hs, he, "search", bold=True)
            return True
        if feature in ("italic", "bold"):
            p = self.phrase(text, words, 1, 5)
            if not p:
                return False
            st.add(*p, feature + " phrase", **{feature: True})
            return True
        if feature == "heading":
            m = re.search(r" [—·-] |: |, |\n|。|：", text)
            if m and m.start() > 0:
                end = m.start()
            else:
                p = self.phrase(text, words[:4], 2, 4) if words else None
                if not p:
                    return False
                end = p[1]
            size = r.choice(HEADING_SIZES)
            if r.random() < 0.6:
                st.add(0, end, "heading", bold=True, size=size)
            else:
                st.add(0, end, "heading", size=size)
            return True
        if feature == "big":
            emoji = [m.span() for m in re.finditer(r"[\U0001F000-\U0001FAFF\u2600-\u27BF][\U0001F000-\U0001FAFF\u2600-\u27BF\u200d\ufe0f]*", text)]
            if emoji and r.random() < 0.7:
                s, e = r.choice(emoji)
            elif words:
                s, e = r.choice(words)
            else:
                return False
            st.add(s, e, "big word", size=r.choice(BIG_SIZES))
            return True
        if feature == "whole":
            only_emoji = all(base.is_emoji_scalar(ord(c)) or c in " \ufe0f" for c in text)
            if only_emoji:
                st.add(0, len(text), "whole text", size=r.choice((20, 28)))
            else:
                attr = base.weighted(r, [("bold", 3), ("italic", 3), ("size", 3), ("mono", 1)])
                st.add(0, len(text), "whole text", **{attr: True if attr != "size" else r.choice(WHOLE_SIZES)})
            return True
        if feature == "bold+italic":
            p = self.phrase(text, words, 2, 6)
            if not p:
                return False
            st.add(*p, "bold+italic", bold=True)
            inner = [w for w in words if p[0] <= w[0] and w[1] <= p[1]]
            q = self.phrase(text, inner, 1, 3) if r.random() < 0.5 else self.phrase(text, words, 2, 5)
            st.add(*q, "bold+italic", italic=True)
            return True
        if feature == "size-in-bold":
            p = self.phrase(text, words, 2, 6)
            if not p:
                return False
            inner = [w for w in words if p[0] <= w[0] and w[1] <= p[1]]
            q = self.phrase(text, inner, 1, 2)
            if r.random() < 0.5:
                st.add(*p, "size-in-bold", bold=True)
                st.add(*q, "size-in-bold", size=r.choice(INNER_SIZES + BIG_SIZES))
            else:  # both with a size: the one listed last wins where they overlap
                late = r.random() < 0.3
                st.add(*p, "size-in-bold", bold=True, size=r.choice(HEADING_SIZES), late=late)
                st.add(*q, "size-in-bold", size=r.choice(INNER_SIZES))
            return True
        return self.edge_case(st, category, feature, words)

    def edge_case(self, st, category, feature, words):
        r = self.rng
        text = st.text
        attr = lambda: base.weighted(r, [("bold", 3), ("italic", 1), ("mono", 2), ("size", 2)])  # noqa: E731

        def styled(a):
            return {a: True} if a != "size" else {"size": r.choice(BIG_SIZES + STAMP_SIZES)}

        if feature == "empty":
            cuts = sorted({0, len(text)} | {w[0] for w in words} | {w[1] for w in words})
            pos = r.choice(cuts)
            st.add(pos, pos, "empty", **styled(attr()))
            return True
        if feature == "spaces":
            spaces = [m.span() for m in re.finditer(r" +", text)]
            if not spaces:
                return False
            s, e = r.choice(spaces)
            st.add(s, e, "spaces only", **styled(attr()))
            return True
        # A span ending inside a word of a script: at a character that is not a mark (nor a joiner).
        inside_word = {"thai-inside-word": ("\u0e00", "\u0e7f", "", "thai inside word"),
                       "arabic-inside-word": ("\u0600", "\u06ff", "\u200c\u200d", "arabic inside word")}
        if feature in inside_word:
            first, last, joiners, label = inside_word[feature]
            cut_at = lambda s, e: [i for i in range(s + 1, e) if not is_mark(text[i]) and text[i] not in joiners]  # noqa: E731
            inside = [(s, e) for s, e in words if e - s >= 4 and first <= text[s] <= last and cut_at(s, e)]
            if not inside:
                return False
            s, e = r.choice(inside)
            cut = r.choice(cut_at(s, e))
            self._inside_word_span(st, s, e, cut, words, label)
            return True
        if feature == "cluster-mark":
            cuts = [i for i in range(1, len(text)) if is_mark(text[i]) and unicodedata.category(text[i - 1])[0] in "LM"
                    and text[i] not in "\ufe0e\ufe0f"]
            if not cuts:
                return False
            cut = r.choice(cuts)
            word = next((w for w in words if w[0] < cut < w[1]), (max(0, cut - 1), min(len(text), cut + 1)))
            self._inside_word_span(st, word[0], word[1], cut, words, "cluster: base | mark")
            return True
        if feature == "cluster-emoji":
            cuts = []
            for i in range(1, len(text)):
                c, p = ord(text[i]), ord(text[i - 1])
                if text[i] == "\u200d" or text[i - 1] == "\u200d" or 0x1F3FB <= c <= 0x1F3FF:
                    cuts.append(i)
                elif 0x1F1E6 <= c <= 0x1F1FF and 0x1F1E6 <= p <= 0x1F1FF:
                    k = i - 1  # the second indicator of a pair (pairs count from the run's start)
                    while k > 0 and 0x1F1E6 <= ord(text[k - 1]) <= 0x1F1FF:
                        k -= 1
                    if (i - k) % 2 == 1:
                        cuts.append(i)
            if not cuts:
                return False
            cut = r.choice(cuts)
            s = cut
            while s > 0 and not text[s - 1].isspace():
                s -= 1
            e = cut
            while e < len(text) and not text[e].isspace():
                e += 1
            if r.random() < 0.5:
                st.add(s, cut, "cluster: inside emoji", **styled(r.choice(["bold", "size", "size"])))
            else:
                st.add(cut, e, "cluster: inside emoji", **styled(r.choice(["bold", "size", "size"])))
            return True
        raise ValueError(feature)

    def _inside_word_span(self, st, s, e, cut, words, kind):
        """A span that starts or ends at cut, inside the word s..e (a prefix match, a bold suffix...)."""
        r = self.rng
        a = base.weighted(r, [("bold", 5), ("size", 2), ("mono", 1), ("italic", 1)])
        attributes = {a: True} if a != "size" else {"size": r.choice(INNER_SIZES + BIG_SIZES)}
        if r.random() < 0.5:
            st.add(s if r.random() < 0.7 else max([w[0] for w in words if w[0] < s] or [s]), cut, kind, **attributes)
        else:
            st.add(cut, e if r.random() < 0.7 else min([w[1] for w in words if w[1] > e] or [e]), kind, **attributes)

    def many(self, st, category):
        """8 to 14 spans: a search for a few words, each occurrence bold, and more emphasis around."""
        r = self.rng
        words = self.words(st.text, category)
        if len(words) < 10:
            return False
        picked = sorted(r.sample(range(len(words)), min(len(words), r.randint(8, 14))))
        for i in picked:
            s, e = words[i]
            a = base.weighted(r, [("bold", 6), ("italic", 2), ("mono", 1), ("size", 1)])
            st.add(s, e, "many: word", **({a: True} if a != "size" else {"size": r.choice(INNER_SIZES)}))
        return True

    # ---- texts -----------------------------------------------------------------------------------

    def styled_text(self, category, plain):
        r = self.rng
        st = Styled(plain)
        applied = []
        x = r.random()
        if x < 0.03:
            return st, applied  # no spans at all: the styled path with nothing to do
        if x < 0.06 and len(plain) > 80 and self.many(st, category):
            return st, ["many"]
        n = base.weighted(r, [(1, 46), (2, 34), (3, 14), (4, 6)])
        # text-changing features first, so that the spans after them are placed on the final text
        chosen = []
        for _ in range(n):
            f = base.weighted(r, FEATURES)
            if f not in chosen or f in ("code", "search", "italic", "bold"):
                chosen.append(f)
        for feature, share in EDGE_CASES:
            if category in EDGE_GROUPS.get(feature, {category}) and r.random() < share:
                chosen.append(feature)
        order = {"code": 0, "code-in-bold": 0, "stamp": 1, "sender": 2}
        chosen.sort(key=lambda f: order.get(f, 3))
        for f in chosen:
            if self.apply(st, category, f):
                applied.append(f)
        if not st.spans:  # nothing applied: a bold phrase, the most common styling there is
            if self.apply(st, category, "bold") or self.apply(st, category, "whole"):
                applied.append("bold")
        return st, applied


class MonoCoverage:
    """The union of the mono cascade's cmaps: Noto Sans Mono, then the regular cascade without Noto Sans."""

    def __init__(self):
        self.covered = set()
        for name in [MONO_FILE] + chromium_lines.FONT_FILES[1:]:
            font = TTFont(os.path.join(ROOT, "Fonts", name), lazy=True)
            self.covered |= set(font.getBestCmap())
            font.close()

    def problem(self, text, spans):
        for span in spans:
            if span.get("mono"):
                for ch in text[span["start"]:span["end"]]:
                    if ch not in "\n" and ord(ch) not in base.IGNORABLE and ord(ch) not in self.covered:
                        return f"not in the mono cascade: U+{ord(ch):04X}"
        return None


def other_corpora():
    seen = set()
    for name in ("held-out", "multilingual", "forced-breaks"):
        seen |= {t for _, t in chromium_lines.load_corpus(name)}
    return seen


def generate():
    g = StyledGenerator()
    coverage, mono = base.Coverage(), MonoCoverage()
    taken = other_corpora()
    seen = set()
    rows = []  # (category, text, spans, kinds, features)
    rejected = collections.Counter()
    for category, n in CATEGORIES:
        made = 0
        while made < n:
            plain = g.gen.text(category).strip(" ")
            plain = plain.strip("\n") if plain.strip("\n") else plain
            if not plain.strip():
                rejected["empty"] += 1
                continue
            if plain in taken:
                rejected["in another corpus"] += 1
                continue
            st, features = g.styled_text(category, plain)
            text = st.text
            spans = [span_json(s, e, a) for s, e, a, _, _ in st.ordered()]
            kinds = [k for _, _, _, k, _ in st.ordered()]
            problem = coverage.problem(text) or mono.problem(text, spans)
            if any(grapheme_edges(text, [s]) for s, k in zip(spans, kinds) if not k.startswith("cluster")):
                problem = "a span edge inside a grapheme cluster by accident"
            if problem:
                rejected[problem.split(":")[0]] += 1
                continue
            if text in seen or text in taken:
                rejected["duplicate"] += 1
                continue
            seen.add(text)
            rows.append((category, text, spans, kinds, features))
            made += 1
    return rows, rejected


def dump(text, spans):
    return json.dumps({"text": text, "spans": spans}, ensure_ascii=False, separators=(",", ":"))


def grapheme_edges(text, spans):
    """Span edges that fall inside a grapheme cluster (the simple cases this corpus makes)."""
    edges = 0
    for span in spans:
        for pos in {span["start"], span["end"]}:
            if 0 < pos < len(text) and span["start"] != span["end"]:
                c, p = text[pos], text[pos - 1]
                if is_mark(c) or c == "\u200d" or p == "\u200d" or 0x1F3FB <= ord(c) <= 0x1F3FF or (
                        0x1F1E6 <= ord(c) <= 0x1F1FF and 0x1F1E6 <= ord(p) <= 0x1F1FF):
                    edges += 1
    return edges


def main():
    args = base.arguments(__file__, __doc__, os.path.join(ROOT, "Tests", "Corpus", "styled.jsonl"))
    rows, rejected = generate()
    data = "".join(dump(t, s) + "\n" for _, t, s, _, _ in rows)
    assert len(data.split("\n")) == COUNT + 1
    for line in data.split("\n")[:-1]:  # what readers get back
        obj = json.loads(line)
        assert list(obj) == ["text", "spans"] and all(0 <= s["start"] <= s["end"] <= len(obj["text"]) for s in obj["spans"])
    same = base.write_or_check(args.out, data, check=args.check, count=len(rows), seed=SEED)

    print("\nper group: texts, spans, median length")
    for c, n in CATEGORIES:
        g = [r for r in rows if r[0] == c]
        print(f"  {c:18s} {len(g):5d} {sum(len(r[2]) for r in g):6d}   {statistics.median(len(r[1]) for r in g):5.0f}")
    counts = collections.Counter(len(r[2]) for r in rows)
    print("\nspans per text: " + ", ".join(f"{k}: {counts[k]}" for k in sorted(counts)))
    print(f"  1-4 spans: {sum(v for k, v in counts.items() if 1 <= k <= 4)}, 8 or more: "
          f"{sum(v for k, v in counts.items() if k >= 8)}; spans in all: {sum(len(r[2]) for r in rows)}")
    kinds = collections.Counter(k for r in rows for k in r[3])
    texts_with = collections.Counter(k for r in rows for k in set(r[3]))
    print("\nspan kinds (spans, texts):")
    for k, v in kinds.most_common():
        print(f"  {k:24s} {v:5d} {texts_with[k]:5d}")
    attrs = collections.Counter(a for r in rows for s in r[2] for a in ATTRIBUTES if a in s)
    print("\nattributes: " + ", ".join(f"{a} {attrs[a]}" for a in ATTRIBUTES))
    sizes = collections.Counter(s["size"] for r in rows for s in r[2] if "size" in s)
    print("sizes: " + ", ".join(f"{k} px ×{v}" for k, v in sorted(sizes.items())))
    overlap = 0
    for _, t, spans, _, _ in rows:
        if any(a["start"] < b["end"] and b["start"] < a["end"] for i, a in enumerate(spans) for b in spans[i + 1:]):
            overlap += 1
    whole = sum(any(s["start"] == 0 and s["end"] == len(t) for s in spans) for _, t, spans, _, _ in rows)
    print(f"texts with overlapping spans: {overlap}; with a span over the whole text: {whole}; "
          f"span edges inside a grapheme cluster: {sum(grapheme_edges(t, s) for _, t, s, _, _ in rows)}")
    base.print_scripts_and_lengths([t for _, t, _, _, _ in rows], rejected)
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
