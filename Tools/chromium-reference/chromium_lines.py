#!/usr/bin/env python3
"""Line counts and heights from headless Chromium, the browser reference (Python 3 standard library only).

Drives Debian's `chromium` over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages separated by NUL bytes on file descriptors 3 and 4), so no websocket client and no npm
packages are needed. A tiny local HTTP server on 127.0.0.1 serves the page and the bundled font files;
the page declares one `@font-face` family per regular font file (F0 … F9, in the package's cascade order,
`BundledFonts.fileNames`), each with its bold / italic / bold italic files where Fonts/ has them
(`font-weight: 700` / `font-style: italic` descriptors), and a mono family M0 (NotoSansMono-Regular and
-Bold), and lays every text out in an element styled like a browser text view:

    white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal; line-break: auto;
    font-family: "F0", …, "F9"; font-size: Spx; line-height: 100px; width: Wpx;
    font-synthesis: none; font-kerning / ligatures / text-rendering left at their defaults; no lang.

With a fixed line-height every line box is exactly 100 px tall, so lines = round(height / 100). The
count is cross-checked against the number of distinct line positions of Range.getClientRects().
A second element, identical but for `line-height: normal`, gives the height a browser text view has
(getBoundingClientRect().height, exact: a whole number of LayoutUnits, 1/64 px).

A styled text (Tests/Corpus/styled.jsonl: text + spans, issue 32's batch contract) is flattened per
scalar into runs (bold / italic / mono if any covering span says so, size of the last covering span
with one); each run with non-default attributes becomes a `<span style="...">` (font-weight: 700;
font-style: italic; font-family: "M0", "F1", …, "F9"; font-size: Npx), the others text nodes.

Commands:
  fixtures [--out DIR] [--corpus NAME]...
                             write DIR/NAME.tsv for every corpus of GRIDS (multilingual, forced-breaks,
                             held-out, styled) or the ones named (default DIR: Tests/Fixtures/chromium):
                             line, size, width, lineCount (with line-height: 100px), height (px, with
                             line-height: normal)
  verify-fonts               CSS.getPlatformFontsForNode for every corpus text (and every styled run):
                             every glyph must come from a bundled (web) font, a styled run's from the
                             faces its style asks for; and every character must be in the cmap of a font
                             of its cascade (Chromium reports a missing glyph as the first font's .notdef)
  probe SIZE WIDTH TEXT...   print the lines Chromium makes of TEXT (escapes \\n \\t \\uXXXX allowed),
                             with each line's width; for experiments
  heights SIZE WIDTH TEXT... print TEXT's height with line-height: normal and each line box's top and
                             height (from the heights of the text's first k lines alone); for debugging
  widths SIZE TEXT...        print the unwrapped advance width of each TEXT (exact, from a Range)
  probe, heights and widths take --spans JSON: spans in the batch contract's form, e.g.
  '[{"start":0,"end":5,"bold":true},{"start":3,"end":9,"size":20}]', applied to every TEXT.

Options: --chromium PATH (default: chromium), --lang TAG (sets lang on the measured element;
default: none), --css 'extra: declarations;' (appended to the measured element's style, for
experiments).
"""

import argparse
import collections
import datetime
import fcntl
import http.server
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import unicodedata

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def bundled_font_files():
    """BundledFonts.fileNames, in cascade order, read from the Swift source (one list, kept there)."""
    with open(os.path.join(ROOT, "Sources", "TextMeasure", "Fonts", "FontCascade.swift"), encoding="utf-8") as f:
        source = f.read()
    block = re.search(r"static let fileNames = \[(.*?)\]", source, re.S)
    if block is None:
        raise SystemExit("chromium_lines.py: BundledFonts.fileNames not found in FontCascade.swift")
    return re.findall(r'"([^"]+)"', block.group(1))


FONT_FILES = bundled_font_files()

# The faces beside a regular file X-Regular.ttf, where Fonts/ has them: (file suffix, font-weight,
# font-style). Each is declared under its regular file's family (F0 … F9, or M0).
FACE_VARIANTS = [("-Bold.ttf", 700, "normal"), ("-Italic.ttf", 400, "italic"), ("-BoldItalic.ttf", 700, "italic")]
# The mono family (M0): Noto Sans Mono first, then the regular cascade without its first family.
MONO_FILE = "NotoSansMono-Regular.ttf"


def font_faces():
    """(family, file, weight, style) of every @font-face rule: F0 … F9 (the regular cascade) and M0 (mono),
    each regular file followed by the bold / italic / bold italic files that sit beside it in Fonts/."""
    faces = []
    for family, regular in [(f"F{i}", f) for i, f in enumerate(FONT_FILES)] + [("M0", MONO_FILE)]:
        faces.append((family, regular, 400, "normal"))
        if regular.endswith("-Regular.ttf"):
            for suffix, weight, style in FACE_VARIANTS:
                variant = regular[:-len("-Regular.ttf")] + suffix
                if os.path.exists(os.path.join(ROOT, "Fonts", variant)):
                    faces.append((family, variant, weight, style))
    return faces


