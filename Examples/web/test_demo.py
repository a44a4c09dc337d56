#!/usr/bin/env python3
"""The web demo (Examples/web) in a real browser: every rendered row exactly where the server's heights put it.

    python3 Examples/web/test_demo.py [--textmeasure PATH] [--chromium PATH] [--artifacts DIR]

Needs Playwright for Python (`pip install playwright`; its own browser downloads are not used), Debian's
`chromium` (driven through `executable_path`) and the release binaries
(`swift build -c release --product textmeasure && swift build -c release --product textmeasure-serve`). The test starts
`textmeasure serve --port 0` itself and opens http://127.0.0.1:PORT/demo/ at widths 360, 768 and 1280:

- it scrolls the window from the top to the bottom in steps of one viewport; at each step, for every
  rendered row (`[data-index]`), its real height (getBoundingClientRect) equals data-height and its real
  top within #list equals data-top, within 0.5 px; so does the top of the row after it;
- the document's scrollHeight equals the predicted total plus the page's fixed chrome (a 52 px header
  padding, the 56 px "older messages" strip, the 40 px footer: `demo.layout.PAGE_CHROME`, 148 px);
- a resize to another width, and prepending older messages (from the middle of the list and from its
  top), keep the reader's row (the row under the header) within 1 px of where it was;
- every character of the 10,000 messages has a glyph in a bundled font (else a browser falls back to a
  system font the server never measured).

Chromium runs with a fontconfig whose only font is the bundled Noto Sans, so every glyph it draws comes
from the bundled fonts (the page's web fonts, and Noto Sans while they load). It prints rows checked, mismatches and the worst
differences per width, the time to the first screen and the rows per second of the initial measuring,
and saves a screenshot per width in .build/web-demo/ (or --artifacts).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(CHECKOUT, "Tools", "chromium-reference"))
import chromium_lines  # noqa: E402  (the bundled fonts' cmaps, for the coverage check)

WIDTHS = [360, 768, 1280]
HEIGHTS = {360: 740, 768: 1024, 1280: 800}   # a phone, a tablet, a laptop
# After the scroll pass at each width the page is resized to the next one.
RESIZED = {360: 768, 768: 1280, 1280: 360}
TOLERANCE = 0.5      # px, heights and tops
ANCHOR_TOLERANCE = 1  # px, the reader's row after a resize or a prepend
FORBIDDEN = ["getBoundingClientRect", "getClientRects", "offsetHeight", "offsetWidth", "offsetTop",
             "clientHeight", "clientWidth", "scrollHeight", "scrollWidth", "getComputedStyle",
             "ResizeObserver", "IntersectionObserver", "checkVisibility"]

OPTIONS = argparse.Namespace(textmeasure=os.path.join(CHECKOUT, ".build", "release", "textmeasure"),
                             chromium="/usr/bin/chromium",
                             artifacts=os.path.join(CHECKOUT, ".build", "web-demo"))

# Waits for the next frame, or for the web fonts, with a deadline: a frame that never comes (a stalled
# compositor) must not hang the test until the job's timeout. A late wait is counted in window.lateWaits
# and the test goes on: the checks read layout themselves (getBoundingClientRect forces it), so a late
# frame can only leave a row missing or misplaced, which the checks report. STALLED late waits in a row
# mean the browser has stopped drawing (a loaded host makes single frames late, not ten in a row), and
# the script throws an error naming it instead of crawling on.
STALLED = 10
WAITS_JS = r"""
  const late = (ms) => new Promise(resolve => setTimeout(() => resolve('late'), ms));
  const within = async (promise, ms, what) => {
    if (await Promise.race([promise.then(() => 'done', () => 'done'), late(ms)]) !== 'late') {
      window.lateInARow = 0;
      return;
    }
    window.lateWaits = (window.lateWaits || 0) + 1;
    window.lateInARow = (window.lateInARow || 0) + 1;
    if (window.lateInARow >= STALLED) throw new Error(`browser stalled: ${window.lateInARow} waits in a row past their deadline, the last for ${what}`);
  };
  const frame = () => within(new Promise(resolve => requestAnimationFrame(() => resolve())), 1000, 'a frame');
  const fontsReady = () => within(document.fonts.ready, 10000, 'the web fonts');
