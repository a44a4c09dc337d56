#!/usr/bin/env python3
"""Writes N JSON Lines of distinct texts (corpus lines with a running number) at varied widths.

Usage: store-input.py N > input.jsonl   (the input of Benchmarks/store-warm-cold.sh)
"""
import json
import os
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "Tests", "Corpus", "multilingual.txt"), encoding="utf-8") as corpus:
    lines = [line.rstrip("\n") for line in corpus if line.strip()]
widths = [240, 320, 375, 414, 600]
out = sys.stdout
for i in range(count):
    text = f"#{i} {lines[i % len(lines)]}"
    out.write(json.dumps({"text": text, "width": widths[(i // len(lines)) % len(widths)], "id": i},
                         ensure_ascii=False) + "\n")
