#!/usr/bin/env python3
"""Generates Tests/Corpus/held-out.txt: 2,000 texts made from Faker's word lists (texts we did not write).

A benchmark/test corpus of texts the measuring code was never tuned on. Deterministic: a fixed seed,
one Faker instance per locale seeded from it, one random.Random for every choice made here, no
date that depends on today (Faker's "now" pinned to FAKER_NOW), and PYTHONHASHSEED=0 (the script runs
itself again with it: some of Faker's lists are built from sets). The same Faker and Python versions
give the same file (Tools/corpus/README.md records the versions it was made with).

Every text is built from fragments (lorem sentences and words where the locale has them, names,
addresses, companies, job titles, catch phrases, cities, streets, dates, prices, phone numbers, user
names, e-mails, URLs, emoji) until it reaches a length drawn from a chat-message-like distribution
(many short texts, some long, at most ~400 characters). A text is kept only if
  - every character is in the cmap of one of the bundled fonts (Fonts/, BundledFonts.fileNames), except
    the default-ignorable joiners and variation selectors (ZWJ, ZWNJ, VS1-VS16);
  - it has no character outside the BMP other than emoji;
  - a single-script category's letters are all of that script (Faker falls back to English for
    providers a locale lacks; such fragments are dropped);
  - it is not a duplicate.

Output: one text per line, escaped like the other corpus files (Corpus.unescape): `\\\\`, `\\n`, `\\r`,
`\\t`, and `\\uXXXX` for invisible characters (controls, format characters other than ZWJ, spaces other
than U+0020, line/paragraph separators); everything else literal UTF-8.

Usage: Tools/corpus/make_held_out.py [--out PATH] [--check]   (needs `pip install faker`, and fontTools)
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import argparse
import collections
import datetime
import math
import os
import random
import statistics
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tools", "chromium-reference"))
import chromium_lines  # noqa: E402  (BundledFonts.fileNames, Corpus.escape and unescape)
import compare  # noqa: E402  (the dominant-script classes compare.py reports by)

try:
    import faker
    from faker import Faker
except ImportError:
    raise SystemExit("make_held_out.py: needs Faker (pip install faker)")
try:
    from fontTools.ttLib import TTFont
except ImportError:
    raise SystemExit("make_held_out.py: needs fontTools (pip install fonttools)")

SEED = 20261124
# Faker's day_of_week, month_name and date draw a moment between 1970 and now: pinned, so that the corpus
# does not depend on the day it is generated.
FAKER_NOW = datetime.datetime(2026, 1, 1)
COUNT = 2000
MAX_LENGTH = 400

# (category, number of texts). Latin about a quarter, the other thirteen about equal.
CATEGORIES = [
    ("Latin", 500),
    ("Greek", 116), ("Cyrillic", 116), ("Hebrew", 116), ("Arabic", 116), ("Persian", 115),
    ("Thai", 115), ("Devanagari", 115), ("Chinese (zh_CN)", 115), ("Chinese (zh_TW)", 115),
    ("Japanese", 115), ("Korean", 115), ("emoji", 115), ("mixed", 116),
]
assert sum(n for _, n in CATEGORIES) == COUNT

# Locales whose lorem provider has its own word list (others fall back to Latin lorem ipsum).
LOREM = {"en_US", "de_DE", "fr_FR", "pl_PL", "vi_VN", "es_ES", "it_IT", "cs_CZ", "nl_NL", "el_GR",
         "ru_RU", "uk_UA", "he_IL", "ar_AA", "fa_IR", "th_TH", "zh_CN", "zh_TW", "ja_JP"}
LATIN_LOCALES = [("en_US", 4), ("de_DE", 3), ("fr_FR", 3), ("pl_PL", 3), ("vi_VN", 3), ("es_ES", 1),
                 ("it_IT", 1), ("cs_CZ", 1), ("nl_NL", 1), ("pt_BR", 1), ("tr_TR", 1)]
# The letters a single-script category may hold (unicodedata name prefixes).
SCRIPT_PREFIXES = {
    "Latin": ("LATIN",), "Greek": ("GREEK",), "Cyrillic": ("CYRILLIC",), "Hebrew": ("HEBREW",),
    "Arabic": ("ARABIC",), "Persian": ("ARABIC",), "Thai": ("THAI",), "Devanagari": ("DEVANAGARI",),
    "Chinese (zh_CN)": ("CJK",), "Chinese (zh_TW)": ("CJK",),
    "Japanese": ("CJK", "HIRAGANA", "KATAKANA"), "Korean": ("HANGUL",),
}

IGNORABLE = {0x200C, 0x200D} | set(range(0xFE00, 0xFE10))


def is_emoji_scalar(cp):
    return (0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF
            or 0xE0020 <= cp <= 0xE007F or cp in (0x200D, 0xFE0F, 0x20E3))


class Coverage:
    """The union of the bundled fonts' cmaps."""

    def __init__(self):
        self.covered = set()
        for name in chromium_lines.FONT_FILES:
            font = TTFont(os.path.join(ROOT, "Fonts", name), lazy=True)
            self.covered |= set(font.getBestCmap())
            font.close()

    def problem(self, text):
        for ch in text:
            cp = ord(ch)
            if ch in "\n" or cp in IGNORABLE:
                continue
            if cp > 0xFFFF and not is_emoji_scalar(cp):
                return f"outside the BMP: U+{cp:04X}"
            if cp not in self.covered:
                return f"not in a bundled font: U+{cp:04X}"
        return None


