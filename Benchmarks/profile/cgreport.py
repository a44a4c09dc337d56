#!/usr/bin/env python3
"""Reports on function-level profiles made by cgparse.py (one PROFILE.pkl per callgrind run).

    cgreport.py table PROFILE.pkl [PROFILE.pkl ...]   instruction share per component (markdown,
                                                      one column pair per profile)
    cgreport.py runtime PROFILE.pkl [...]             Swift runtime and libc work across components
    cgreport.py objects PROFILE.pkl [...]             exclusive cost per shared object
    cgreport.py top PROFILE.pkl [-n 25] [--incl]      top functions, exclusive (or inclusive)
    cgreport.py callers PROFILE.pkl NAME [NAME ...]   callers and callees of functions; NAME is the
                                                      exact demangled name, or ~SUBSTRING
    cgreport.py incl PROFILE.pkl NAME [NAME ...]      inclusive cost of exact names; ~SUBSTRING sums
                                                      the self cost of every matching function
    cgreport.py edges PROFILE.pkl SRC DST [-n 20]     calls from object SRC into object DST (substrings
                                                      of the objects' file names, e.g. textmeasure harfbuzz)

The component table was written for the `batch` command of revision 91869e9 and names functions of
that code (BatchCommand.run() or BatchRun.run(), BatchProcessor.process, ShapeCache.shape, ...);
when functions are renamed, rows silently drop to zero and their cost lands in "Start-up and exit"
or "Batch glue": check the sum line and the names below after refactorings. Needs `swift demangle`
(Swift toolchain) on PATH for readable names; otherwise Python 3 standard library only.
"""
import argparse, collections, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cgparse import load  # noqa: E402

SC = 'ShapeCache.shape(_:of:flags:font:fontID:scratch:output:)'
SH = 'specialized static Shaper.shape(_:of:font:scratch:output:)'
PW = 'specialized static Preparer.Builder.pieceWidths(window:boundary:of:run:font:_:)'
PLAN = 'PrepareScratch.shapePlan(font:)'
SCRATCH_DEFER = 'specialized $defer #1 <A>() in static PrepareScratch.withScratch<A>(_:)'
BATCH_ENTRIES = ['BatchRun.run()', 'BatchCommand.run()']   # after / before 33409c2
# The per-block closure that processes lines and writes their outcomes (renamed with the block output).
CLOSURES = ['closure #1 in closure #1 in BatchProcessor.outputBlocks(_:)', 'closure #1 in BatchProcessor.process(_:)']
PROCESS_LINE = 'BatchProcessor.process(_:after:reused:)'


