#!/usr/bin/env python3
"""Whole-process speed of `textmeasure batch` against Pango and raw hb_shape, side by side.

Same fonts, same items, same machine, interleaved rounds; prints medians and ratios (absolute times
on a shared machine mean little; ratios measured in one run do).

    Benchmarks/compare-pango.py [--rounds 11] [--cold 6000] [--texts 2000] [--dynamic] [--corpus low-reuse]

`textmeasure` is built as it would be shipped, with the Swift runtime linked statically
(`swift build -c release --static-swift-stdlib`); `--dynamic` measures the plain `swift build -c release`
binary instead (it spends about 2 ms more starting up, loading the Swift runtime's shared libraries).

Workloads (the defaults are issue 13's: 6,000 cold texts, 2,000 texts at 8 widths; `--cold 3000
--texts 400` gives the smaller batches the README also reports, where start-up weighs more):
  cold         new multilingual texts (corpus sentences combined, each text unique), each measured once
  multi-width  texts each measured at 8 widths (one item per width, consecutive)

`--corpus low-reuse` builds both from Benchmarks/Corpus/low-reuse.txt instead (Tools/corpus/make_low_reuse.py:
6,000 Faker texts in fourteen script groups that share as few words as they can): cold measures each of
its texts once (`--cold` of them, all by default), multi-width `--texts` of them (every third by default)
at 8 widths. The default workloads reuse the 196 corpus sentences, which flatters the shaped-word cache.
"""
import argparse, json, os, random, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FONTS = ["NotoSans-Regular.ttf", "NotoSansArabic-Regular.ttf", "NotoSansHebrew-Regular.ttf",
         "NotoSansThai-Regular.ttf", "NotoSansDevanagari-Regular.ttf", "DroidSansFallbackFull.ttf",
         "NanumGothic.ttf", "NotoSansMath-Regular.ttf", "NotoSansSymbols2-Regular.ttf", "NotoColorEmoji.ttf"]
WIDTHS = [180, 240, 300, 343, 390, 414, 600, 716]