FONT_FACES = font_faces()
REGULAR_FAMILIES = [f"F{i}" for i in range(len(FONT_FILES))]
MONO_FAMILIES = ["M0"] + REGULAR_FAMILIES[1:]

# Font sizes x widths (px) per corpus (Tests/Corpus/NAME.txt, or NAME.jsonl for a styled corpus).
# multilingual and forced-breaks: the grids of the Pango differential tests (PangoDifferentialTests,
# ForcedBreakPangoTests), multilingual with 11.5 added; held-out: the corpus of
# Tools/corpus/make_held_out.py, texts the code was not tuned on; styled: Tools/corpus/make_styled.py's
# texts with spans.
GRIDS = {
    "multilingual": ([11, 11.5, 13, 15.5, 17, 24], [12, 37, 64, 100, 150, 180, 213.5, 240, 320, 375, 480, 1000]),
    "forced-breaks": ([11, 13, 17, 24, 28], [8, 12, 16, 20, 24, 28, 34, 40, 48, 64, 80, 100]),
    "held-out": ([11.5, 13, 17, 24], [48, 100, 180, 213.5, 320, 480]),
    "styled": ([13, 17, 24], [64, 120, 180, 240, 320, 480]),
    "hyphens": ([13, 17], [24, 40, 64, 100, 160]),
    "quotes": ([13, 17], [40, 64, 100, 160, 240]),
    "controls": ([11, 13, 17, 24, 31], [20, 40, 300]),
    "line-ends": ([13, 17], [10, 14, 18, 24, 30, 40, 56, 80, 120]),
    "mixed": ([11, 15, 24], [16, 40, 100, 180, 320]),
}
STYLED_CORPORA = {"styled"}

MEASURED_CSS = (
    "white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal; line-break: auto; "
    "line-height: 100px; font-synthesis: none; "
    "position: absolute; left: 0; top: 0; margin: 0; padding: 0; border: 0; box-sizing: content-box;"
)


# What escape writes for the characters unescape reads back from a backslash and a letter.
ESCAPED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(text):
    r"""The inverse of unescape: \\, \n, \r, \t, and \uXXXX for the invisible characters of the BMP
    (controls, format characters but ZWJ, separators, spaces other than U+0020); the rest literal."""
    def escaped(ch):
        if ch in ESCAPED:
            return ESCAPED[ch]
        invisible = unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or (unicodedata.category(ch) == "Zs" and ch != " ")
        return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF and ch != "\u200d" and invisible else ch
    return "".join(escaped(ch) for ch in text)


def unescape(line):
    """Corpus.unescape (Tests/TestSupport/Corpus.swift): \\n \\r \\t \\uXXXX, backslash + other = other."""
    out, i, n = [], 0, len(line)
    while i < n:
        c = line[i]
        i += 1
        if c != "\\" or i >= n:
            out.append(c)
            continue
        d = line[i]
        i += 1
        if d == "n":
            out.append("\n")
        elif d == "r":
            out.append("\r")
        elif d == "t":
            out.append("\t")
        elif d == "u":
            h = line[i:i + 4]
            if len(h) == 4 and re.fullmatch(r"[0-9A-Fa-f]{4}", h):
                v = int(h, 16)
                if 0xD800 <= v <= 0xDFFF:  # not a scalar: stays as written
                    out.append("\\u")
                else:
                    out.append(chr(v))
                    i += 4
            else:
                out.append("\\u")
        else:
            out.append(d)
    return "".join(out)


def corpus_path(name):
    return os.path.join(ROOT, "Tests", "Corpus", name + (".jsonl" if name in STYLED_CORPORA else ".txt"))


def load_styled_corpus(name):
    """(1-based line number, text, spans) of a corpus; spans are [] for a plain corpus (NAME.txt, whose
    empty lines are skipped, as Corpus.load does) and the contract's span objects for NAME.jsonl."""
    with open(corpus_path(name), encoding="utf-8") as f:
        lines = f.read().split("\n")  # not splitlines(): a JSON string may hold U+2028
    if name in STYLED_CORPORA:
        objects = [(i + 1, json.loads(l)) for i, l in enumerate(lines) if l != ""]
        return [(n, o["text"], o.get("spans", [])) for n, o in objects]
    return [(i + 1, unescape(l), []) for i, l in enumerate(lines) if l != ""]


def load_corpus(name):
    """(1-based line number, text) of a corpus; a styled corpus's texts without their spans."""
    return [(n, t) for n, t, _ in load_styled_corpus(name)]


