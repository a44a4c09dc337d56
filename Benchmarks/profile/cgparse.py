#!/usr/bin/env python3
"""Read a callgrind output file into a function-level call graph, saved as a pickle.

    Benchmarks/profile/cgparse.py CALLGRIND.OUT PROFILE.pkl

The pickle holds (self, calls, callcount, fnobj): exclusive cost per function, inclusive cost and
call count per (caller, callee) edge, and each function's object file; the cost is the first event
(Ir). Functions are keyed by their mangled names. cgreport.py reads it through load(), which also
demangles the names with `swift demangle --simplified` (Swift toolchain) when it is on PATH.
Python 3 standard library only.
"""
import collections, os, pickle, re, shutil, subprocess, sys


def compressed_name(table, text):
    """Callgrind's name compression: "(id) name" defines id, "(id)" refers to it."""
    m = re.match(r'\((\d+)\)(?: (.*))?', text)
    if not m:
        return text
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table[m.group(1)]


def default_symbolizer():
    """The Swift toolchain's llvm-symbolizer when `swift` is on PATH, else llvm-symbolizer from PATH."""
    swift = shutil.which('swift')
    toolchain = os.path.join(os.path.dirname(os.path.realpath(swift)), 'llvm-symbolizer') if swift else ''
    return toolchain if os.path.exists(toolchain) else 'llvm-symbolizer'



def parse(path):
    names, objects = {}, {}
    self_ = collections.Counter()
    calls = collections.defaultdict(collections.Counter)
    callcount = collections.defaultdict(collections.Counter)
    fnobj = {}
    fn = ob = cfn = cob = None
    pending = False
    npos = 1  # position columns before the costs ("positions: line", or "instr line" with --dump-instr)

    name = compressed_name

    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if not line:
            continue
        if line.startswith('positions:'):
            npos = len(line.split()) - 1
        elif line.startswith('fn='):
            fn = name(names, line[3:])
            fnobj.setdefault(fn, ob)
        elif line.startswith('ob='):
            ob = name(objects, line[3:])
        elif line.startswith('cob='):
            cob = name(objects, line[4:])
        elif line.startswith('cfn='):
            cfn = name(names, line[4:])
            fnobj.setdefault(cfn, cob if cob else ob)
        elif line.startswith('calls='):
            pending = True
            count = int(line[6:].split()[0])
        elif line[0].isdigit() or line[0] in '+-*':
            parts = line.split()
            cost = int(parts[npos]) if len(parts) > npos else 0
            if pending:
                calls[fn][cfn] += cost
                callcount[fn][cfn] += count
                pending = False
                cob = None
            else:
                self_[fn] += cost
    return self_, calls, callcount, fnobj


def demangle(names):
    """Mangled -> demangled (simplified) names; identity if `swift demangle` is not available."""
    names = sorted(names)
    swift = shutil.which('swift')
    if not swift or not names:
        return {n: n for n in names}
    out = subprocess.run([swift, 'demangle', '--simplified'], input='\n'.join(names),
                         capture_output=True, text=True, check=True).stdout.split('\n')
    return dict(zip(names, out))


class Profile:
    """A parsed profile: s (self), c (calls), cc (call counts), o (objects), dm (demangled names)."""

    def __init__(self, path):
        self.path = path
        self.s, self.c, self.cc, self.o = pickle.load(open(path, 'rb'))
        allf = set(self.s) | set(self.c) | {g for f in self.c for g in self.c[f]}
        self.dm = demangle(allf)
        self.total = sum(self.s.values())
        self.by_name = collections.defaultdict(list)   # demangled name -> mangled names
        for f in allf:
            self.by_name[self.dm[f]].append(f)

    def incl(self, f):
        return self.s.get(f, 0) + sum(self.c[f].values())


def load(path):
    return Profile(path)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    data = parse(sys.argv[1])
    with open(sys.argv[2], 'wb') as f:
        pickle.dump(data, f)
    print(f'{sys.argv[1]}: {sum(data[0].values()):,} Ir in {len(data[0]):,} functions -> {sys.argv[2]}')