def letters_of(text, prefixes):
    """True if every letter of text has one of the name prefixes."""
    for ch in text:
        if unicodedata.category(ch).startswith("L"):
            if not unicodedata.name(ch, "").startswith(prefixes):
                return False
    return True


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.fakers = {}
        self.seed = seed

    def fk(self, locale):
        f = self.fakers.get(locale)
        if f is None:
            f = Faker(locale)
            f.seed_instance(self.seed * 1000 + len(self.fakers))  # order of first use is deterministic
            for provider in f.get_providers():
                if hasattr(provider, "day_of_week") and hasattr(provider, "date"):
                    provider.date = pinned_date(provider.date)
            self.fakers[locale] = f
        return f

    # ---- fragments -------------------------------------------------------------------------------

    def date(self, f, style):
        d = f.date_between(datetime.date(1990, 1, 1), datetime.date(2035, 12, 31))
        if style == "cjk":
            return f"{d.year}年{d.month}月{d.day}日"
        if style == "ko":
            return f"{d.year}년 {d.month}월 {d.day}일"
        if style == "th":
            return f"{d.day} {f.month_name()} {d.year + 543}"
        if style == "iso":
            return d.isoformat()
        return self.rng.choice([f"{d.day:02d}.{d.month:02d}.{d.year}", f"{d.day}/{d.month}/{d.year}",
                                f"{d.day} {f.month_name()} {d.year}", f"{f.day_of_week()} {d.day} {f.month_name()}"])

    def time(self):
        return f"{self.rng.randint(0, 23)}:{self.rng.choice(['00', '15', '30', '45', f'{self.rng.randint(0, 59):02d}'])}"

    def sentence(self, f, locale, lo=2, hi=12):
        s = f.sentence(nb_words=self.rng.randint(lo, hi)).strip()
        if locale.startswith("zh"):
            s = s.replace(".", "。")
        r = self.rng.random()
        if r < 0.12:
            s = s[:-1] + ("?" if not locale.startswith(("zh", "ja")) else "？") if s[-1:] in ".。" else s
        elif r < 0.2:
            s = s[:-1] + ("!" if not locale.startswith(("zh", "ja")) else "！") if s[-1:] in ".。" else s
        elif r < 0.3 and not locale.startswith(("zh", "ja", "th")):
            s = s[:1].lower() + s[1:-1] if s[-1:] == "." else s  # chat style: no capital, no period
        return s

    def words(self, f, locale, n):
        w = f.words(n)
        return ("" if locale.startswith(("zh", "ja", "th")) else " ").join(w)

    def address(self, f):
        a = f.address()
        if "\n" in a and self.rng.random() < 0.75:
            a = a.replace(",\n", ", ").replace("\n", ", ")
        return a

    def fragment(self, locale, kind):
        f = self.fk(locale)
        r = self.rng
        if kind == "sentence":
            return self.sentence(f, locale)
        if kind == "long":
            return " ".join(self.sentence(f, locale, 6, 14) for _ in range(r.randint(2, 4))) \
                if not locale.startswith(("zh", "ja")) else "".join(self.sentence(f, locale, 6, 14) for _ in range(r.randint(2, 4)))
        if kind == "words":
            return self.words(f, locale, r.randint(1, 3))
        if kind == "word":
            return f.word()
        if kind == "name":
            return f.name()
        if kind == "first":
            return f.first_name()
        if kind == "address":
            return self.address(f)
        if kind == "city":
            return f.city()
        if kind == "street":
            return f.street_name()
        if kind == "company":
            return f.company()
        if kind == "job":
            return f.job()
        if kind == "catch":
            return f.catch_phrase()
        if kind == "bs":
            return f.bs()
        if kind == "phone":
            return f.phone_number()
        if kind == "color":
            return f.color_name()
        if kind == "day":
            return f.day_of_week()
        if kind == "month":
            return f.month_name()
        if kind == "date":
            style = {"zh": "cjk", "ja": "cjk", "ko": "ko", "th": "th"}.get(locale[:2], "local")
            return self.date(f, style)
        if kind == "price":
            return f.pricetag()
        if kind == "email":
            return f.email()
        if kind == "url":
            return f.url() + (f.uri_path() if r.random() < 0.5 else "")
        if kind == "user":
            return "@" + f.user_name()
        if kind == "number":
            return r.choice([str(r.randint(0, 99)), str(r.randint(100, 99999)), f"{r.randint(1, 999)},{r.randint(0, 999):03d}",
                             f"{r.uniform(0, 100):.1f}%", f"{r.randint(1, 12)}x", f"#{r.randint(1, 9999)}"])
        if kind == "emoji":
            return self.emoji_run()
        raise ValueError(kind)

    def emoji_run(self):
        f = self.fk("en_US")
        r = self.rng.random()
        if r < 0.55:
            return f.emoji()
        if r < 0.7:
            return f.emoji() * self.rng.randint(2, 4)
        if r < 0.8:
            from faker.providers.emoji import Provider
            flags = [e for e in Provider.emojis if all(0x1F1E6 <= ord(c) <= 0x1F1FF for c in e)]
            return "".join(self.rng.choice(flags) for _ in range(self.rng.randint(1, 3)))
        return "".join(f.emoji() for _ in range(self.rng.randint(2, 5)))

    # ---- texts -----------------------------------------------------------------------------------

    def target_length(self):
        """Chat-like: median ~40 characters, ~10 % over 150, capped at MAX_LENGTH."""
        if self.rng.random() < 0.08:
            return 1  # a single fragment: one word, a name, an emoji
        return max(2, min(MAX_LENGTH, int(math.exp(self.rng.gauss(math.log(40), 0.95)))))

    def assemble(self, pick, spaced=True, target=None, min_fragments=1):
        """Fragments from pick() until about the target length; separators chat-like; few hard breaks."""
        target = self.target_length() if target is None else target
        limit = min(MAX_LENGTH, max(int(1.6 * target), target + 25))  # overshoot allowed
        hard = self.rng.random() < 0.025
        text, fragments, misses = "", 0, 0
        for _ in range(80):
            frag = pick().strip()
            if not frag:
                continue
            if not text:
                if len(frag) > limit and misses < 6:
                    misses += 1
                    continue
                if len(frag) > MAX_LENGTH:
                    continue
                text, fragments = frag, 1
            else:
                last = text[-1]
                if hard and self.rng.random() < 0.6:
                    sep = self.rng.choice(["\n", "\n", "\n\n"])
                elif spaced:
                    if unicodedata.category(last).startswith("P") or unicodedata.category(last) == "So":
                        sep = " "
                    else:
                        sep = self.rng.choice([" ", " ", ", ", " - ", ": ", " · ", " — "])
                else:
                    sep = "" if unicodedata.category(last).startswith("P") else self.rng.choice(["", "，", "、", " ", "："])
                length = len(text) + len(sep) + len(frag)
                if length > MAX_LENGTH or (length > limit and fragments >= min_fragments):
                    misses += 1
                    if misses > 8:
                        break
                    continue
                text += sep + frag
                fragments += 1
            if len(text) >= target and fragments >= min_fragments:
                break
        return text

    def single_script(self, category, locales, kinds, spaced=True):
        """A text of one script: fragments of weighted kinds from weighted locales, others dropped."""
        prefixes = SCRIPT_PREFIXES[category]

        locale = weighted(self.rng, locales)  # one language per text

        def pick():
            for _ in range(20):
                kind = weighted(self.rng, [(k, w) for k, w in kinds if k not in ("sentence", "long", "words") or locale in LOREM])
                frag = self.fragment(locale, kind)
                if letters_of(frag, prefixes):
                    return frag
            return ""
        return self.assemble(pick, spaced)

    def emoji_text(self):
        r = self.rng.random()
        if r < 0.3:  # emoji alone
            return self.emoji_run()
        locale = weighted(self.rng, [("en_US", 5), ("de_DE", 1), ("fr_FR", 1), ("es_ES", 1), ("pl_PL", 1)])

        def pick():
            kind = weighted(self.rng, [("sentence", 6), ("words", 2), ("name", 1), ("catch", 1)])
            return self.fragment(locale if kind in ("sentence", "words") else "en_US", kind)
        text = self.assemble(pick, target=min(self.target_length(), 340))
        words = text.split(" ")
        for _ in range(self.rng.randint(1, 3)):  # emoji inside the sentence or at its end
            pos = self.rng.choice([len(words)] * 2 + list(range(1, len(words) + 1)))
            words.insert(pos, self.emoji_run())
        return " ".join(words)

    def mixed_text(self):
        """Two scripts or more, or text with URLs, e-mails, numbers, prices, dates, phones, user names."""
        r = self.rng
        base_locale, base_cat = r.choice([
            ("th_TH", "Thai"), ("ar_AA", "Arabic"), ("fa_IR", "Persian"), ("he_IL", "Hebrew"),
            ("ru_RU", "Cyrillic"), ("el_GR", "Greek"), ("zh_CN", "Chinese (zh_CN)"), ("zh_TW", "Chinese (zh_TW)"),
            ("ja_JP", "Japanese"), ("ko_KR", "Korean"), ("hi_IN", "Devanagari"), ("en_US", "Latin"),
            ("de_DE", "Latin"), ("vi_VN", "Latin")])
        prefixes = SCRIPT_PREFIXES[base_cat]
        spaced = not base_locale.startswith(("zh", "ja"))
        base_kinds = [("sentence", 5), ("name", 1), ("company", 1), ("city", 1), ("address", 1)] \
            if base_locale in LOREM else [("name", 2), ("company", 2), ("city", 1), ("address", 2), ("catch", 1), ("job", 1)]
        other = [("product", 3), ("email", 2), ("url", 2), ("user", 2), ("price", 2), ("number", 3), ("date", 2),
                 ("time", 1), ("phone", 2), ("name_en", 1), ("address_en", 1), ("emoji", 1)]

        def base():
            for _ in range(20):
                frag = self.fragment(base_locale, weighted(r, base_kinds))
                if letters_of(frag, prefixes):
                    return frag
            return ""

        def extra():
            kind = weighted(r, other)
            en = self.fk("en_US")
            if kind == "product":  # an English product or brand name
                return r.choice([f"{en.word().capitalize()} {r.choice(['Pro', 'Max', 'Air', 'Mini', 'X', 'Plus', 'Ultra'])}"
                                 f"{r.choice(['', ' ' + str(r.randint(2, 16))])}",
                                 en.company(), f"{en.word().capitalize()}{en.word().capitalize()}",
                                 f"{en.last_name()} {r.choice(['v', 'V', 'model '])}{r.randint(1, 9)}.{r.randint(0, 9)}"])
            if kind == "name_en":
                return en.name()
            if kind == "address_en":
                return self.address(en)
            if kind == "time":
                return self.time()
            if kind == "date":
                return self.date(self.fk(base_locale), r.choice(["iso", "local"]))
            if kind == "number" and base_locale in ("ar_AA", "fa_IR") and r.random() < 0.4:
                digits = "٠١٢٣٤٥٦٧٨٩" if base_locale == "ar_AA" else "۰۱۲۳۴۵۶۷۸۹"
                return "".join(digits[int(c)] for c in str(r.randint(1, 99999)))
            if kind in ("phone", "price"):
                return self.fragment(r.choice([base_locale, "en_US"]), kind)
            return self.fragment("en_US", kind)

        target = max(12, self.target_length())
        parts = [base(), extra()]
        if r.random() < 0.4:
            parts.reverse()
        return self.assemble(lambda: parts.pop(0) if parts else (extra() if r.random() < 0.45 else base()), spaced,
                             target, min_fragments=2)

    def text(self, category):
        if category == "Latin":
            return self.single_script(category, LATIN_LOCALES, [
                ("sentence", 10), ("long", 2), ("words", 3), ("word", 1), ("name", 3), ("first", 1), ("address", 2),
                ("city", 1), ("street", 1), ("company", 2), ("job", 2), ("catch", 1), ("bs", 1), ("color", 1),
                ("day", 1), ("month", 1), ("date", 1), ("phone", 1)])
        if category == "mixed":
            return self.mixed_text()
        if category == "emoji":
            return self.emoji_text()
        locales, kinds, spaced = {
            "Greek": ([("el_GR", 1)], None, True),
            "Cyrillic": ([("ru_RU", 3), ("uk_UA", 2)], None, True),
            "Hebrew": ([("he_IL", 1)], None, True),
            "Arabic": ([("ar_AA", 3), ("ar_SA", 1), ("ar_PS", 1)], None, True),
            "Persian": ([("fa_IR", 1)], None, True),
            "Thai": ([("th_TH", 1)], None, True),
            "Devanagari": ([("hi_IN", 1)], [("name", 4), ("first", 2), ("address", 3), ("city", 3), ("street", 2),
                                            ("company", 2), ("day", 2), ("month", 2), ("date", 1), ("phone", 1)], True),
            "Chinese (zh_CN)": ([("zh_CN", 1)], None, False),
            "Chinese (zh_TW)": ([("zh_TW", 1)], None, False),
            "Japanese": ([("ja_JP", 1)], None, False),
            "Korean": ([("ko_KR", 1)], [("name", 3), ("address", 3), ("company", 3), ("job", 3), ("catch", 3), ("bs", 3),
                                        ("city", 1), ("street", 1), ("day", 1), ("month", 1), ("date", 1)], True),
        }[category]
        if kinds is None:
            kinds = [("sentence", 10), ("long", 2), ("words", 3), ("word", 1), ("name", 3), ("first", 1), ("address", 2),
                     ("city", 1), ("street", 1), ("company", 2), ("job", 2), ("catch", 1), ("bs", 1), ("color", 1),
                     ("day", 1), ("month", 1), ("date", 1), ("phone", 1)]
        return self.single_script(category, locales, kinds, spaced)


