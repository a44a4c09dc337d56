#!/usr/bin/env python3
"""Why `textmeasure batch`'s threads leave their CPU, counted per run.

    sleeps.py [--runs N] [--cores 0,1] INPUT BINARY...

Runs each BINARY (a `textmeasure` with symbols; `batch`, input on stdin, output discarded) under
`perf record -e sched:sched_switch --call-graph dwarf`, and sorts every switch away from one of its
threads by the stack it left with: waiting for a lock (which one), in malloc, for the kernel's mapping
lock, for a file page, on a semaphore (a thread with nothing to do, by design), or preempted. Prints
the median count of each per binary. A sleep that a busy CPU's thread did not choose costs the sleeper
the time until it is woken: about 25 us on the 2-vCPU machine of docs/performance-profile.md.

Needs `perf` with the sched tracepoints (root or perf_event_paranoid <= 1) and TEXTMEASURE_FONTS or
the bundled fonts next to the binary. Python standard library only.
"""
import argparse
import collections
import os
import re
import statistics
import subprocess
import tempfile

# (label, test on the stack text); the first that matches names the switch.
KINDS = [
    ("preempted (still runnable)", None),
    ("cache shard lock (LockedShards)", lambda s: "LockedShards" in s),
    ("font size cache lock", lambda s: "ScaledFontCache" in s and "mutex_lock" in s),
    # perf prints Swift's mangled names: PreparedTextCache is `TextMeasure08PreparedA5CacheC`.
    ("prepared-text cache lock", lambda s: "08PreparedA5CacheC" in s and "mutex_lock" in s),
    ("malloc arena lock", lambda s: "lll_lock_wait_private" in s and ("_int_free" in s or "_int_malloc" in s
                                                                      or "tcache" in s)),
    ("kernel mapping lock (mprotect, mmap, page fault)", lambda s: "rwsem" in s or "__vma_start_write" in s),
    ("file page read", lambda s: "folio_wait" in s),
    ("semaphore (idle by design)", lambda s: "sem_wait" in s or "semaphore" in s),
    ("thread start or exit", lambda s: "start_thread" in s),
]


def classify(event):
    head = event[0]
    state = re.search(r"prev_state=(\S+)", head).group(1)
    if state.startswith("R"):
        return KINDS[0][0]
    stack = "\n".join(event[1:])
    for label, test in KINDS[1:]:
        if test(stack):
            return label
    return "other"


def record(binary, input_path, cores, env):
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "perf.data")
        command = ["perf", "record", "-q", "-e", "sched:sched_switch", "--call-graph", "dwarf,16384", "-o", data]
        if cores:
            command = ["taskset", "-c", cores] + command
        with open(input_path, "rb") as stdin:
            subprocess.run(command + [binary, "batch"], stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env, check=True)
        text = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True).stdout
    name = os.path.basename(binary)[:15]
    counts = collections.Counter()
    for block in text.split("\n\n"):
        lines = block.strip().split("\n")
        if lines and f"prev_comm={name}" in lines[0]:
            counts[classify(lines)] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cores", default="", help="taskset CPU list (default: all)")
    parser.add_argument("input")
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    env = dict(os.environ)
    runs = {b: [] for b in args.binaries}
    for _ in range(args.runs):
        for binary in args.binaries:
            runs[binary].append(record(binary, args.input, args.cores, env))
    labels = [label for label, _ in KINDS] + ["other"]
    print("switches away from a CPU per run, medians of", args.runs)
    print("| kind | " + " | ".join(os.path.basename(b) for b in args.binaries) + " |")
    print("|---|" + "---|" * len(args.binaries))
    for label in labels:
        medians = [statistics.median(c[label] for c in runs[b]) for b in args.binaries]
        if any(medians):
            print(f"| {label} | " + " | ".join(f"{m:g}" for m in medians) + " |")


if __name__ == "__main__":
    main()
