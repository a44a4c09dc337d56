#!/usr/bin/env python3
"""Load test of `textmeasure serve` with wrk, beside `textmeasure batch` on the same items, in one run.

    Benchmarks/load-serve.py [--duration 10] [--requests 64] [--items 32] [--pin] [--bin DIR]

Builds `textmeasure` and `textmeasure-serve` in release mode, installs wrk (Debian's package) if it is
missing, starts the server on a free loopback port, and runs wrk for `--duration` seconds with 1 and
then 64 connections, each request a JSON array of `--items` batch items (corpus texts at phone and
tablet widths, `--requests` different bodies in rotation). Then the same items, as JSON Lines,
repeated until the warm run lasts about as long, go through `textmeasure batch`. Prints requests/s, p50 and
p99 latency, and items/s for both, and the CPU time each spent per item (user + system, of the server's
process while wrk ran, and of `batch`'s): the rates move with how the host's cores are shared, CPU per
item much less so. Loopback only; every step bounded in time.

On a machine of 2 cores wrk takes a share of the cores the server runs on, while `batch` reads its
input from a file, so that unpinned, `batch` gets more of the machine than the server. `--pin` gives
them the same: the server and `batch` each on the last CPU (`taskset`), wrk on the others. `--bin DIR`
runs the `textmeasure` and `textmeasure-serve` in DIR instead of building (to compare two builds in
turns, in one hour's load). The load average is printed before and after.
"""
import argparse, importlib.util, json, os, random, re, resource, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("compare_pango", os.path.join(ROOT, "Benchmarks", "compare-pango.py"))
compare_pango = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_pango)   # the one corpus loader (Tests/Corpus/multilingual.txt)

WRK_SCRIPT = """
local bodies = {}
for line in io.lines("%s") do bodies[#bodies + 1] = line end
local i = 0
request = function()
  i = i %% #bodies + 1
  return wrk.format("POST", "/v1/measure", {["Content-Type"] = "application/json"}, bodies[i])
end
"""


def ensure_wrk():
    if shutil.which("wrk"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("load-serve: installing wrk", file=sys.stderr)
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, timeout=300)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"], check=True,
                   timeout=300, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), stdout=subprocess.DEVNULL)


def build():
    for product in ["textmeasure", "textmeasure-serve"]:
        subprocess.run(["swift", "build", "-c", "release", "--product", product], check=True, cwd=ROOT, timeout=3600)
    out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "textmeasure"), os.path.join(out, "textmeasure-serve")