def pinned_date(date):
    """A date-time provider's date(pattern, end_datetime=None, ...) with end_datetime FAKER_NOW, not now."""
    def pinned(*args, end_datetime=None, **kwargs):
        return date(*args, end_datetime=FAKER_NOW if end_datetime is None else end_datetime, **kwargs)
    return pinned


def weighted(rng, items):
    total = sum(w for _, w in items)
    x = rng.uniform(0, total)
    for item, w in items:
        x -= w
        if x <= 0:
            return item
    return items[-1][0]


def generate():
    gen = Generator(SEED)
    coverage = Coverage()
    seen = set()
    texts = []  # (category, text)
    rejected = collections.Counter()
    for category, n in CATEGORIES:
        made = 0
        while made < n:
            t = candidate(gen, category, coverage, rejected)
            if t is None:
                continue
            if t in seen:
                rejected["duplicate"] += 1
                continue
            assert chromium_lines.unescape(chromium_lines.escape(t)) == t, t
            seen.add(t)
            texts.append((category, t))
            made += 1
    return texts, rejected


def candidate(gen, category, coverage, rejected):
    """One generated text of `category` without its edge spaces and line breaks, or None, counted in
    `rejected`, when it is empty or a bundled font lacks one of its characters. Shared with
    make_low_reuse.py."""
    t = gen.text(category).strip(" ")
    t = t.strip("\n") if t.strip("\n") else t
    if not t.strip():
        rejected["empty"] += 1
        return None
    problem = coverage.problem(t)
    if problem:
        rejected[problem.split(":")[0]] += 1
        return None
    return t


