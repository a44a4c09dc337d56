#!/usr/bin/env python3
"""Write the profile's inputs: the cold and multi-width workloads of Benchmarks/compare-pango.py.

The workloads come from compare-pango.py's own workloads() and write_inputs() (that script only
writes them to a temporary directory), so the items are exactly the ones it benchmarks.

    Benchmarks/profile/gen.py OUTDIR [--cold 6000] [--texts 400] [--size PX] [--corpus low-reuse]

Writes OUTDIR/cold.{jsonl,tsv} (--cold distinct texts, measured once each) and
OUTDIR/multi-width.{jsonl,tsv} (--texts texts x 8 widths). The .jsonl files feed `textmeasure batch`,
the .tsv files the Pango harness and hb-floor. --size sets every item's size (the profile used
--size 15 on the cold input to test a scale-independent piece cache); the files are then named
cold-size15.* and multi-width-size15.*. --corpus low-reuse takes compare-pango.py's workloads from
Benchmarks/Corpus/low-reuse.txt (its --corpus option). Python 3 standard library only.
"""
import argparse, importlib.util, os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--cold", type=int, default=6000, help="texts in the cold workload (default 6000)")
    parser.add_argument("--texts", type=int, default=400, help="texts in the multi-width workload, x8 widths (default 400)")
    parser.add_argument("--size", type=float, help="use this size for every item")
    parser.add_argument("--corpus", choices=["combined", "low-reuse"], default="combined",
                        help="compare-pango.py's workloads to write (default combined)")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("compare_pango", os.path.join(ROOT, "Benchmarks/compare-pango.py"))
    cp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cp)
    os.makedirs(args.outdir, exist_ok=True)
    make = cp.low_reuse_workloads if args.corpus == "low-reuse" else cp.workloads
    for name, items in make(args.cold, args.texts).items():
        if args.size is not None:
            size = int(args.size) if args.size == int(args.size) else args.size
            items = [(size, width, text) for _, width, text in items]
            name += f"-size{size}"
        tsv, jsonl = cp.write_inputs(args.outdir, name, items)
        print(f"{name}: {len(items)} items, {len(set(t for _, _, t in items))} distinct texts -> {jsonl}, {tsv}")


if __name__ == "__main__":
    main()
