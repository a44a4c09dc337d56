#!/usr/bin/env python3
"""Generates Tests/Corpus/mixed.txt: 1,000 texts put together from random pieces of what users type.

A targeted corpus for the browser modes and `.pango` alike: each text joins 1 to 8 pieces (a space
between two of them about half the time), drawn with the weights below from words of 11 scripts
(with marks, ligatures and joiners), emoji sequences, numbers, URLs and identifiers, punctuation of
many kinds, spaces of several widths, tabs, line feeds, soft hyphens, zero-width spaces, joiners and
stray combining marks; a word piece is a run of 2 to 4 words a third of the time. It came from a
randomized search against Chromium (`docs/chromium-differences.md`, "A randomized search"), made
reproducible: a fixed seed, the standard library only, no input.

Usage: Tools/corpus/make_mixed.py [--out PATH] [--check]
  --check   generate, compare with the file instead of writing it (exit 1 if it differs)
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_file  # noqa: E402  (same directory)

SEED = 0x4D49_5845_44
COUNT = 1000
WORD_KINDS = ("latin", "cyrillic", "greek", "hebrew", "arabic", "chinese", "japanese", "korean")

POOL = {
    'latin': ["hello", "café", "naïve", "Straße", "résumé", "Ångström", "coöperate", "Žluťoučký", "façade",
              "jalapeño", "Łódź", "wordsmith", "internationalization", "The quick brown fox", "Über", "déjà vu",
              "fiancée", "Mañana", "office", "Wi-Fi", "e-mail", "don't", "I'm", "AVATAR", "Typography",
              "ﬁne", "Ærøskøbing", "Œuvre", "İstanbul", "ığdır", "Nguyễn", "Việt Nam", "Crème brûlée"],
    'cyrillic': ["Привет", "мир", "электрификация", "Ёлка", "щётка", "Здравствуйте", "по-русски", "Україна",
                 "їжак", "Београд"],
    'greek': ["Καλημέρα", "κόσμε", "ελληνικά", "Ψυχή", "ἀρχή", "Ὀδυσσεύς", "φιλοσοφία"],
    'hebrew': ["שָׁלוֹם", "עִבְרִית", "בְּרֵאשִׁית", "תל-אביב", "ספר", "שלום עולם", "יְרוּשָׁלַיִם", "ירושלים",
               "מה־שלומך"],
    'arabic': ["مرحبا", "العربية", "السلام عليكم", "كتاب", "مُحَمَّد", "لا", "مكتبة", "الإنترنت",
               "بِسْمِ", "ـــ", "١٢٣"],
    'persian': ["سلام", "فارسی", "می‌خواهم", "گچپژ", "۱۲۳۴", "کتاب‌ها", "ایران"],
    'devanagari': ["नमस्ते", "हिन्दी", "क्षत्रिय", "श्री", "५६७", "भारत", "विद्यालय", "कृष्ण", "ज़िंदगी"],
    'thai': ["สวัสดี", "ภาษาไทย", "ขอบคุณ", "กรุงเทพ"],
    'chinese': ["你好世界", "中文测试", "汉字", "简体中文和繁體中文", "。", "，", "我们今天去北京", "龘",
                "电脑软件", "《红楼梦》", "（注）", "、"],
    'japanese': ["こんにちは", "カタカナ", "ちょっと", "コーヒー", "東京都", "ッ", "きゃ", "ラーメン", "です。",
                 "ありがとうございます", "ぁぃぅ", "スーパー", "日本語のテキスト", "ｶﾀｶﾅ", "々"],
    'korean': ["안녕하세요", "한국어", "같이", "감사합니다", "서울", "대한민국", "읽다", "ㄱㄴㄷ"],
    'emoji': ["😀", "👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🇺🇸", "🇯🇵", "1\ufe0f\u20e3", "#\ufe0f\u20e3",
              "❤\ufe0f", "🏳\ufe0f\u200d🌈", "👩🏻\u200d💻", "☺", "✌\ufe0f", "🧑\u200d🤝\u200d🧑", "🎉🎉🎉",
              "🙏", "🔥", "💯", "❤", "✔", "☀️", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
              "👋🏿", "🤷\u200d♀️", "😂😂"],
    'number': ["1,234.56", "12:30", "50%", "3.14159", "2024-01-15", "$99.99", "€1.000,00",
               "+1 (555) 123-4567", "10km", "½", "1st", "٣٤٥", "100", "-5", "1/2", "#42", "v2.0.1",
               "9am–5pm", "1990s", "10,000,000", "£5", "¥1000", "24°C", "x²", "№5"],
    'url': ["https://example.com/path/to/page?query=1&b=2", "www.example.org", "user.name@example.com",
            "http://a.b/c#frag", "C:\\Users\\name", "/usr/local/bin", "example.com", "@handle", "#hashtag",
            "foo_bar_baz", "camelCaseIdentifier", "snake_case", "a.b.c", "https://t.co/AbC123"],
    'punct': ["(", ")", "[", "]", "{", "}", "“", "”", "«", "»", "「", "」", "…", "–", "—", "/", "·", "!", "?",
              "¿", "¡", ";", ":", ",", ".", "'", "\"", "‘", "’", "&", "*", "#", "@", "~", "|", "•", "§",
              "†", "‰", "→", "×", "...", "!!", "?!", "--", "„", "‹", "›", "『", "』", "【", "】", "〜",
              "‐", "‑", "‒", "―", "⁄", "\\", "%", "+", "=", "<", ">", "^", "_", "`", "©", "®", "™", "°"],
    'space': [" ", "\u00a0", "\u2009", "\u3000", "  ", "\u202f", "\u2002", "\u2003", "   "],
    'tab': ["\t"],
    'newline': ["\n", "\r\n", "\n\n"],
    'shy': ["\u00ad"],
    'zwsp': ["\u200b"],
    'zwj': ["\u200d", "\u200c", "\u2060", "\ufeff"],
    'combining': ["e\u0301", "a\u0308", "\u0301", "n\u0303", "Z\u0336\u0335", "\u20dd", "o\u0332",
                  "i\u0307", "\u0361", "u\u031b\u0323"],
}
# Relative weights: what users type most.
WEIGHTS = {'latin': 14, 'cyrillic': 4, 'greek': 2, 'hebrew': 3, 'arabic': 3, 'persian': 2, 'devanagari': 3,
           'thai': 1, 'chinese': 5, 'japanese': 5, 'korean': 3, 'emoji': 6, 'number': 5, 'url': 4,
           'punct': 8, 'space': 6, 'tab': 1, 'newline': 2, 'shy': 1, 'zwsp': 1, 'zwj': 1, 'combining': 2}


def text(rng):
    kinds = list(WEIGHTS)
    weights = [WEIGHTS[k] for k in kinds]
    pieces = []
    for _ in range(rng.randint(1, 8)):
        kind = rng.choices(kinds, weights)[0]
        piece = rng.choice(POOL[kind])
        if kind in WORD_KINDS and rng.random() < 0.3:
            piece = " ".join(rng.choice(POOL[kind]) for _ in range(rng.randint(2, 4)))
        if pieces and rng.random() < 0.45:
            pieces.append(" ")
        pieces.append(piece)
    return "".join(pieces)


def generate():
    rng = random.Random(SEED)
    # Line feeds and CRs are hard breaks: a text is one corpus line, so they are escaped there.
    return corpus_file.distinct(COUNT, lambda: text(rng))


if __name__ == "__main__":
    corpus_file.main(__doc__, "mixed.txt", generate)