def components(p):
    """(label, instructions) rows; disjoint inclusive subtrees of the call graph."""
    def I(name):
        return sum(p.incl(f) for f in p.by_name.get(name, []))

    def to_hb(caller):
        return sum(v for f in p.by_name.get(caller, []) for g, v in p.c[f].items()
                   if 'libharfbuzz' in (p.o.get(g) or ''))

    def child(caller, callee):
        return sum(v for f in p.by_name.get(caller, []) for g, v in p.c[f].items() if p.dm[g] == callee)

    def first(*names):
        """The first of names (newest first) the profile has: functions renamed over the revisions."""
        return next((n for n in names if n in p.by_name), names[0])

    entry = max(BATCH_ENTRIES, key=I)
    closure = max(CLOSURES, key=I)
    prepare = first('TextMeasurer.prepare(_:style:)', 'Preparer.prepare(_:style:fonts:)')
    prepared = first('PreparedTextCache.prepared(_:spans:style:)', 'PreparedTextCache.prepared(_:style:)')
    clusters = first('Itemizer.clusters(of:flags:levels:styles:into:)', 'Itemizer.clusters(of:flags:into:)')
    # Thai, Lao, Khmer and Myanmar dictionaries (libthai's trie, ICU's), loaded once per process by the
    # batch before it measures (`BatchRun.run()`).
    dictionaries = I('cub_prepare_dictionaries')
    hb = (to_hb(SC) + I(SH) + to_hb(PW) + child(SC, PLAN) + child(PW, PLAN) + to_hb(SCRATCH_DEFER))
    cache = I(SC) - to_hb(SC) - child(SC, SH) - child(SC, PLAN)
    icu = I('cub_analyze_with')
    item = (child('Preparer.Builder.add(paragraph:_:)', clusters)
            + child('Preparer.Builder.add(paragraph:_:)', 'specialized Itemizer.runs(of:byteCount:into:)'))
    lig = I(PW) - to_hb(PW) - child(PW, PLAN)
    prep = I(prepare) - child('Preparer.Builder.add(paragraph:_:)', SC) - icu - item - I(PW)
    textcache = I(prepared) - I(prepare)
    layout = I('PreparedText.layout(width:withLines:)')
    measure = I('PreparedTextCache.measure(_:style:width:withLines:)')
    if measure:   # before `4b763b2`'s batch reuse: every line went through `PreparedTextCache.measure`
        layout += measure - I(prepared) - I('PreparedText.layout(width:withLines:)')
    else:         # since: `process(_:after:reused:)` asks for the prepared text and lays it out itself
        measure = I(prepared) + layout
    json = sum(child(closure, x) for x in [
        'JSONScanner.value(depth:)', 'JSONScanner.string()',
        'specialized _ContiguousArrayBuffer._consumeAndCreateNew(bufferIsUnique:minimumCapacity:growForAppend:)',
        'outlined consume of JSONValue', 'BatchProcessor.parse(item:)', 'outlined destroy of BatchProcessor.Parsed'])
    json += sum(child(PROCESS_LINE, x) for x in [
        'specialized static JSONScanner.item(_:textLike:)', 'specialized static JSONScanner.parse(_:textLike:)',
        'BatchProcessor.parse(item:)', 'TextKey.init(_:)',
        'JSONScanner.itemObject()',
        'outlined destroy of JSONScanner.Item', 'outlined destroy of BatchProcessor.Parsed'])
    out = (child(closure, 'BatchProcessor.Outcome.write(to:)') + child(closure, 'String.append(_:)')
           + child('BatchProcessor.process(_:)', 'BidirectionalCollection<>.joined(separator:)')
           + child(entry, 'OutputWriter.write(_:)') + child(entry, 'ChunkWriter.write(_:)')
           + child(closure, 'outlined destroy of BatchProcessor.Outcome'))
    run = I(entry)
    inp_glue = run - out - json - measure - dictionaries
    startup = p.total - run
    return entry, [
        ('HarfBuzz shaping (`hb_shape_plan_execute` and below, `hb_buffer_add_utf8`, nominal advances for '
         'break adjustments, shape-plan look-up)', hb),
        ('ICU break iteration (`cub_analyze_with`: UTF-16 conversion, grapheme and line iterators)', icu),
        ('Itemization and font fallback (`Itemizer.clusters` and `runs`)', item),
        ('Preparer assembly (`appendClusters`, `distributeAdvances`, `appendSegments`, bidi levels, '
         'dictionary words, array growth)', prep),
        ('Line-break dictionaries loaded (`cub_prepare_dictionaries`: libthai\'s trie, ICU\'s), once', dictionaries),
        ('Shaped-word cache (`ShapeCache.shape` without its HarfBuzz)', cache),
        ('Prepared-text cache (`PreparedTextCache` look-up, store, eviction; font-size cache)', textcache),
        ('JSON parsing (`JSONScanner`, `parse(item:)`, `TextKey` hashing)', json),
        ('Output (`Outcome.write`, number formatting, joining)', out),
        ('Layout (`PreparedText.layout`: line breaking, heights)', layout),
        ('Ligature-break reshaping (`pieceWidths`, without its HarfBuzz)', lig),
        ('Input reading, batch glue', inp_glue),
        (f'Start-up and exit (everything outside `{entry}`)', startup),
    ]