def flatten_spans(text, spans):
    """Maximal runs (start, end, bold, italic, mono, size or None) in scalars, by the contract's rules: a
    scalar is bold / italic / mono if any span covering it says so; its size is that of the last span
    in list order covering it that has one. No special case for a span edge inside a grapheme cluster."""
    styles = [[False, False, False, None] for _ in text]
    for k, span in enumerate(spans):
        if not 0 <= span["start"] <= span["end"] <= len(text):
            raise ValueError(f"span {k} ({span['start']}..{span['end']}) is not inside the text's {len(text)} scalars")
        for i in range(span["start"], span["end"]):
            st = styles[i]
            st[0] = st[0] or bool(span.get("bold"))
            st[1] = st[1] or bool(span.get("italic"))
            st[2] = st[2] or bool(span.get("mono"))
            if span.get("size") is not None:
                st[3] = span["size"]
    runs = []
    for i, st in enumerate(styles):
        if runs and runs[-1][1] == i and list(runs[-1][2:]) == st:
            runs[-1] = (runs[-1][0], i + 1, *runs[-1][2:])
        else:
            runs.append((i, i + 1, *st))
    return runs


def run_css(bold, italic, mono, size):
    """The inline style of a run ("" for the paragraph's own style)."""
    css = []
    if bold:
        css.append("font-weight: 700;")
    if italic:
        css.append("font-style: italic;")
    if mono:
        css.append("font-family: " + ", ".join(f'"{f}"' for f in MONO_FAMILIES) + ";")
    if size is not None:
        css.append(f"font-size: {fmt(size)}px;")
    return " ".join(css)


def page_item(text, spans):
    """What the page lays out: the text itself when no run is styled, else [[piece, css], ...]."""
    pieces = [[text[s:e], run_css(*style)] for s, e, *style in flatten_spans(text, spans)]
    return text if all(not css for _, css in pieces) else pieces


def spans_field(spans):
    """Spans in the Pango harness's SPANS form: START,END,FLAGS,SIZE;... (empty for none)."""
    return ";".join(f"{s['start']},{s['end']},"
                    + ("".join(k[0] for k in ("bold", "italic", "mono") if s.get(k)) or "-") + ","
                    + (fmt(s["size"]) if s.get("size") is not None else "-") for s in spans)


def page_html(lang=None, extra_css=""):
    faces = "\n".join(
        f'@font-face {{ font-family: "{family}"; src: url("/fonts/{f}"); font-weight: {weight}; font-style: {style}; '
        f'font-display: block; }}' for family, f, weight, style in FONT_FACES)
    families = ", ".join(f'"{f}"' for f in REGULAR_FAMILIES)
    lang_attr = f' lang="{lang}"' if lang else ""
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>
{faces}
html, body {{ margin: 0; padding: 0; font-family: {families}; }}
.m {{ font-family: {families}; {MEASURED_CSS} {extra_css} }}
.m.normal {{ line-height: normal; }}
#m span {{ vertical-align: top; }}
</style></head>
<body><div id="m" class="m"{lang_attr}></div><div id="n" class="m normal"{lang_attr}></div><div id="all"></div>
<script>
{PAGE_JS}
</script></body></html>
"""


PAGE_JS = r"""
async function loadFonts() {
  const faces = [];
  document.fonts.forEach(f => faces.push(f));
  const loaded = await Promise.all(faces.map(f => f.load().then(() => f.family + ':' + f.status,
                                                              e => f.family + ':error ' + e)));
  await document.fonts.ready;
  return loaded;
}

// An item is a text (one text node) or a styled text: [[piece, css], ...], a text node for each piece
// without css and a span with that inline style for each other.
function setContent(el, item) {
  if (typeof item === 'string') { el.textContent = item; return; }
  el.textContent = '';
  for (const [piece, css] of item) {
    if (!css) { el.appendChild(document.createTextNode(piece)); continue; }
    const s = document.createElement('span');
    s.style.cssText = css;
    s.textContent = piece;
    el.appendChild(s);
  }
}

function itemText(item) { return typeof item === 'string' ? item : item.map(p => p[0]).join(''); }

// The item's first n UTF-16 units, as an item.
function itemPrefix(item, n) {
  if (typeof item === 'string') return item.slice(0, n);
  const out = [];
  for (const [piece, css] of item) {
    if (n <= 0) break;
    out.push([piece.slice(0, n), css]);
    n -= piece.length;
  }
  return out;
}

// el's text nodes in order, each with the UTF-16 offset at which it starts.
function textNodes(el) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let offset = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push([n, offset]);
    offset += n.data.length;
  }
  return nodes;
}

// Lines of the text inside el: distinct line indexes (line-height 100px) of its client rects.
function rectLines(el) {
  const node = el.firstChild;
  if (!node) return 0;
  const range = document.createRange();
  range.selectNodeContents(el);
  const top = el.getBoundingClientRect().top;
  const seen = new Set();
  for (const r of range.getClientRects()) seen.add(Math.floor((r.top + r.height / 2 - top) / 100));
  return seen.size;
}

