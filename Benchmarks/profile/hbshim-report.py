#!/usr/bin/env python3
"""Summarize hbshim.so's output: HarfBuzz shaping time per call site and per script.

    Benchmarks/profile/hbshim-report.py HBSHIM_OUT [--binary UNSTRIPPED_BINARY] [--symbolizer PATH]

Prints, per call site of hb_shape_plan_execute, the calls, characters and share of the time spent
in it, then per (site, script) the calls, characters, share and nanoseconds per character. With
--binary, sites are shown as source lines (llvm-symbolizer on the binary that was run, or on its
unstripped original, which has the same addresses). Python 3 standard library only, plus
llvm-symbolizer for --binary.
"""
import argparse, collections, os, re, shutil, subprocess

from cgparse import default_symbolizer


def sites_to_lines(sites, binary, symbolizer):
    # A return address points after the call: look up the byte before it.
    out = subprocess.run([symbolizer, f'--obj={binary}', '--inlining', '--no-demangle'],
                         input=''.join(f'{s - 1:#x}\n' for s in sites), capture_output=True, text=True,
                         check=True).stdout.strip('\n').split('\n\n')
    result = {}
    for site, block in zip(sites, out):
        files = block.split('\n')[1::2]
        src = [f for f in files if 'Sources/' in f and not f.endswith(':0:0')]
        short = [re.sub(r'^.*?/(Sources/)', r'\1', f).rsplit(':', 1)[0] for f in (src or files or ['?'])]
        # The outermost frame in Sources/ tells the call sites apart (the HarfBuzz call is inlined).
        result[site] = short[-1] if len(short) == 1 else f'{short[-1]} (via {os.path.basename(short[0])})'
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('path')
    parser.add_argument('--binary')
    parser.add_argument('--symbolizer', default=default_symbolizer())
    args = parser.parse_args()
    rows = []
    for line in open(args.path):
        site, script, calls, chars, glyphs, ns = line.split()
        rows.append((int(site, 16), script, int(calls), int(chars), int(glyphs), int(ns)))
    sites = sorted({r[0] for r in rows})
    name = sites_to_lines(sites, args.binary, args.symbolizer) if args.binary else {s: f'{s:#x}' for s in sites}
    total = sum(r[5] for r in rows)
    print(f'hb_shape_plan_execute: {sum(r[2] for r in rows):,} calls, {sum(r[3] for r in rows):,} characters, '
          f'{total / 1e6:.1f} ms')
    by_site = collections.defaultdict(lambda: [0, 0, 0])
    for site, _, calls, chars, _, ns in rows:
        for i, v in enumerate((calls, chars, ns)):
            by_site[name[site]][i] += v
    print('\n| call site | calls | characters | time | share |\n|---|---|---|---|---|')
    for where, (calls, chars, ns) in sorted(by_site.items(), key=lambda x: -x[1][2]):
        print(f'| {where} | {calls:,} | {chars:,} | {ns / 1e6:.1f} ms | {100 * ns / total:.1f} % |')
    print('\n| call site | script | calls | characters | time | share | ns per character |\n|---|---|---|---|---|---|---|')
    for site, script, calls, chars, _, ns in sorted(rows, key=lambda r: -r[5]):
        print(f'| {name[site]} | {script} | {calls:,} | {chars:,} | {ns / 1e6:.1f} ms | {100 * ns / total:.1f} % '
              f'| {ns / max(chars, 1):.0f} |')


if __name__ == '__main__':
    main()