def unescape(line):
    """The corpus escapes: \\n, \\r, \\t, \\\\ and \\uXXXX (as Tests/TextMeasureTests/Support.swift)."""
    out, i = [], 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            n = line[i + 1]
            if n == "u":
                out.append(chr(int(line[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def corpus():
    path = os.path.join(ROOT, "Tests/Corpus/multilingual.txt")
    return [unescape(line.rstrip("\n")) for line in open(path, encoding="utf-8") if line.strip()]


def low_reuse_corpus():
    path = os.path.join(ROOT, "Benchmarks/Corpus/low-reuse.txt")
    return [unescape(line.rstrip("\n")) for line in open(path, encoding="utf-8") if line.strip()]


def build(tmp, static):
    def run(command, **kw):
        subprocess.run(command, check=True, cwd=ROOT, **kw)
    options = ["-c", "release"] + (["--static-swift-stdlib", "--scratch-path", ".build-static"] if static else [])
    run(["swift", "build", *options, "--product", "textmeasure"], stdout=subprocess.DEVNULL)
    binary = subprocess.run(["swift", "build", *options, "--show-bin-path"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip() + "/textmeasure"
    flags = lambda *pkgs: subprocess.run(["pkg-config", "--cflags", "--libs", *pkgs], check=True,
                                         capture_output=True, text=True).stdout.split()
    pango = os.path.join(tmp, "pango-lines")
    run(["cc", "-O2", "Tools/pango-reference/pango_lines.c", *flags("pangocairo", "pangoft2", "fontconfig"), "-o", pango])
    floor = os.path.join(tmp, "hb-floor")
    run(["cc", "-O2", "Benchmarks/tools/hb_floor.c", *flags("harfbuzz"), "-o", floor])
    return binary, pango, floor


def workloads(cold_count, text_count):
    rng = random.Random(2026)
    # Texts with tabs joined the corpus after these workloads were fixed; leaving them out keeps the
    # workloads (and the figures measured on them) the same.
    base = [t for t in corpus() if "\t" not in t]
    def new_text(i):
        return " ".join(rng.sample(base, rng.randint(1, 2))) + f" #{i}"
    sizes = [13, 15, 17]
    cold = [(sizes[i % 3], WIDTHS[i % len(WIDTHS)], new_text(i)) for i in range(cold_count)]
    multi = []
    for i in range(text_count):
        text = new_text(100_000 + i)
        multi += [(sizes[i % 3], w, text) for w in WIDTHS]
    return {"cold": cold, "multi-width": multi}


def low_reuse_workloads(cold_count, text_count):
    """Each text of the low-reuse corpus once (cold), and every third one at 8 widths; shuffled with a fixed
    seed so that the script groups mix as in a feed (the file keeps them in blocks)."""
    texts = low_reuse_corpus()
    cold_count = min(cold_count, len(texts))
    text_count = min(text_count, len(texts))
    sizes = [13, 15, 17]
    order = list(range(len(texts)))
    random.Random(2026).shuffle(order)
    cold = [(sizes[i % 3], WIDTHS[i % len(WIDTHS)], texts[k]) for i, k in enumerate(order[:cold_count])]
    step = max(1, len(texts) // text_count)
    chosen = order[::step][:text_count]
    multi = []
    for i, k in enumerate(chosen):
        multi += [(sizes[i % 3], w, texts[k]) for w in WIDTHS]
    return {"cold": cold, "multi-width": multi}


def write_inputs(tmp, name, items):
    tsv = os.path.join(tmp, name + ".tsv")
    jsonl = os.path.join(tmp, name + ".jsonl")
    escape = lambda t: t.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    with open(tsv, "w", encoding="utf-8") as f:
        for size, width, text in items:
            f.write(f"{size}\t{width}\t{escape(text)}\n")
    with open(jsonl, "w", encoding="utf-8") as f:
        for size, width, text in items:
            f.write(json.dumps({"text": text, "width": width, "size": size}, ensure_ascii=False) + "\n")
    return tsv, jsonl


def timed(command, stdin_path):
    with open(stdin_path, "rb") as stdin:
        start = time.perf_counter()
        result = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed: {result.stderr.decode()[:500]}")
    return elapsed, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--cold", type=int, default=6000, help="items in the cold workload")
    parser.add_argument("--texts", type=int, default=2000, help="texts in the multi-width workload (x8 widths)")
    parser.add_argument("--corpus", choices=["combined", "low-reuse"], default="combined",
                        help="combined: corpus sentences combined (issue 13's workloads, the default); "
                             "low-reuse: Benchmarks/Corpus/low-reuse.txt")
    parser.add_argument("--dynamic", action="store_true",
                        help="link the Swift runtime dynamically (plain swift build) instead of statically")
    args = parser.parse_args()
    args.static = not args.dynamic
    fonts = [os.path.join(ROOT, "Fonts", f) for f in FONTS]
    with tempfile.TemporaryDirectory() as tmp:
        binary, pango, floor = build(tmp, args.static)
        linking = "static" if args.static else "dynamic"
        print(f"machine: {os.cpu_count()} cores; {args.rounds} interleaved rounds; whole process, same fonts and items; "
              f"Swift runtime linked {linking}; workloads: {args.corpus}; load average {os.getloadavg()[0]:.1f}\n")
        print(f"{'workload':12} {'items':>6} {'pango':>9} {'ours':>9} {'hb_shape':>9}   {'pango/ours':>10} {'ours/hb_shape':>13}  agreement")
        make = low_reuse_workloads if args.corpus == "low-reuse" else workloads
        for name, items in make(args.cold, args.texts).items():
            tsv, jsonl = write_inputs(tmp, name, items)
            commands = {
                "pango": ([pango, "--quiet", *fonts], tsv),
                "ours": ([binary, "batch"], jsonl),
                "hb": ([floor, fonts[0]], tsv),
            }
            times = {k: [] for k in commands}
            outputs = {}
            for _ in range(args.rounds):
                for key, (command, path) in commands.items():
                    elapsed, out = timed(command, path)
                    times[key].append(elapsed)
                    outputs[key] = out
            ours = [json.loads(l)["lineCount"] for l in outputs["ours"].decode().splitlines()]
            theirs = [int(l) for l in outputs["pango"].decode().splitlines()]
            agree = sum(a == b for a, b in zip(ours, theirs)) / len(items)
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"{name:12} {len(items):6d} {med['pango']:8.3f}s {med['ours']:8.3f}s {med['hb']:8.3f}s"
                  f"   {med['pango'] / med['ours']:9.1f}x {med['ours'] / med['hb']:12.1f}x  {agree * 100:.2f} %")


if __name__ == "__main__":
    main()