// For every text and every width at one size: [lines from height, height, lines from rects, height with
// line-height: normal]. #m (line-height: 100px) and #n (line-height: normal) differ in nothing else.
function measureAll(texts, size, widths) {
  const el = document.getElementById('m');
  const nl = document.getElementById('n');
  el.style.fontSize = size + 'px';
  nl.style.fontSize = size + 'px';
  const out = [];
  for (const t of texts) {
    setContent(el, t);
    setContent(nl, t);
    const row = [];
    for (const w of widths) {
      el.style.width = w + 'px';
      nl.style.width = w + 'px';
      const h = el.getBoundingClientRect().height;
      const hn = nl.getBoundingClientRect().height;
      row.push([Math.round(h / 100), h, rectLines(el), hn]);
    }
    out.push(row);
  }
  nl.textContent = '';
  return out;
}

// Line boxes with line-height: normal. Chromium breaks greedily, so the text's first k + 1 lines alone
// (the texts of probe's lines 0..k) make the same k + 1 lines; the height of #n holding them is the
// bottom of line k, exact to the LayoutUnit. Each prefix's line count (#m) is returned to check that.
function lineBoxes(item, size, width) {
  const p = probe(item, size, width);
  const el = document.getElementById('m');
  const nl = document.getElementById('n');
  nl.style.fontSize = size + 'px';
  nl.style.width = width + 'px';
  setContent(nl, item);
  const height = nl.getBoundingClientRect().height;
  const boxes = [];
  let end = 0, top = 0;
  for (const line of p.lines) {
    end += line.text.length;
    const prefix = itemPrefix(item, end);
    setContent(el, prefix);
    setContent(nl, prefix);
    const bottom = nl.getBoundingClientRect().height;
    boxes.push({text: line.text, width: line.width, top, height: bottom - top,
                prefixLines: Math.round(el.getBoundingClientRect().height / 100)});
    top = bottom;
  }
  nl.textContent = '';
  el.textContent = '';
  return {height, lines: boxes};
}

// The lines Chromium makes: for each UTF-16 offset the line it lands on, then joined texts.
function probe(item, size, width) {
  const el = document.getElementById('m');
  el.style.fontSize = size + 'px';
  el.style.width = width + 'px';
  setContent(el, item);
  const text = itemText(item);
  const nodes = textNodes(el);
  const top = el.getBoundingClientRect().top;
  const height = el.getBoundingClientRect().height;
  const lines = [];
  const range = document.createRange();
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    let j = i + 1;
    if (text.charCodeAt(i) >= 0xD800 && text.charCodeAt(i) < 0xDC00) j = i + 2;
    while (i >= nodes[k][1] + nodes[k][0].data.length) k++;  // pieces never split a surrogate pair
    const [node, start] = nodes[k];
    range.setStart(node, i - start); range.setEnd(node, j - start);
    const rects = Array.from(range.getClientRects()).filter(r => r.width > 0 || r.height > 0);
    let line = rects.length ? Math.floor((rects[rects.length - 1].top + rects[rects.length - 1].height / 2 - top) / 100) : -1;
    if (line < 0 && lines.length) line = lines.length - 1;
    if (line < 0) line = 0;
    while (lines.length <= line) lines.push({text: '', left: Infinity, right: -Infinity});
    lines[line].text += text.slice(i, j);
    for (const r of rects) { lines[line].left = Math.min(lines[line].left, r.left); lines[line].right = Math.max(lines[line].right, r.right); }
    i = j - 1;
  }
  return {height, lines: lines.map(l => ({text: l.text, width: l.right - l.left}))};
}

// Unwrapped advance width of an item (a span with white-space: pre).
function advance(item, size) {
  const s = document.createElement('span');
  s.style.cssText = 'white-space: pre; font-synthesis: none; font-size:' + size + 'px';
  setContent(s, item);
  document.body.appendChild(s);
  const w = s.getBoundingClientRect().width;
  s.remove();
  return w;
}