def seconds(value):
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", value).groups()
    return float(number) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far, from /proc (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()   # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime, stime


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_wrk(port, connections, duration, script, client=()):
    threads = min(connections, 2)
    out = subprocess.run([*client, "wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "10s",
                          "-s", script, f"http://127.0.0.1:{port}/v1/measure"],
                         check=True, capture_output=True, text=True, timeout=duration + 60).stdout
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p50 = seconds(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = seconds(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        sys.exit(f"load-serve: {errors.group(1)} failed responses\n{out}")
    return rate, p50, p99, total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--requests", type=int, default=64, help="distinct request bodies (default 64)")
    parser.add_argument("--items", type=int, default=32, help="items per request (default 32)")
    parser.add_argument("--pin", action="store_true",
                        help="the server and batch on the last CPU, wrk on the others (taskset)")
    parser.add_argument("--bin", help="a folder holding textmeasure and textmeasure-serve: run those, build nothing")
    args = parser.parse_args()

    ensure_wrk()
    if args.bin:
        textmeasure, serve = os.path.join(args.bin, "textmeasure"), os.path.join(args.bin, "textmeasure-serve")
    else:
        textmeasure, serve = build()
    cpus = sorted(os.sched_getaffinity(0))
    if args.pin and len(cpus) < 2:
        sys.exit("load-serve: --pin needs 2 CPUs")
    # What measures (the server, batch) and what feeds it (wrk): on CPUs of their own when pinned.
    measuring = ["taskset", "-c", str(cpus[-1])] if args.pin else []
    client = ["taskset", "-c", ",".join(map(str, cpus[:-1]))] if args.pin else []
    load_before = os.getloadavg()
    rng = random.Random(7)
    texts = compare_pango.corpus()
    bodies = [[{"id": f"{r}-{i}", "text": rng.choice(texts), "width": rng.choice(compare_pango.WIDTHS)}
               for i in range(args.items)] for r in range(args.requests)]

    with tempfile.TemporaryDirectory() as tmp:
        bodies_path = os.path.join(tmp, "bodies.txt")
        with open(bodies_path, "w", encoding="utf-8") as f:
            for body in bodies:
                f.write(json.dumps(body, ensure_ascii=False) + "\n")
        script = os.path.join(tmp, "rotate.lua")
        with open(script, "w") as f:
            f.write(WRK_SCRIPT % bodies_path)

        server = subprocess.Popen([*measuring, serve, "--host", "127.0.0.1", "--port", "0"], stdout=subprocess.PIPE, text=True)
        try:
            line = server.stdout.readline()
            port = int(line.rsplit(":", 1)[1])
            # Warm up (every body once), as a long-running server would be.
            subprocess.run(["wrk", "-t1", "-c1", "-d2s", "-s", script, f"http://127.0.0.1:{port}/v1/measure"],
                           check=True, capture_output=True, timeout=60)
            results, server_cpu = {}, {}
            for connections in (1, 64):
                before = cpu_seconds(server.pid)
                results[connections] = run_wrk(port, connections, args.duration, script, client)
                server_cpu[connections] = (cpu_seconds(server.pid) - before) / (results[connections][3] * args.items)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)

        # The same items through `batch`, repeated until the warm run lasts about as long as a wrk run:
        # the repeats are counted from the time a repeat adds (a hundred copies against one), not from one
        # copy's time, which is mostly the process starting and measuring the items cold.
        lines = [json.dumps(item, ensure_ascii=False) for body in bodies for item in body]

        copy = "\n".join(lines) + "\n"

        def batch_file(name, repeats):
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                for _ in range(repeats):
                    f.write(copy)
            return path

        def batch_seconds(path):
            start = time.perf_counter()
            subprocess.run([*measuring, textmeasure, "batch"], stdin=open(path, "rb"), stdout=subprocess.DEVNULL,
                           check=True, timeout=600)
            return time.perf_counter() - start

        once, hundred = batch_seconds(batch_file("items-1.jsonl", 1)), batch_seconds(batch_file("items-100.jsonl", 100))
        repeats = max(10, min(5000, int(args.duration / max((hundred - once) / 99, 1e-4))))
        many = batch_file("items-repeated.jsonl", repeats)
        cpu_before = children_cpu_seconds()
        batch_rate = len(lines) * repeats / batch_seconds(many)
        batch_cpu = (children_cpu_seconds() - cpu_before) / (len(lines) * repeats)

    where = (f"server and batch on CPU {cpus[-1]}, wrk on {','.join(map(str, cpus[:-1]))}" if args.pin
             else f"{len(cpus)} cores shared by wrk and the server")
    load_after = os.getloadavg()
    print(f"\n{args.items} items per request, {args.requests} distinct bodies, {args.duration} s per run, {where}; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after\n")
    print("| client | requests/s | items/s | p50 | p99 | CPU per item |")
    print("|---|---|---|---|---|---|")
    for connections, (rate, p50, p99, _) in results.items():
        print(f"| wrk, {connections} connection{'s' if connections > 1 else ''} | {rate:,.0f} | {rate * args.items:,.0f} "
              f"| {p50 * 1e3:.2f} ms | {p99 * 1e3:.2f} ms | {server_cpu[connections] * 1e6:.2f} µs |")
    print(f"| `textmeasure batch` ({len(lines) * repeats:,} lines) | | {batch_rate:,.0f} | | | {batch_cpu * 1e6:.2f} µs |")
    print(f"\nserve ÷ batch, 64 connections: {results[64][0] * args.items / batch_rate:.2f} in items/s, "
          f"{batch_cpu / server_cpu[64]:.2f} in items per CPU second")


if __name__ == "__main__":
    main()
