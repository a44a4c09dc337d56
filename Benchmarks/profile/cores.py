#!/usr/bin/env python3
"""Two cores against one, with the host's own ceiling measured in the same rounds.

    Benchmarks/profile/cores.py BINARY INPUT [--rounds 21] [--fonts DIR]

Each round runs, in random order:
  - `BINARY batch < INPUT` pinned to CPU 0 (`taskset -c 0`): one core;
  - the same unpinned: the batch on both cores;
  - two copies at once, one pinned to each CPU: the pair. They share no memory, lock or thread, so
    what they lose against one copy alone is the host's: two busy vCPUs of a shared machine each
    run slower than one (this host: 0 to 35 % by period, reported as no steal time).

Prints medians: wall and CPU (user + system, from `wait4`) of each, the batch's speed-up (one core's
wall ÷ two cores' wall), the pair's throughput (2 × one copy's wall ÷ the pair's wall: what two
independent jobs get from the two CPUs in that period) and the first as a share of the second, also
per round. The share says how much of what the host gives two busy vCPUs the batch takes; it can
pass 1, as the batch's threads share one set of caches (shaped pieces, fonts) where the two copies
each fill their own. Needs Linux with two CPUs and `taskset`; Python 3 standard
library only.
"""
import argparse
import os
import random
import statistics
import subprocess
import time


def run(binary, input_path, env, cpus):
    """Starts one `binary batch` per entry of `cpus` (a CPU number, or None for unpinned) at once;
    returns (wall ms until the last has ended, [CPU ms of each])."""
    start = time.perf_counter()
    processes = []
    for cpu in cpus:
        command = ([] if cpu is None else ["taskset", "-c", str(cpu)]) + [binary, "batch"]
        with open(input_path, "rb") as stdin:
            processes.append(subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL, env=env))
    cpu_ms = []
    for process in processes:
        _, status, usage = os.wait4(process.pid, 0)
        if status != 0:
            raise SystemExit(f"{binary} batch exited with status {status}")
        cpu_ms.append((usage.ru_utime + usage.ru_stime) * 1000)
    return (time.perf_counter() - start) * 1000, cpu_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("input")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--fonts", default=os.path.join(os.path.dirname(__file__), "..", "..", "Fonts"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    env = dict(os.environ, TEXTMEASURE_FONTS=os.path.abspath(args.fonts))
    random.seed(args.seed)
    kinds = {"one core": [0], "two cores": [None], "pair": [0, 1]}
    walls = {kind: [] for kind in kinds}
    cpus = {kind: [] for kind in kinds}
    shares = []
    for _ in range(args.rounds):
        order = list(kinds)
        random.shuffle(order)
        this_round = {}
        for kind in order:
            wall, cpu = run(args.binary, args.input, env, kinds[kind])
            this_round[kind] = wall
            walls[kind].append(wall)
            cpus[kind].append(statistics.mean(cpu))
        speed_up = this_round["one core"] / this_round["two cores"]
        throughput = 2 * this_round["one core"] / this_round["pair"]
        shares.append(speed_up / throughput)
    median = statistics.median
    for kind in kinds:
        per = " per copy" if kind == "pair" else ""
        print(f"{kind:10s} wall {median(walls[kind]):7.1f} ms   CPU{per} {median(cpus[kind]):7.1f} ms")
    speed_up = median(walls["one core"]) / median(walls["two cores"])
    throughput = 2 * median(walls["one core"]) / median(walls["pair"])
    print(f"speed-up {speed_up:.3f}x   pair throughput {throughput:.3f}x   share {speed_up / throughput:.3f}"
          f" (per round: {median(shares):.3f})   {args.rounds} rounds")


if __name__ == "__main__":
    main()
