#!/usr/bin/env python3
"""Wall-clock and CPU time of textmeasure, the Pango harness and hb-floor on the profile's inputs.

    Benchmarks/profile/bench.py DIR [--rounds 11] [--ours LABEL=BINARY ...] [--one-cpu]

DIR holds the inputs written by gen.py (cold.*, multi-width.*) and the pango-lines and hb-floor
binaries (`run --bench` builds them there, as compare-pango.py does). --ours adds a textmeasure binary
to compare (default: static=DIR/textmeasure, the static build); give it more than once, e.g.
--ours dynamic=.build/release/textmeasure. Commands run interleaved, round after round, like
compare-pango.py; for each, the median and minimum wall time and the median CPU time (user + system
of the whole process, from wait4) are printed, then the ratios against the first --ours binary.
--one-cpu also runs each textmeasure under `taskset -c 0`. A final row times `batch` on empty input
(start-up). On a shared machine treat the absolute times as indicative. Python 3 standard library only.
"""
import argparse, os, statistics, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FONTS = ["NotoSans-Regular.ttf", "NotoSansArabic-Regular.ttf", "NotoSansHebrew-Regular.ttf",
         "NotoSansThai-Regular.ttf", "NotoSansDevanagari-Regular.ttf", "DroidSansFallbackFull.ttf",
         "NanumGothic.ttf", "NotoSansMath-Regular.ttf", "NotoSansSymbols2-Regular.ttf", "NotoColorEmoji.ttf"]


def run(command, stdin_path, env):
    with open(stdin_path, 'rb') as stdin:
        start = time.perf_counter()
        p = subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f'{" ".join(command)} failed (status {status})')
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('dir')
    parser.add_argument('--rounds', type=int, default=11)
    parser.add_argument('--ours', action='append', default=[], metavar='LABEL=BINARY')
    parser.add_argument('--one-cpu', action='store_true')
    parser.add_argument('--fonts', default=os.path.join(ROOT, 'Fonts'), help='font folder (default: Fonts/)')
    args = parser.parse_args()
    d = args.dir
    fonts = [os.path.join(args.fonts, f) for f in FONTS]
    env = dict(os.environ, TEXTMEASURE_FONTS=args.fonts)
    ours = [tuple(x.split('=', 1)) for x in args.ours] or [('static', os.path.join(d, 'textmeasure'))]
    first = f'ours-{ours[0][0]}'
    for workload in ['cold', 'multi-width', 'empty']:
        jsonl = os.devnull if workload == 'empty' else os.path.join(d, workload + '.jsonl')
        tsv = os.path.join(d, workload + '.tsv')
        commands = {}
        if workload != 'empty':
            commands['pango'] = ([os.path.join(d, 'pango-lines'), '--quiet', *fonts], tsv)
        for label, binary in ours:
            commands[f'ours-{label}'] = ([binary, 'batch'], jsonl)
            if args.one_cpu:
                commands[f'ours-{label}-1cpu'] = (['taskset', '-c', '0', binary, 'batch'], jsonl)
        if workload != 'empty':
            commands['hb_floor'] = ([os.path.join(d, 'hb-floor'), fonts[0]], tsv)
        times = {k: [] for k in commands}
        for _ in range(args.rounds):
            for key, (command, path) in commands.items():
                times[key].append(run(command, path, env))
        print(f'{workload}:')
        med = {}
        for key, samples in times.items():
            med[key] = statistics.median(w for w, _ in samples)
            print(f'  {key:22} wall median {1000 * med[key]:8.1f} ms (min {1000 * min(w for w, _ in samples):7.1f})'
                  f'   CPU median {1000 * statistics.median(c for _, c in samples):8.1f} ms')
        if workload != 'empty':
            print(f'  Pango / {first} {med["pango"] / med[first]:.1f}x   {first} / hb_floor '
                  f'{med[first] / med["hb_floor"]:.2f}x')


if __name__ == '__main__':
    main()
