#!/usr/bin/env python3
"""Source-line reports on an instruction-level profile made by cginstr.py.

    lines.py in PROFILE.lines.pkl PATTERN [-n 30] [--inner]
        Inclusive cost (own instructions plus calls made there) per source line, over the machine
        code of every function whose outermost inlined frame's demangled name contains PATTERN,
        e.g. 'ShapeCache.shape(' or 'appendClusters'. Lines are those of the outermost frame in
        Sources/ (the line of the function itself that the code belongs to); --inner uses the
        innermost one (the inlined callee's line).
    lines.py self-of PROFILE.lines.pkl NAME [-n 30]
        Exclusive cost of the callgrind function whose demangled name is exactly NAME, per innermost
        source line.
    lines.py calls PROFILE.lines.pkl REGEX [-n 30]
        Inclusive cost of calls to functions whose mangled name matches REGEX (e.g. 'hb_font_get',
        'swift_beginAccess'), per calling source line, callee and outer function.
    lines.py self PROFILE.lines.pkl [FILE] [-n 30]
        Exclusive cost per (source line, inner function, outer function), optionally only lines of
        files whose path contains FILE.

Line numbers are those of the source the binary was built from. Needs `swift demangle` on PATH for
readable names; otherwise Python 3 standard library only.
"""
import argparse, collections, os, pickle, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cgparse import demangle  # noqa: E402


def source_frames(frames):
    return [x for x in frames if 'Sources/' in x[1] and not x[1].endswith(':0:0')]


def line_of(frame):
    return frame[1].rsplit(':', 1)[0]   # drop the column


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    sp = sub.add_parser('in')
    sp.add_argument('profile')
    sp.add_argument('pattern')
    sp.add_argument('--inner', action='store_true')
    sp = sub.add_parser('self-of')
    sp.add_argument('profile')
    sp.add_argument('name')
    sp = sub.add_parser('calls')
    sp.add_argument('profile')
    sp.add_argument('regex')
    sp = sub.add_parser('self')
    sp.add_argument('profile')
    sp.add_argument('file', nargs='?', default='')
    for p in sub.choices.values():
        p.add_argument('-n', type=int, default=30)
    args = parser.parse_args()
    selfc, calls, sym = pickle.load(open(args.profile, 'rb'))
    agg = collections.Counter()

    if args.command == 'in':
        dm = demangle({fr[-1][0] for fr in sym.values()})

        def key(frames):
            srcs = source_frames(frames)
            return line_of(srcs[0] if args.inner else srcs[-1]) if srcs else '(no line)'
        for (a, _), v in selfc.items():
            if args.pattern in dm[sym[a][-1][0]]:
                agg[key(sym[a])] += v
        for a, d in calls.items():
            if args.pattern in dm[sym[a][-1][0]]:
                agg[key(sym[a])] += sum(d.values())
        print(f'total inclusive {sum(agg.values()):,}')
        for k, v in agg.most_common(args.n):
            print(f'{v:>14,}  {k}')

    elif args.command == 'self-of':
        dm = demangle({f for _, f in selfc} | {fr[0][0] for fr in sym.values()})
        for (a, f), v in selfc.items():
            if dm.get(f, f) != args.name:
                continue
            srcs = source_frames(sym[a])
            agg[line_of(srcs[0]) if srcs else '(line 0) ' + dm[sym[a][0][0]][:60]] += v
        print(f'self {sum(agg.values()):,}')
        for k, v in agg.most_common(args.n):
            print(f'{v:>14,}  {k}')

    elif args.command == 'calls':
        by_callee = collections.Counter()
        for a, d in calls.items():
            srcs = source_frames(sym[a])
            where = line_of(srcs[0]) if srcs else line_of(sym[a][0])
            for callee, v in d.items():
                if re.search(args.regex, callee):
                    agg[(where, callee, sym[a][-1][0])] += v
                    by_callee[callee] += v
        dm = demangle({k[1] for k in agg} | {k[2] for k in agg})
        print('by callee:', ', '.join(f'{dm[c][:50]} {v:,}' for c, v in by_callee.most_common(8)))
        for (where, callee, outer), v in agg.most_common(args.n):
            print(f'{v:>14,}  {where:52} {dm[callee][:40]:40} | {dm[outer][:55]}')

    else:  # self
        for (a, _), v in selfc.items():
            fr = sym[a]
            srcs = source_frames(fr)
            inner = srcs[0] if srcs else fr[0]
            if args.file in inner[1]:
                agg[(line_of(inner), inner[0], fr[-1][0])] += v
        dm = demangle({k[1] for k in agg} | {k[2] for k in agg})
        for (where, inner, outer), v in agg.most_common(args.n):
            print(f'{v:>14,}  {where:55} {dm[inner][:60]} | {dm[outer][:50]}')


if __name__ == '__main__':
    main()