def print_scripts_and_lengths(texts, rejected, more=""):
    """The summary's end: texts per dominant script, length quantiles (then `more`), hard breaks and
    what was rejected. Shared with make_low_reuse.py and make_styled.py."""
    print("\nper dominant script (as compare.py classes them):")
    for s, n in collections.Counter(compare.dominant_script(t) for t in texts).most_common():
        print(f"  {s:36s} {n:5d}")
    lens = sorted(len(t) for t in texts)
    q = lambda p: lens[int(p * (len(lens) - 1))]  # noqa: E731
    print(f"\nlengths (code points): min {lens[0]}, p10 {q(0.1)}, median {q(0.5)}, p90 {q(0.9)}, "
          f"max {lens[-1]}{more}; with hard breaks: {sum(chr(10) in t for t in texts)}")
    print(f"rejected while generating: {dict(sorted(rejected.items()))}")


def write_or_check(path, data, check, count, seed):
    """Writes a corpus file, or with `check` compares it with what is committed; returns whether the
    committed file is the same (True after a write). Shared with make_styled.py."""
    if check:
        with open(path, encoding="utf-8") as f:
            same = f.read() == data
        print(f"{path}: {'identical' if same else 'DIFFERS'}")
        return same
    with open(path, "w", encoding="utf-8") as f:
        f.write(data)
    print(f"wrote {path}: {count} texts (Faker {faker.VERSION}, seed {seed})")
    return True