""".replace("STALLED", str(STALLED))

# Scrolls the window from the top to the bottom in viewport steps and checks every rendered row at each.
CHECK_ALL_JS = r"""
async ({ tolerance, full }) => {
  /*WAITS*/
  const header = demo.layout.PAGE.header;
  const list = document.getElementById('list');
  const viewport = window.innerHeight;
  const result = { steps: 0, observations: 0, rows: new Set(), mismatches: [], worstHeight: 0, worstTop: 0,
                   worstGap: 0, unmeasuredVisible: 0 };
  const settle = async () => {
    await frame(); await frame();
    while (document.fonts.status === 'loading') { await fontsReady(); await frame(); }
  };
  const check = () => {
    const listTop = list.getBoundingClientRect().top;
    const rows = [...list.querySelectorAll('[data-index]')]
      .map(el => ({ el, index: Number(el.dataset.index), rect: el.getBoundingClientRect() }))
      .sort((a, b) => a.index - b.index);
    for (let k = 0; k < rows.length; k++) {
      const { el, index, rect } = rows[k];
      const top = rect.top - listTop, height = rect.height;
      const dataTop = Number(el.dataset.top), dataHeight = Number(el.dataset.height);
      const dh = Math.abs(height - dataHeight), dt = Math.abs(top - dataTop);
      // The next row, when it is rendered too, starts where this one ends: no overlap, no gap.
      const next = rows[k + 1] && rows[k + 1].index === index + 1 ? rows[k + 1] : null;
      const gap = next ? Math.abs(next.rect.top - rect.bottom) : 0;
      result.observations++;
      result.rows.add(Number(el.dataset.id));
      result.worstHeight = Math.max(result.worstHeight, dh);
      result.worstTop = Math.max(result.worstTop, dt);
      result.worstGap = Math.max(result.worstGap, gap);
      if ((dh > tolerance || dt > tolerance || gap > tolerance) && !result.mismatches.some(m => m.id === Number(el.dataset.id))) {
        const text = el.querySelector('.text');
        result.mismatches.push({ index, id: Number(el.dataset.id), predictedHeight: dataHeight, height,
                                 predictedTop: dataTop, top, gap,
                                 textHeight: text.getBoundingClientRect().height,
                                 predictedTextHeight: dataHeight - (el.classList.contains('first')
                                   ? demo.layout.ROW.topFirst + demo.layout.ROW.meta : demo.layout.ROW.topContinued) - demo.layout.ROW.bottom,
                                 text: text.textContent, bold: text.querySelector('b') ? text.querySelector('b').textContent : null });
      }
    }
    // A row in the viewport that is not rendered would be a hole (every row is measured by now).
    const y0 = window.scrollY + header - demo.layout.LIST_TOP, y1 = window.scrollY + viewport - demo.layout.LIST_TOP;
    const shown = new Set(rows.map(r => r.index));
    let expected = 0;
    for (const r of rows) if (Number(r.el.dataset.top) < y1 && Number(r.el.dataset.top) + Number(r.el.dataset.height) > y0) expected++;
    if (rows.length === 0 && demo.count > 0 && y1 > 0 && y0 < demo.total()) result.unmeasuredVisible++;
  };
  if (!full) { await settle(); check(); }
  else {
    const step = viewport - header;
    for (let y = 0; ; y += step) {
      const max = document.documentElement.scrollHeight - viewport;
      window.scrollTo(0, Math.min(y, max));
      await settle();
      check();
      result.steps++;
      if (y >= max) break;
    }
  }
  result.rows = result.rows.size;
  result.lateWaits = window.lateWaits || 0;
  result.scrollHeight = document.documentElement.scrollHeight;
  result.predictedScrollHeight = demo.total() + demo.layout.PAGE_CHROME;
  return result;
}
""".replace("/*WAITS*/", WAITS_JS)

# The reader's row: the first rendered row whose bottom is below the header; its id and viewport top.
READER_JS = r"""
() => {
  const header = demo.layout.PAGE.header;
  const rows = [...document.querySelectorAll('#list [data-index]')]
    .map(el => ({ id: Number(el.dataset.id), index: Number(el.dataset.index), rect: el.getBoundingClientRect() }))
    .filter(r => r.rect.bottom > header)
    .sort((a, b) => a.rect.top - b.rect.top);
  return rows.length ? { id: rows[0].id, index: rows[0].index, top: rows[0].rect.top, scrollY: window.scrollY } : null;
}
"""

ROW_TOP_JS = r"""
(id) => {
  const el = document.querySelector(`#list [data-id="${id}"]`);
  return el ? { top: el.getBoundingClientRect().top, index: Number(el.dataset.index) } : null;
}
"""

# The page's own report once every height has arrived (demo.js's window.demoReady), within 5 minutes.
READY_JS = r"""
async () => {
  /*WAITS*/
  const ready = await Promise.race([window.demoReady, late(300000)]);
  if (ready === 'late') throw new Error('browser stalled: the page was not ready after 300 s');
  return ready;
}
""".replace("/*WAITS*/", WAITS_JS)

SETTLE_JS = r"""
async () => {
  /*WAITS*/
  await frame(); await frame();
  await within(demo.idle(), 120000, 'the measuring requests');
  await frame(); await frame();
  while (document.fonts.status === 'loading') { await fontsReady(); await frame(); }
  return { complete: demo.complete(), textWidth: demo.textWidth(), count: demo.count, errors: demo.errors(),
           lateWaits: window.lateWaits || 0 };
}
""".replace("/*WAITS*/", WAITS_JS)


def bundled_fontconfig(folder):
    """A fontconfig whose only font is the bundled Noto Sans: the browser's last resort while a web font is
    still loading. (With no font at all, Chromium fails every @font-face that layout asks for before it
    has loaded; Tools/chromium-reference loads its faces before it lays anything out.) Every glyph drawn
    comes from the bundled fonts. The system's rules (/etc/fonts/conf.d) stay, as in the reference: without
    them text is not antialiased, and Chromium then places glyphs at whole pixels."""
    fonts = os.path.join(folder, "fonts")
    os.makedirs(fonts, exist_ok=True)
    os.symlink(os.path.join(CHECKOUT, "Fonts", "NotoSans-Regular.ttf"), os.path.join(fonts, "NotoSans-Regular.ttf"))
    path = os.path.join(folder, "fonts.conf")
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                f'<fontconfig><include ignore_missing="yes">/etc/fonts/conf.d</include><dir>{fonts}</dir>'
                f'<cachedir>{folder}/fontconfig</cachedir></fontconfig>\n')
    return path


class Server:
    """`textmeasure serve --port 0`, its port read from the line it prints."""

    def __init__(self, binary):
        self.process = subprocess.Popen([binary, "serve", "--port", "0"], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if "listening on http://" not in line:
            self.process.kill()
            raise RuntimeError(f"textmeasure serve did not start: {line!r} {self.process.stderr.read()}")
        self.base = line.strip().rsplit(" ", 1)[-1]
        # Keep reading its output so that it never blocks on a full pipe.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def post(self, body):
        request = urllib.request.Request(self.base + "/v1/measure", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


SERVER = None
PLAYWRIGHT = None
BROWSER = None
PROFILE = None
REPORT = {}
STALLS = []   # the widths whose page stalled and was opened again


def setUpModule():
    global SERVER, PLAYWRIGHT, BROWSER, PROFILE
    from playwright.sync_api import sync_playwright
    serve = os.path.join(os.path.dirname(OPTIONS.textmeasure), "textmeasure-serve")
    for path, what in [(OPTIONS.textmeasure, "the release binary (swift build -c release --product textmeasure)"),
                       (serve, "the server beside it (swift build -c release --product textmeasure-serve)"),
                       (OPTIONS.chromium, "Debian's chromium (apt-get install chromium)")]:
        if not os.access(path, os.X_OK):
            raise RuntimeError(f"{path} is missing: {what}")
    SERVER = Server(OPTIONS.textmeasure)
    # The first request opens the fonts (the styled faces too): the page's timings are the page's, not
    # the process's start.
    SERVER.post([{"text": "warm up", "width": 100, "breaking": "browser"},
                 {"text": "@warm up", "width": 100, "breaking": "browser", "spans": [{"start": 0, "end": 5, "bold": True}]}])
    PROFILE = tempfile.TemporaryDirectory(prefix="web-demo-")
    env = dict(os.environ, FONTCONFIG_FILE=bundled_fontconfig(PROFILE.name))
    PLAYWRIGHT = sync_playwright().start()
    BROWSER = PLAYWRIGHT.chromium.launch(executable_path=OPTIONS.chromium, env=env,
                                         args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                               "--force-device-scale-factor=1", "--disable-extensions"])
    os.makedirs(OPTIONS.artifacts, exist_ok=True)


def tearDownModule():
    if BROWSER:
        BROWSER.close()
    if PLAYWRIGHT:
        PLAYWRIGHT.stop()
    if SERVER:
        SERVER.stop()
    if PROFILE:
        PROFILE.cleanup()
    if REPORT:
        print("\nweb demo, Chromium " + (BROWSER.version if BROWSER else "?"), file=sys.stderr)
        for width in WIDTHS:
            r = REPORT.get(width)
            if not r:
                continue
            print(f"  width {width:4}: {r['rows']:,} rows checked ({r['observations']:,} row observations in "
                  f"{r['steps']} viewport steps), {r['mismatches']} mismatches, worst height difference "
                  f"{r['worstHeight']:.3f} px, worst top difference {r['worstTop']:.3f} px; first screen "
                  f"{r['firstScreenMs']:.0f} ms, initial measuring {r['measureMs']:.0f} ms = "
                  f"{r['rowsPerSecond']:,.0f} rows/s in {r['requests']} requests; resize to {r['resizedTo']}: "
                  f"reader's row moved {r['resizeMoved']:.3f} px; prepend: {r['prependMoved']:.3f} px (middle), "
                  f"{r['prependTopMoved']:.3f} px (top)", file=sys.stderr)
        if STALLS:
            print(f"  pages opened again after Chromium stopped drawing frames: widths {STALLS}", file=sys.stderr)


def open_demo(width):
    """A new page (its own cache, as a first visit) at `width`, loaded, every height arrived."""
    context = BROWSER.new_context(viewport={"width": width, "height": HEIGHTS[width]}, device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(SERVER.base + "/demo/")
        stats = page.evaluate(READY_JS)
        page.evaluate(SETTLE_JS)
    except Exception:
        context.close()   # a stalled page must not go on taking CPU from a second try
        raise
    return context, page, stats, errors


def describe(mismatches, limit=10):
    lines = []
    for m in mismatches[:limit]:
        lines.append(f"    row {m['index']} (id {m['id']}): height {m['height']} predicted {m['predictedHeight']} "
                     f"(text {m['textHeight']} predicted {m['predictedTextHeight']}), top {m['top']} predicted "
                     f"{m['predictedTop']}, gap {m['gap']}{', bold ' + json.dumps(m['bold'], ensure_ascii=False) if m['bold'] else ''}: "
                     f"{json.dumps(m['text'], ensure_ascii=False)}")
    if len(mismatches) > limit:
        lines.append(f"    … and {len(mismatches) - limit} more")
    return "\n".join(lines)


class WebDemoTests(unittest.TestCase):
    def check_width(self, width):
        """Checks the page at one width; again in a new page, up to twice, if the browser stopped drawing
        frames (headless Chromium does, now and then on a loaded host: requestAnimationFrame stops
        calling back): that is the browser's failure, not the page's. A third stall fails the test."""
        for attempt in range(3):
            try:
                self.check_width_once(width)
                return
            except Exception as error:
                if "browser stalled" not in str(error) or attempt == 2:
                    raise
                STALLS.append(width)
                print(f"width {width}: {str(error).splitlines()[0]}; checking again in a new page", file=sys.stderr)

    def check_width_once(self, width):
        context, page, stats, errors = open_demo(width)
        try:
            self.assertEqual(stats["errors"], 0, page.evaluate("() => demo.errors()"))
            self.assertEqual(stats["rows"], 10_000)
            page.evaluate("() => window.scrollTo(0, 0)")
            page.evaluate(SETTLE_JS)
            page.screenshot(path=os.path.join(OPTIONS.artifacts, f"chat-{width}.png"))

            started = time.monotonic()
            result = page.evaluate(CHECK_ALL_JS, {"tolerance": TOLERANCE, "full": True})
            scroll_seconds = time.monotonic() - started
            report = dict(rows=result["rows"], observations=result["observations"], steps=result["steps"],
                          mismatches=len(result["mismatches"]), worstHeight=result["worstHeight"],
                          worstTop=result["worstTop"], firstScreenMs=stats["firstScreenMs"],
                          measureMs=stats["measureMs"], rowsPerSecond=stats["rowsPerSecond"],
                          requests=stats["requests"], scrollSeconds=scroll_seconds,
                          lateWaits=result["lateWaits"])
            REPORT[width] = report
            print(f"width {width}: {result['rows']} rows checked, {len(result['mismatches'])} mismatches, worst "
                  f"height difference {result['worstHeight']:.3f} px, worst top difference {result['worstTop']:.3f} px "
                  f"({result['steps']} steps, {scroll_seconds:.1f} s); first screen {stats['firstScreenMs']:.0f} ms, "
                  f"{stats['rowsPerSecond']:.0f} rows/s; {result['lateWaits']} waits past their deadline", file=sys.stderr)
            if result["mismatches"]:
                print(describe(result["mismatches"], limit=100), file=sys.stderr)
            self.assertEqual(result["rows"], 10_000, "every row was rendered at some step")
            self.assertEqual(result["mismatches"], [], "rows whose real height or top differs from the "
                             "prediction:\n" + describe(result["mismatches"]))
            self.assertEqual(result["scrollHeight"], result["predictedScrollHeight"],
                             "scrollHeight = the predicted total + the page chrome")

            # Resize: the reader's row (middle of the list) stays.
            page.evaluate("() => window.scrollTo(0, Math.round(demo.total() / 2))")
            page.evaluate(SETTLE_JS)
            reader = page.evaluate(READER_JS)
            new_width = RESIZED[width]
            page.set_viewport_size({"width": new_width, "height": HEIGHTS[width]})
            settled = page.evaluate(SETTLE_JS)
            self.assertTrue(settled["complete"], "every row measured again at the new width")
            self.assertEqual(settled["textWidth"], min(960, new_width) - 80)
            after = page.evaluate(ROW_TOP_JS, reader["id"])
            self.assertIsNotNone(after, "the reader's row is still rendered after the resize")
            report["resizedTo"] = new_width
            report["resizeMoved"] = abs(after["top"] - reader["top"])
            self.assertLessEqual(report["resizeMoved"], ANCHOR_TOLERANCE,
                                 f"resize {width} → {new_width}: the reader's row moved from {reader['top']} to {after['top']}")
            rows = page.evaluate(CHECK_ALL_JS, {"tolerance": TOLERANCE, "full": False})
            self.assertEqual(rows["mismatches"], [], "after the resize:\n" + describe(rows["mismatches"]))

            # Prepend from the middle (the header's button): the reader's row stays.
            reader = page.evaluate(READER_JS)
            count = page.evaluate("() => demo.count")
            page.click("#older-top")
            settled = page.evaluate(SETTLE_JS)
            self.assertEqual(settled["count"], count + 500)
            after = page.evaluate(ROW_TOP_JS, reader["id"])
            self.assertIsNotNone(after)
            self.assertEqual(after["index"], reader["index"] + 500)
            report["prependMoved"] = abs(after["top"] - reader["top"])
            self.assertLessEqual(report["prependMoved"], ANCHOR_TOLERANCE)
            rows = page.evaluate(CHECK_ALL_JS, {"tolerance": TOLERANCE, "full": False})
            self.assertEqual(rows["mismatches"], [], "after prepending:\n" + describe(rows["mismatches"]))

            # Prepend from the top (the strip's button): the first row stays where it was.
            page.evaluate("() => window.scrollTo(0, 0)")
            page.evaluate(SETTLE_JS)
            reader = page.evaluate(READER_JS)
            page.click("#older")
            settled = page.evaluate(SETTLE_JS)
            after = page.evaluate(ROW_TOP_JS, reader["id"])
            self.assertIsNotNone(after)
            report["prependTopMoved"] = abs(after["top"] - reader["top"])
            self.assertLessEqual(report["prependTopMoved"], ANCHOR_TOLERANCE)
            rows = page.evaluate(CHECK_ALL_JS, {"tolerance": TOLERANCE, "full": False})
            self.assertEqual(rows["mismatches"], [], "after prepending at the top:\n" + describe(rows["mismatches"]))
            self.assertEqual(page.evaluate("() => demo.errors().length"), 0)
            self.assertEqual(errors, [], "the page logged errors")
        finally:
            context.close()

    def test_rows_at_width_360(self):
        self.check_width(360)

    def test_rows_at_width_768(self):
        self.check_width(768)

    def test_rows_at_width_1280(self):
        self.check_width(1280)

    def test_every_character_has_a_bundled_font(self):
        context = BROWSER.new_context(viewport={"width": 768, "height": 800})
        try:
            page = context.new_page()
            page.goto(SERVER.base + "/demo/")
            messages = page.evaluate("() => demo.messages()")
        finally:
            context.close()
        covered = set()
        for name in chromium_lines.FONT_FILES:
            covered |= chromium_lines.cmap_code_points(os.path.join(CHECKOUT, "Fonts", name))
        missing = {}
        for m in messages:
            for c in m["text"]:
                if ord(c) not in covered and not chromium_lines.needs_no_glyph(ord(c)):
                    missing.setdefault(f"U+{ord(c):04X}", m["text"][:60])
        self.assertEqual(missing, {})

    def test_the_page_never_measures_the_dom(self):
        for name in sorted(os.listdir(HERE)):
            if name.endswith((".js", ".html", ".css")):
                with open(os.path.join(HERE, name), encoding="utf-8") as f:
                    source = f.read()
                # The comment that names them is not a use: only code counts.
                code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))
                used = [api for api in FORBIDDEN if api in code]
                self.assertEqual(used, [], f"{name} reads rendered sizes")

    def test_served_files(self):
        def get(path, headers=None):
            request = urllib.request.Request(SERVER.base + path, headers=headers or {})
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return response.status, response.headers, response.read()
            except urllib.error.HTTPError as error:
                return error.code, error.headers, error.read()
        status, headers, _ = get("/demo/")
        self.assertEqual((status, headers["Content-Type"]), (200, "text/html; charset=utf-8"))
        status, script, _ = get("/demo/demo.js")
        self.assertEqual((status, script["Content-Type"]), (200, "text/javascript; charset=utf-8"))
        status, headers, _ = get("/demo/demo.css")
        self.assertEqual((status, headers["Content-Type"]), (200, "text/css; charset=utf-8"))
        status, _, _ = get("/demo/demo.js", {"If-None-Match": script["ETag"]})
        self.assertEqual(status, 304)
        for name in chromium_lines.FONT_FILES:
            status, headers, _ = get("/fonts/" + name)
            self.assertEqual((status, headers["Content-Type"]), (200, "font/ttf"), name)
            self.assertEqual(headers["Cache-Control"], "public, max-age=86400", name)
        for path in ["/demo/test_demo.py", "/demo/../Package.swift", "/demo/%2e%2e/Package.swift", "/fonts/README.md"]:
            status, headers, body = get(path)
            self.assertEqual(status, 404, path)
            self.assertIn("error", json.loads(body))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--textmeasure", default=OPTIONS.textmeasure)
    parser.add_argument("--chromium", default=OPTIONS.chromium)
    parser.add_argument("--artifacts", default=OPTIONS.artifacts)
    args, rest = parser.parse_known_args()
    OPTIONS.textmeasure, OPTIONS.chromium, OPTIONS.artifacts = args.textmeasure, args.chromium, args.artifacts
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
