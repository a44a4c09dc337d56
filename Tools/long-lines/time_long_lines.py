#!/usr/bin/env python3
"""Times `textmeasure batch` on pathological one-line texts of about 1 MB each.

Usage: Tools/long-lines/time_long_lines.py [PATH_TO_TEXTMEASURE] [--bytes N] [--size PX] [--width PX] [--only NAME]

Build first with `swift build -c release`; the default binary is .build/release/textmeasure. Each text is
measured in a process of its own (so a trap or a hang shows against its name), once; the wall and CPU
(user + system) times of the whole process are printed with the answer (on a shared machine, CPU time
is the steadier figure). A text that takes over --timeout seconds is stopped.
"""
import json
import os
import random
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def texts(size):
    """The inputs, each about `size` bytes of UTF-8."""
    def fill(unit, prefix=""):
        count = max(1, (size - len(prefix.encode())) // len(unit.encode()))
        return prefix + unit * count
    members = ["\U0001F469", "\U0001F468", "\U0001F467", "\U0001F466"]
    rng = random.Random(1)
    varied = "\u200d".join(rng.choice(members) for _ in range(size // 7))
    thai = "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์เช่นเดียวกับภาษาจีน"
    return {
        "U+0301 alone": fill("\u0301"),
        "a + combining marks": fill("\u0301\u0308\u0323", "a"),
        "ZWJ alone": fill("\u200d"),
        "emoji + ZWJ chains": fill("\U0001F469\u200d"),
        "emoji + ZWJ, random members": varied,
        "👩 without joiners": fill("\U0001F469"),
        "emoji ZWJ families": fill("\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"),
        "Thai without spaces": fill(thai),
        "one Latin word": fill("officialwaffle"),
        "Arabic without spaces": fill("الاستراتيجيات"),
        "Devanagari virama chain": fill("\u0915\u094d"),
        "Hangul jamo": fill("\u1100\u1161\u11a8"),
    }


def main():
    args = sys.argv[1:]
    binary = os.path.join(ROOT, ".build/release/textmeasure")
    size, px, width, only, timeout = 1 << 20, 17.0, 320.0, None, 120.0
    while args:
        arg = args.pop(0)
        if arg == "--bytes": size = int(args.pop(0))
        elif arg == "--size": px = float(args.pop(0))
        elif arg == "--width": width = float(args.pop(0))
        elif arg == "--only": only = args.pop(0)
        elif arg == "--timeout": timeout = float(args.pop(0))
        else: binary = arg
    for name, text in texts(size).items():
        if only and only not in name:
            continue
        line = json.dumps({"text": text, "width": width, "size": px}) + "\n"
        start = time.monotonic()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            run = subprocess.run([binary, "batch"], input=line.encode(), capture_output=True, timeout=timeout)
            elapsed = time.monotonic() - start
            answer = run.stdout.decode().strip() or f"exit {run.returncode}: {run.stderr.decode().strip()[:200]}"
        except subprocess.TimeoutExpired:
            elapsed, answer = time.monotonic() - start, "timed out"
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        print(f"{name:28} {len(text.encode()):>9} B  wall {elapsed:6.3f} s  cpu {cpu:6.3f} s  {answer[:80]}", flush=True)


if __name__ == "__main__":
    main()
