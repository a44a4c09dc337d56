#!/usr/bin/env python3
"""Instruction-level profile of one object, with every address mapped to source lines.

    Benchmarks/profile/cginstr.py CALLGRIND.OUT OBJECT UNSTRIPPED_BINARY OUT.pkl [--symbolizer PATH]

CALLGRIND.OUT must come from `valgrind --tool=callgrind --dump-instr=yes`. OBJECT is the file name
of the object to keep, as valgrind saw it (the stripped copy, e.g. textmeasure-stripped). Every
address is mapped to its inlined frames (function, file:line) with llvm-symbolizer against
UNSTRIPPED_BINARY: stripping with --strip-debug keeps the addresses, and valgrind 3.19 cannot read
the DWARF 5 that Swift 6 writes, so the profile runs on the stripped copy and the lines come from
the original. Writes (self, calls, sym) for lines.py:
  self[(address, function)] = exclusive cost, calls[address][callee] = inclusive cost of calls made
  there, sym[address] = [(mangled function, 'Sources/…:line:column'), …] innermost first.
Needs llvm-symbolizer (the Swift toolchain's, next to `swift`, is used when present); otherwise
Python 3 standard library only.
"""
import argparse, collections, os, pickle, re, shutil, subprocess

from cgparse import compressed_name, default_symbolizer


def parse(path, target):
    names, objects = {}, {}
    selfc = collections.Counter()
    calls = collections.defaultdict(collections.Counter)
    ob = fn = cfn = None
    pending = False
    addr = 0
    npos = 2

    name = compressed_name

    def position(token, previous):   # absolute, "+n"/"-n" relative, or "*" (same)
        if token == '*':
            return previous
        if token[0] in '+-':
            return previous + int(token, 0)
        return int(token, 0)

    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if not line:
            continue
        if line.startswith('positions:'):
            npos = len(line.split()) - 1
            if line.split()[1] != 'instr':
                raise SystemExit(f'{path}: no instruction addresses; run callgrind with --dump-instr=yes')
        elif line.startswith('ob='):
            ob = name(objects, line[3:])
        elif line.startswith('cob='):
            name(objects, line[4:])
        elif line.startswith('fn='):
            fn = name(names, line[3:])
        elif line.startswith('cfn='):
            cfn = name(names, line[4:])
        elif line.startswith('calls='):
            pending = True
        elif line[0].isdigit() or line[0] in '+-*':
            parts = line.split()
            addr = position(parts[0], addr)
            cost = int(parts[npos]) if len(parts) > npos else 0
            if ob and os.path.basename(ob) == target:
                if pending:
                    calls[addr][cfn] += cost
                else:
                    selfc[(addr, fn)] += cost
            pending = False
    return selfc, calls


def symbolize(addresses, binary, symbolizer):
    out = subprocess.run([symbolizer, f'--obj={binary}', '--inlining', '--no-demangle'],
                         input=''.join(f'{a:#x}\n' for a in addresses), capture_output=True, text=True,
                         check=True).stdout
    blocks = out.strip('\n').split('\n\n')
    assert len(blocks) == len(addresses), (len(blocks), len(addresses))
    result = {}
    for a, block in zip(addresses, blocks):
        lines = block.split('\n')
        result[a] = [(lines[i], re.sub(r'^.*?/(Sources/)', r'\1', lines[i + 1]))
                     for i in range(0, len(lines) - 1, 2)]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('callgrind_out')
    parser.add_argument('object')
    parser.add_argument('binary')
    parser.add_argument('out')
    parser.add_argument('--symbolizer', default=default_symbolizer())
    args = parser.parse_args()
    selfc, calls = parse(args.callgrind_out, args.object)
    if not selfc:
        raise SystemExit(f'{args.callgrind_out}: no costs for an object named {args.object}')
    sym = symbolize(sorted({a for a, _ in selfc} | set(calls)), args.binary, args.symbolizer)
    with open(args.out, 'wb') as f:
        pickle.dump((selfc, calls, sym), f)
    print(f'{args.object}: {sum(selfc.values()):,} Ir self at {len(sym):,} addresses -> {args.out}')


if __name__ == '__main__':
    main()