RUNTIME = [
    ('retain/release, bridge objects (including frees on the last release)',
     r'^swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease|retain_n|release_n|unknownObjectRe)'),
    ('array growth, CoW, `removeAll(keepingCapacity:)`',
     r'(_consumeAndCreateNew|_createNewBuffer|replaceSubrange|_reserveCapacityAssumingUniqueBuffer|'
     r'_makeUniqueAndReserveCapacity|_copyCollectionToContiguousArray|_allocateBufferUninitialized|_copyToNewBuffer)'),
    ('String validation and appends (`_fromUTF8Repairing`, `_StringGuts.append`)',
     r'(String\._fromUTF8Repairing|_StringGuts\.(append|grow)|String\.append)'),
    ('allocation (`swift_allocObject`, malloc/free called directly)',
     r'^(swift_allocObject|swift_slowAlloc|swift_slowDealloc|malloc|free|realloc|calloc|swift_deallocObject|cfree)$'),
    ('exclusivity checks (`swift_beginAccess`/`endAccess`)', r'^swift_(begin|end)Access$'),
    ('`Hasher` (SipHash)', r'Hasher'),
    ('pthread mutex lock/unlock', r'^pthread_mutex_(un)?lock'),
    ('`isUniquelyReferenced`', r'isUniquelyReferenced'),
    ('`swift_once`', r'^swift_once$'),
    ('conformance scans, casts and metadata',
     r'^(swift_dynamicCast|swift_conformsToProtocol\w*|swift_getTypeByMangledName\w*|'
     r'__swift_instantiateConcreteTypeFromMangledName|swift_getGenericMetadata|swift_getWitnessTable|swift_checkMetadataState)$'),
    ('memcpy/memset/memmove', r'^__mem(cpy|set|move)'),
]


def runtime(p):
    """(label, inclusive from outside the group, self) rows."""
    rows = []
    for label, pattern in RUNTIME:
        group = {f for f in set(p.s) | set(p.c) if re.search(pattern, p.dm[f])}
        incl = sum(v for h in p.c if h not in group for g, v in p.c[h].items() if g in group)
        rows.append((label, incl, sum(p.s.get(f, 0) for f in group)))
    return rows


def name(p, path):
    return os.path.basename(path).removesuffix('.pkl')


def cmd_table(args):
    ps = [load(x) for x in args.profiles]
    results = [components(p) for p in ps]
    print('| component | ' + ' | '.join(f'{name(p, p.path)}: {p.total / 1e6:,.0f} M | share' for p in ps) + ' |')
    print('|---|' + '---|---|' * len(ps))
    for i, (label, _) in enumerate(results[0][1]):
        cells = ' | '.join(f'{r[1][i][1] / 1e6:,.1f} M | {100 * r[1][i][1] / p.total:.1f} %' for p, r in zip(ps, results))
        print(f'| {label} | {cells} |')
    for p, (entry, rows) in zip(ps, results):
        acc = sum(v for _, v in rows)
        print(f'\n{name(p, p.path)}: batch entry `{entry}`; components sum to {acc:,} of {p.total:,} '
              f'({100 * acc / p.total:.2f} %)')


def cmd_runtime(args):
    ps = [load(x) for x in args.profiles]
    results = [runtime(p) for p in ps]
    print('| inclusive (self) | ' + ' | '.join(name(p, p.path) for p in ps) + ' |')
    print('|---|' + '---|' * len(ps))
    for i, (label, _) in enumerate(RUNTIME):
        cells = ' | '.join(f'{r[i][1] / 1e6:.1f} M ({100 * r[i][1] / p.total:.1f} %; self {r[i][2] / 1e6:.1f} M)'
                           for p, r in zip(ps, results))
        print(f'| {label} | {cells} |')


def cmd_objects(args):
    for path in args.profiles:
        p = load(path)
        by = collections.Counter()
        for f, v in p.s.items():
            by[os.path.basename(p.o.get(f) or '?')] += v
        print(f'{name(p, path)}: {p.total:,}')
        for k, v in by.most_common(args.n):
            print(f'  {v:>14,} {100 * v / p.total:5.1f} %  {k}')