// One div per text, for CSS.getPlatformFontsForNode.
function fillAll(texts, size, width) {
  const all = document.getElementById('all');
  all.textContent = '';
  texts.forEach((t, i) => {
    const d = document.createElement('div');
    d.className = 'm'; d.id = 't' + i;
    d.style.position = 'static'; d.style.fontSize = size + 'px'; d.style.width = width + 'px';
    setContent(d, t);
    all.appendChild(d);
  });
  return texts.length;
}
"""


# Microsoft VTT's private source tables. Chromium's OpenType Sanitizer rejects NanumGothic.ttf as a web
# font because of them ("OTS parsing error: TSI3: zero-length table"); they hold hinting sources only
# (no metrics, no glyphs, no layout), so the copy served to Chromium leaves them out.
VTT_TABLES = {b"TSI0", b"TSI1", b"TSI2", b"TSI3", b"TSI5"}


def web_font_bytes(data):
    """The font file as served to Chromium: without VTT tables, if it has any (else unchanged)."""
    num_tables = struct.unpack(">H", data[4:6])[0]
    records = [struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i]) for i in range(num_tables)]
    kept = [r for r in records if r[0] not in VTT_TABLES]
    if len(kept) == len(records):
        return data
    n = len(kept)
    entry_selector = n.bit_length() - 1
    search_range = 16 << entry_selector
    header = data[:4] + struct.pack(">HHHH", n, search_range, entry_selector, n * 16 - search_range)
    offset = 12 + 16 * n
    directory, body = b"", b""
    head_offset = None
    for tag, checksum, table_offset, length in sorted(kept):
        table = data[table_offset:table_offset + length]
        if tag == b"head":
            head_offset = offset
            table = table[:8] + b"\0\0\0\0" + table[12:]
        directory += struct.pack(">4sIII", tag, checksum, offset, length)
        padded = table + b"\0" * (-len(table) % 4)
        body += padded
        offset += len(padded)
    out = bytearray(header + directory + body)
    if head_offset is not None:  # checkSumAdjustment = 0xB1B0AFBA - checksum of the whole file
        total = sum(struct.unpack(f">{len(out) // 4}I", bytes(out))) & 0xFFFFFFFF
        out[head_offset + 8:head_offset + 12] = struct.pack(">I", (0xB1B0AFBA - total) & 0xFFFFFFFF)
    return bytes(out)


class PageServer:
    """Serves /page.html and /fonts/<font file of FONT_FACES> on 127.0.0.1 (a random port)."""

    def __init__(self, html, fonts_dir):
        files = {"/page.html": ("text/html; charset=utf-8", html.encode("utf-8"))}
        for _, f, _, _ in FONT_FACES:
            with open(os.path.join(fonts_dir, f), "rb") as fh:
                files["/fonts/" + f] = ("font/ttf", web_font_bytes(fh.read()))
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                entry = files.get(self.path)
                if entry is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", entry[0])
                self.send_header("Content-Length", str(len(entry[1])))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(entry[1])

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.httpd.shutdown()


class Chromium:
    """A headless Chromium driven over --remote-debugging-pipe, attached to one page."""

    def __init__(self, executable="chromium", system_fonts=False):
        self.profile = tempfile.TemporaryDirectory(prefix="chromium-lines-")
        env = dict(os.environ)
        if not system_fonts:
            # A fontconfig configuration without font folders: Chromium's system fallback finds no
            # font at all, so every glyph comes from the bundled web fonts.
            config = os.path.join(self.profile.name, "fonts.conf")
            with open(config, "w") as f:
                f.write('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                        f'<fontconfig><include ignore_missing="yes">/etc/fonts/conf.d</include><cachedir>{self.profile.name}/fontconfig</cachedir></fontconfig>\n')
            env["FONTCONFIG_FILE"] = config
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        args = [
            executable, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update", "--mute-audio",
            "--renderer-process-limit=1", "--force-device-scale-factor=1", "--hide-scrollbars",
            "--disable-features=Translate,MediaRouter,OptimizationHints",
            "--user-data-dir=" + self.profile.name, "about:blank",
        ]

        def child_fds():  # the pipe ends chromium expects: it reads fd 3 and writes fd 4
            high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.process = subprocess.Popen(args, preexec_fn=child_fds, env=env,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = b""
        self.session = None
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.version = self.call("Browser.getVersion", _browser=True)["product"]

    def _read_message(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, _browser=False, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session and not _browser:
            message["sessionId"] = self.session
        data = json.dumps(message).encode("utf-8") + b"\0"
        while data:
            data = data[os.write(self.to_chrome, data):]
        while True:
            reply = self._read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_event(self, name):
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    return self.events.pop(i)
            self.events.append(self._read_message())

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {json.dumps(result['exceptionDetails'])[:2000]}")
        return result["result"].get("value")

    def open(self, url):
        self.call("Page.enable")
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def close(self):
        try:
            self.call("Browser.close", _browser=True)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        self.profile.cleanup()


class Session:
    """Chromium + page server + the page loaded with its fonts."""

    def __init__(self, executable="chromium", lang=None, extra_css="", system_fonts=False):
        self.server = PageServer(page_html(lang, extra_css), os.path.join(ROOT, "Fonts"))
        self.browser = Chromium(executable, system_fonts)
        self.browser.open(self.server.url("/page.html"))
        statuses = self.browser.evaluate("loadFonts()")
        bad = [s for s in statuses if not s.endswith(":loaded")]
        if bad or len(statuses) != len(FONT_FACES):
            raise RuntimeError(f"fonts did not load: {statuses}")
        self.version = self.browser.version

    def evaluate(self, expression):
        return self.browser.evaluate(expression)

    def call(self, name, *args):
        return self.evaluate(f"{name}(...{json.dumps(list(args))})")

    def close(self):
        self.browser.close()
        self.server.close()


def tsv_escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def write_fixtures(session, out_dir, names=None):
    os.makedirs(out_dir, exist_ok=True)
    today = datetime.date.today().isoformat()
    for name in names or GRIDS:
        sizes, widths = GRIDS[name]
        styled = load_styled_corpus(name)
        corpus = [(n, t) for n, t, _ in styled]
        texts = [page_item(t, spans) for _, t, spans in styled]
        rows = []
        mismatches = 0
        for size in sizes:
            result = session.call("measureAll", texts, size, widths)
            for (line_no, _), row in zip(corpus, result):
                for width, (lines, height, rect_lines, normal_height) in zip(widths, row):
                    if abs(height - lines * 100) > 0.01 or (rect_lines != lines and rect_lines != 0):
                        mismatches += 1
                        print(f"note: {name}:{line_no} size {size} width {width}: height {height}, "
                              f"rect lines {rect_lines}", file=sys.stderr)
                    rows.append((line_no, size, width, lines, normal_height))
        rows.sort(key=lambda r: (r[0], r[1], r[2]))
        path = os.path.join(out_dir, name + ".tsv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"# Chromium line counts and heights for Tests/Corpus/{os.path.basename(corpus_path(name))}; "
                    f"{session.version}; generated {today}\n")
            f.write("# by Tools/chromium-reference/chromium_lines.py fixtures (see its README for the CSS). lineCount: with\n")
            f.write("# line-height: 100px, round(height / 100); height: getBoundingClientRect().height in px with\n")
            f.write("# line-height: normal, the rest of the CSS identical (white-space: pre-wrap; overflow-wrap: anywhere)\n")
            if name in STYLED_CORPORA:
                f.write("# Spans: each flattened run with a style is a <span> (font-weight: 700; font-style: italic;\n")
                f.write("# font-family: \"M0\", \"F1\", ... for mono; font-size: Npx), font-synthesis: none\n")
            f.write("line\tsize\twidth\tlineCount\theight\n")
            for line_no, size, width, lines, normal_height in rows:
                f.write(f"{line_no}\t{fmt(size)}\t{fmt(width)}\t{lines}\t{fmt(normal_height)}\n")
        fractional = sum(not float(r[4]).is_integer() for r in rows)
        print(f"{path}: {len(rows)} rows, {mismatches} height/rect disagreements, "
              f"{fractional} heights that are not whole pixels", file=sys.stderr)


def fmt(x):
    """A number as the shortest text that reads back as it: 33, 32.984375, 213.5."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def cmap_code_points(path):
    """The code points of a TrueType/OpenType font's Unicode cmap subtables (formats 4 and 12)."""
    with open(path, "rb") as f:
        data = f.read()
    num_tables = struct.unpack(">H", data[4:6])[0]
    cmap = None
    for i in range(num_tables):
        tag, _, offset, _ = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
        if tag == b"cmap":
            cmap = offset
    points = set()
    if cmap is None:
        return points
    for i in range(struct.unpack(">H", data[cmap + 2:cmap + 4])[0]):
        platform, encoding, offset = struct.unpack(">HHI", data[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
        if not (platform == 0 or (platform == 3 and encoding in (1, 10))):
            continue
        sub = cmap + offset
        fmt_ = struct.unpack(">H", data[sub:sub + 2])[0]
        if fmt_ == 4:
            segs = struct.unpack(">H", data[sub + 6:sub + 8])[0] // 2
            ends = struct.unpack(f">{segs}H", data[sub + 14:sub + 14 + 2 * segs])
            base = sub + 16 + 2 * segs
            starts = struct.unpack(f">{segs}H", data[base:base + 2 * segs])
            deltas = struct.unpack(f">{segs}h", data[base + 2 * segs:base + 4 * segs])
            range_base = base + 4 * segs
            offsets = struct.unpack(f">{segs}H", data[range_base:range_base + 2 * segs])
            for k in range(segs):
                for c in range(starts[k], ends[k] + 1):
                    if c == 0xFFFF:
                        continue
                    if offsets[k] == 0:
                        glyph = (c + deltas[k]) & 0xFFFF
                    else:
                        at = range_base + 2 * k + offsets[k] + 2 * (c - starts[k])
                        glyph = struct.unpack(">H", data[at:at + 2])[0]
                        glyph = (glyph + deltas[k]) & 0xFFFF if glyph else 0
                    if glyph:
                        points.add(c)
        elif fmt_ == 12:
            groups = struct.unpack(">I", data[sub + 12:sub + 16])[0]
            for k in range(groups):
                start, end, glyph = struct.unpack(">III", data[sub + 16 + 12 * k:sub + 28 + 12 * k])
                points.update(c for c in range(start, end + 1) if glyph + (c - start))
    return points


def needs_no_glyph(cp):
    """Controls, line/paragraph separators and default-ignorable code points: drawn as nothing."""
    return (cp < 0x20 or 0x7F <= cp < 0xA0 or cp in (0x00AD, 0x034F, 0x061C, 0x2028, 0x2029, 0x3164, 0xFEFF, 0xFFA0)
            or 0x115F <= cp <= 0x1160 or 0x17B4 <= cp <= 0x17B5 or 0x180B <= cp <= 0x180F
            or 0x200B <= cp <= 0x200F or 0x202A <= cp <= 0x202E or 0x2060 <= cp <= 0x206F
            or 0xFE00 <= cp <= 0xFE0F or 0xE0000 <= cp <= 0xE0FFF)


def font_name(path, name_id):
    """A name of a font file's name table (Windows Unicode or Mac Roman record), or None."""
    with open(path, "rb") as f:
        data = f.read()
    for i in range(struct.unpack(">H", data[4:6])[0]):
        tag, _, offset, _ = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
        if tag != b"name":
            continue
        count, strings = struct.unpack(">HH", data[offset + 2:offset + 6])
        found = None
        for k in range(count):
            platform, encoding, _, nid, length, at = struct.unpack(">6H", data[offset + 6 + 12 * k:offset + 18 + 12 * k])
            raw = data[offset + strings + at:offset + strings + at + length]
            if nid == name_id and platform == 3 and encoding in (0, 1, 10):
                return raw.decode("utf-16-be")
            if nid == name_id and platform == 1 and found is None:
                found = raw.decode("mac_roman")
        return found
    return None


def expected_faces(bold, italic, mono):
    """The files a run with this style draws with, one per family of its cascade: of the family's faces,
    italic ones if it asks for italic and the family has one, else upright; then 700 if it asks for bold
    and there is one, else 400 (CSS font matching; no synthesis)."""
    files = set()
    for family in (MONO_FAMILIES if mono else REGULAR_FAMILIES):
        faces = [(f, w, st) for fam, f, w, st in FONT_FACES if fam == family]
        style = "italic" if italic and any(st == "italic" for _, _, st in faces) else "normal"
        faces = [x for x in faces if x[2] == style]
        weight = 700 if bold and any(w == 700 for _, w, _ in faces) else 400
        files |= {f for f, w, _ in faces if w == weight}
    return files


def verify_fonts(session):
    b = session.browser
    b.call("DOM.enable")
    b.call("CSS.enable")
    ok = True
    summary = {}
    covered, mono_covered = set(), set()
    for i, f in enumerate(FONT_FILES):
        points = cmap_code_points(os.path.join(ROOT, "Fonts", f))
        covered |= points
        if i > 0:
            mono_covered |= points
    mono_covered |= cmap_code_points(os.path.join(ROOT, "Fonts", MONO_FILE))
    by_postscript = {font_name(os.path.join(ROOT, "Fonts", f), 6): f for _, f, _, _ in FONT_FACES}
    total = 0
    for name in GRIDS:
        styled = load_styled_corpus(name)
        total += len(styled)
        for line_no, text, spans in styled:
            runs = flatten_spans(text, spans)
            missing = sorted({ord(c) for s, e, _, _, mono, _ in runs for c in text[s:e]
                              if ord(c) not in (mono_covered if mono else covered) and not needs_no_glyph(ord(c))})
            if missing:
                ok = False
                print(f"NO BUNDLED FONT HAS {' '.join(f'U+{c:04X}' for c in missing)} in {name}:{line_no} "
                      f"{tsv_escape(text)[:80]}")
        session.call("fillAll", [page_item(t, spans) for _, t, spans in styled], 15.5, 1000)
        session.evaluate("document.body.offsetHeight")  # lay out before asking which fonts were used
        root = b.call("DOM.getDocument", depth=0)["root"]["nodeId"]
        for i, (line_no, text, spans) in enumerate(styled):
            div = b.call("DOM.querySelector", nodeId=root, selector=f"#t{i}")["nodeId"]
            # The div's fonts include its spans'; its own text nodes (regular) used what is left over.
            fonts = b.call("CSS.getPlatformFontsForNode", nodeId=div)["fonts"]
            leftover = collections.Counter()
            for font in fonts:
                key = (font["familyName"], font.get("postScriptName", ""), font["isCustomFont"])
                summary[key] = summary.get(key, 0) + font["glyphCount"]
                leftover[key] += font["glyphCount"]
                if not font["isCustomFont"]:
                    ok = False
                    print(f"SYSTEM FONT {font} in {name}:{line_no} {tsv_escape(text)[:80]}")
            checks = []
            styled_runs = [r for r in flatten_spans(text, spans) if run_css(*r[2:])]
            if styled_runs:
                span_ids = b.call("DOM.querySelectorAll", nodeId=div, selector="span")["nodeIds"]
                assert len(span_ids) == len(styled_runs), (name, line_no)
                for node, run in zip(span_ids, styled_runs):
                    for font in b.call("CSS.getPlatformFontsForNode", nodeId=node)["fonts"]:
                        key = (font["familyName"], font.get("postScriptName", ""), font["isCustomFont"])
                        leftover[key] -= font["glyphCount"]
                        checks.append((key[1], expected_faces(*run[2:5]), run_css(*run[2:])))
            checks += [(key[1], expected_faces(False, False, False), "") for key, n in leftover.items() if n > 0]
            for postscript, expected, css in checks:
                if by_postscript.get(postscript) not in expected:
                    ok = False
                    print(f"UNEXPECTED FACE {postscript} for a run styled {css or 'regular'!r} "
                          f"in {name}:{line_no} {tsv_escape(text)[:80]}")
    for (family, ps, custom), glyphs in sorted(summary.items(), key=lambda kv: -kv[1]):
        print(f"{glyphs:8d} glyphs  {'web font' if custom else 'SYSTEM  '}  {family} ({ps})")
    print(f"{total} texts of {', '.join(GRIDS)}")
    print("only bundled fonts, each run in the faces of its style" if ok
          else "SOME GLYPHS CAME FROM SYSTEM FONTS, NO FONT OR THE WRONG FACE")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--lang")
    parser.add_argument("--css", default="")
    parser.add_argument("--system-fonts", action="store_true",
                        help="let Chromium fall back to the system's fonts (default: an empty fontconfig)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fixtures")
    p.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "chromium"))
    p.add_argument("--corpus", action="append", choices=list(GRIDS), help="repeatable; default: every corpus")
    sub.add_parser("verify-fonts")
    spans_help = 'spans (the batch contract: [{"start": 0, "end": 5, "bold": true}, ...]) for every TEXT'
    p = sub.add_parser("probe")
    p.add_argument("size", type=float)
    p.add_argument("width", type=float)
    p.add_argument("texts", nargs="+")
    p.add_argument("--spans", type=json.loads, default=[], help=spans_help)
    p = sub.add_parser("heights")
    p.add_argument("size", type=float)
    p.add_argument("width", type=float)
    p.add_argument("texts", nargs="+")
    p.add_argument("--spans", type=json.loads, default=[], help=spans_help)
    p = sub.add_parser("widths")
    p.add_argument("size", type=float)
    p.add_argument("texts", nargs="+")
    p.add_argument("--spans", type=json.loads, default=[], help=spans_help)
    args = parser.parse_args()
    for text in getattr(args, "texts", []) if getattr(args, "spans", None) else []:
        try:
            flatten_spans(unescape(text), args.spans)
        except (ValueError, KeyError, TypeError) as e:
            parser.error(f"--spans for {text!r}: {e}")

    session = Session(args.chromium, args.lang, args.css, args.system_fonts)
    try:
        print(f"# {session.version}", file=sys.stderr)
        if args.command == "fixtures":
            write_fixtures(session, args.out, args.corpus)
        elif args.command == "verify-fonts":
            sys.exit(0 if verify_fonts(session) else 1)
        elif args.command == "probe":
            for text in args.texts:
                text = unescape(text)
                r = session.call("probe", page_item(text, args.spans), args.size, args.width)
                print(f"size {fmt(args.size)} width {fmt(args.width)}: {round(r['height'] / 100)} lines")
                for line in r["lines"]:
                    print(f"  {line['width']:10.4f}  {json.dumps(line['text'], ensure_ascii=False)}")
        elif args.command == "heights":
            for text in args.texts:
                text = unescape(text)
                r = session.call("lineBoxes", page_item(text, args.spans), args.size, args.width)
                print(f"size {fmt(args.size)} width {fmt(args.width)}: height {fmt(r['height'])} "
                      f"(line-height: normal), {len(r['lines'])} lines")
                print(f"  {'top':>10}  {'height':>10}  {'width':>10}  text")
                for k, line in enumerate(r["lines"]):
                    note = "" if line["prefixLines"] == k + 1 else f"  (lines 0..{k} alone make {line['prefixLines']} lines: not exact)"
                    print(f"  {fmt(line['top']):>10}  {fmt(line['height']):>10}  {line['width']:10.4f}  "
                          f"{json.dumps(line['text'], ensure_ascii=False)}{note}")
                bottom = r["lines"][-1]["top"] + r["lines"][-1]["height"] if r["lines"] else 0
                if bottom != r["height"]:
                    print(f"  note: the line boxes end at {fmt(bottom)}, the text's height is {fmt(r['height'])}")
        elif args.command == "widths":
            for text in args.texts:
                text = unescape(text)
                width = session.call("advance", page_item(text, args.spans), args.size)
                print(f"{width:12.5f}  {json.dumps(text, ensure_ascii=False)}")
    finally:
        session.close()


if __name__ == "__main__":
    main()