def arguments(script, doc, default_out):
    """Runs `script` again with a fixed hash seed when needed (some Faker lists are built from sets,
    it_IT's cities for one: their order, and so the texts, depend on string hashing), then parses
    `--out` and `--check`. Shared with make_low_reuse.py and make_styled.py."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, os.path.abspath(script)] + sys.argv[1:],
                  dict(os.environ, PYTHONHASHSEED="0"))
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--check", action="store_true")
    return parser.parse_args()


def main():
    args = arguments(__file__, __doc__, os.path.join(ROOT, "Tests", "Corpus", "held-out.txt"))
    texts, rejected = generate()
    data = "".join(chromium_lines.escape(t) + "\n" for _, t in texts)
    assert "\n\n" not in data and len(data.split("\n")) == COUNT + 1
    same = write_or_check(args.out, data, check=args.check, count=len(texts), seed=SEED)

    by_cat = collections.Counter(c for c, _ in texts)
    print("\nper generator category:")
    for c, n in CATEGORIES:
        lens = [len(t) for cc, t in texts if cc == c]
        print(f"  {c:18s} {by_cat[c]:5d}   length median {statistics.median(lens):5.0f}, max {max(lens):3d}")
    plain = [t for _, t in texts]
    print_scripts_and_lengths(plain, rejected, more=f"; over 150: {sum(len(t) > 150 for t in plain)}; "
                              f"without a space: {sum(' ' not in t for t in plain)}")
    if args.check and not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