def cmd_top(args):
    p = load(args.profile)
    if args.incl:
        items = sorted(((f, p.incl(f)) for f in set(p.s) | set(p.c)), key=lambda x: -x[1])[:args.n]
    else:
        items = p.s.most_common(args.n)
    for f, v in items:
        print(f'{v:>14,} {100 * v / p.total:5.1f} %  {p.dm[f][:150]}  [{os.path.basename(p.o.get(f) or "?")}]')


def matching(p, pattern):
    return [f for f in set(p.s) | set(p.c)
            if pattern == p.dm[f] or (pattern.startswith('~') and pattern[1:] in p.dm[f])]


def cmd_callers(args):
    p = load(args.profile)
    for pattern in args.names:
        for f in matching(p, pattern):
            print(f'== {p.dm[f][:140]}  incl {p.incl(f):,} ({100 * p.incl(f) / p.total:.1f} %) self {p.s.get(f, 0):,}')
            callers = sorted(((g, p.c[g][f], p.cc[g][f]) for g in p.c if f in p.c[g]), key=lambda x: -x[1])
            for g, v, k in callers[:args.n]:
                print(f'   <- {v:>13,} x{k:<8} {p.dm[g][:110]}')
            for g, v in p.c[f].most_common(args.n):
                print(f'   -> {v:>13,} x{p.cc[f][g]:<8} {p.dm[g][:110]}')


def cmd_incl(args):
    p = load(args.profile)
    for n in args.names:
        if n.startswith('~'):
            names = [x for x in p.by_name if n[1:] in x]
            v = sum(p.s.get(f, 0) for x in names for f in p.by_name[x])
            print(f'{v:>14,} {100 * v / p.total:5.2f} %  self, summed over {len(names)} functions matching {n[1:]}')
        else:
            v = sum(p.incl(f) for f in p.by_name.get(n, []))
            s = sum(p.s.get(f, 0) for f in p.by_name.get(n, []))
            print(f'{v:>14,} {100 * v / p.total:5.2f} %  inclusive  {n}   (self {s:,})')


def cmd_edges(args):
    p = load(args.profile)
    agg = collections.Counter()
    for f in p.c:
        if args.src not in os.path.basename(p.o.get(f) or ''):
            continue
        for g, v in p.c[f].items():
            if args.dst in os.path.basename(p.o.get(g) or ''):
                agg[(p.dm[f][:70], p.dm[g][:45])] += v
    t = sum(agg.values())
    print(f'total {t:,} ({100 * t / p.total:.1f} %)')
    for (f, g), v in agg.most_common(args.n):
        print(f'{v:>14,} {100 * v / p.total:5.2f} %  {f:70} -> {g}')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    for cmd, fn in [('table', cmd_table), ('runtime', cmd_runtime), ('objects', cmd_objects)]:
        sp = sub.add_parser(cmd)
        sp.add_argument('profiles', nargs='+')
        sp.add_argument('-n', type=int, default=12)
        sp.set_defaults(fn=fn)
    sp = sub.add_parser('top')
    sp.add_argument('profile')
    sp.add_argument('-n', type=int, default=25)
    sp.add_argument('--incl', action='store_true')
    sp.set_defaults(fn=cmd_top)
    for cmd, fn in [('callers', cmd_callers), ('incl', cmd_incl)]:
        sp = sub.add_parser(cmd)
        sp.add_argument('profile')
        sp.add_argument('names', nargs='+')
        sp.add_argument('-n', type=int, default=10)
        sp.set_defaults(fn=fn)
    sp = sub.add_parser('edges')
    sp.add_argument('profile')
    sp.add_argument('src')
    sp.add_argument('dst')
    sp.add_argument('-n', type=int, default=20)
    sp.set_defaults(fn=cmd_edges)
    args = parser.parse_args()
    args.fn(args)


if __name__ == '__main__':
    main()
