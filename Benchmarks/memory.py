#!/usr/bin/env python3
"""Peak resident memory (RSS) of the library and of `textmeasure batch` under inputs that once made
them grow without bound; with --baseline, the same runs on an older revision, side by side.

    Benchmarks/memory.py [--baseline REV] [--sizes 5000] [--large-lines 100] [--large-bytes 1000000]

Workloads:
  library-sizes  one multilingual paragraph through TextMeasurer.measure at N distinct sizes
                 (8.00, 8.01, ... px), in MemoryProbe/ (public API only, so it builds against REV too)
  batch-sizes    the same N items as JSON Lines through `textmeasure batch` (one size per line)
  batch-large    L distinct texts of about B bytes each (multilingual corpus sentences) through
                 `textmeasure batch`, default options

Peak RSS is the kernel's (ru_maxrss) for each process, read through /usr/bin/time: a child forked
straight from this script would count this script's own memory from before its exec. Builds are
release builds in .build-memory/; the baseline is exported with `git archive` into
.build-memory/baseline-REV/ (the work tree is not touched) and reused by later runs.
"""
import argparse, importlib.util, json, os, random, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The paragraph MemoryProbe measures (keep the two identical).
PARAGRAPH = ("Hello, world — 你好，世界 — مرحبا بالعالم 👋 The quick brown fox jumps over the lazy dog. "
             "Привет, мир! שלום עולם. สวัสดีชาวโลก नमस्ते दुनिया 안녕하세요 세계 ∑ x² ≤ ∞ ★")


def corpus():
    """The test corpus, read by compare-pango.py's loader (one loader for one format)."""
    spec = importlib.util.spec_from_file_location("compare_pango", os.path.join(HERE, "compare-pango.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.corpus()


def build(root, scratch):
    """Release builds of `textmeasure` and the memory probe for the checkout at `root`."""
    def run(*arguments):
        result = subprocess.run(["swift", "build", "-c", "release", *arguments], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"swift build {' '.join(arguments)} failed:\n{result.stdout}{result.stderr}")
    main_scratch, probe_scratch = os.path.join(scratch, "main"), os.path.join(scratch, "probe")
    run("--product", "textmeasure", "--package-path", root, "--scratch-path", main_scratch)
    run("--package-path", os.path.join(root, "Benchmarks/MemoryProbe"), "--scratch-path", probe_scratch)
    return (os.path.join(main_scratch, "release/textmeasure"), os.path.join(probe_scratch, "release/MemoryProbe"))


def peak_rss(command, stdin_path=None):
    """Runs `command` (standard input from `stdin_path`), returns (peak RSS in MiB, stdout, stderr)."""
    with open(stdin_path or os.devnull, "rb") as stdin, tempfile.NamedTemporaryFile() as peak:
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name, *command], stdin=stdin,
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"{command[0]} failed ({result.returncode}): {result.stderr}")
        return int(open(peak.name).read().split()[-1]) / 1024, result.stdout, result.stderr


def write_inputs(folder, sizes, large_lines, large_bytes):
    sizes_path = os.path.join(folder, "sizes.jsonl")
    with open(sizes_path, "w", encoding="utf-8") as f:
        for i in range(sizes):
            f.write(json.dumps({"text": PARAGRAPH, "width": 320, "size": round(8 + i / 100, 2)},
                               ensure_ascii=False) + "\n")
    texts = corpus()
    large_path = os.path.join(folder, "large.jsonl")
    with open(large_path, "w", encoding="utf-8") as f:
        for line in range(large_lines):
            rng, parts, length = random.Random(line), [f"Text {line}:"], 0
            while length < large_bytes:
                part = rng.choice(texts)
                parts.append(part)
                length += len(part.encode()) + 1
            f.write(json.dumps({"text": " ".join(parts), "width": 320}, ensure_ascii=False) + "\n")
    return sizes_path, large_path


def measure(binaries, inputs, sizes):
    textmeasure, probe = binaries
    sizes_path, large_path = inputs
    results = {}
    peak, out, _ = peak_rss([probe, "sizes", str(sizes)])
    results["library-sizes"] = (peak, json.loads(out)["rssMiBAfter"])
    peak, _, stats = peak_rss([textmeasure, "batch", "--stats"], sizes_path)
    results["batch-sizes"] = (peak, stats.strip().splitlines()[0])
    peak, _, stats = peak_rss([textmeasure, "batch", "--stats"], large_path)
    results["batch-large"] = (peak, stats.strip().splitlines()[0])
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="a git revision to compare against (built from a git archive)")
    parser.add_argument("--sizes", type=int, default=5000)
    parser.add_argument("--large-lines", type=int, default=100)
    parser.add_argument("--large-bytes", type=int, default=1_000_000)
    args = parser.parse_args()
    os.environ.setdefault("TEXTMEASURE_FONTS", os.path.join(ROOT, "Fonts"))
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("needs /usr/bin/time (Debian: apt-get install time)")
    builds = os.path.join(ROOT, ".build-memory")

    with tempfile.TemporaryDirectory(prefix="textmeasure-memory-") as tmp:
        inputs = write_inputs(tmp, args.sizes, args.large_lines, args.large_bytes)
        runs = {}
        if args.baseline:
            baseline = os.path.join(builds, "baseline-" + args.baseline.replace("/", "-"))
            baseline_root = os.path.join(baseline, "src")
            if not os.path.isdir(baseline_root):
                os.makedirs(baseline_root)
                archive = subprocess.run(["git", "-C", ROOT, "archive", args.baseline], check=True,
                                         capture_output=True).stdout
                subprocess.run(["tar", "-x", "-C", baseline_root], input=archive, check=True)
                probe = os.path.join(baseline_root, "Benchmarks/MemoryProbe")
                shutil.rmtree(probe, ignore_errors=True)
                shutil.copytree(os.path.join(HERE, "MemoryProbe"), probe, ignore=shutil.ignore_patterns(".build"))
            print(f"building {args.baseline} ...", file=sys.stderr)
            runs[args.baseline] = measure(build(baseline_root, os.path.join(baseline, "build")), inputs, args.sizes)
        print("building the work tree ...", file=sys.stderr)
        runs["this tree"] = measure(build(ROOT, builds), inputs, args.sizes)

    print(f"\npeak RSS, MiB ({args.sizes} sizes; {args.large_lines} texts of {args.large_bytes} bytes)\n")
    names = list(runs)
    print("| workload | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for workload in ["library-sizes", "batch-sizes", "batch-large"]:
        print(f"| {workload} | " + " | ".join(f"{runs[n][workload][0]:.0f}" for n in names) + " |")
    print()
    for name in names:
        print(f"{name}: library RSS (MiB) after N sizes: {runs[name]['library-sizes'][1]}")
        print(f"{name}: batch-sizes stats: {runs[name]['batch-sizes'][1]}")
        print(f"{name}: batch-large stats: {runs[name]['batch-large'][1]}")


if __name__ == "__main__":
    main()
