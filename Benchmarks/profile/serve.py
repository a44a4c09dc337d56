#!/usr/bin/env python3
"""Instructions per item of `textmeasure serve` and of `textmeasure batch` on the same warm items (callgrind).

    Benchmarks/profile/serve.py [--bin DIR] [--out DIR] [--rounds 10] [--connections 64]

The items are `Benchmarks/load-serve.py`'s: 64 request bodies of 32 corpus items at phone and tablet
widths. The server (a copy of DIR/textmeasure-serve, `strip --strip-debug`ped for valgrind 3.19) runs
under callgrind with sigsuspend.c preloaded; every body is sent twice on other connections and twice
on the measured ones (so that every text is prepared and held, and the connections are open), then
the counts are zeroed (`callgrind_control -z`), `--rounds` rounds are sent, each one request on each of
`--connections` connections written as wrk writes it, then all the answers read, and the counts
dumped (`-d`): the steady state of warm requests, sockets and event loops included, the kernel not.
`batch` runs the same items once and 11 times (JSON Lines, one CPU); the difference per item is a
warm item's cost. Prints both, and leaves callgrind's files and cgparse.py's pickles (serve.pkl,
batch-1.pkl, batch-11.pkl) in DIR for cgreport.py. Needs valgrind, callgrind_control, cc and strip;
DIR defaults to .build/release (built with `swift build -c release`), --out to .build-profile/serve.
"""
import argparse, glob, importlib.util, json, os, random, shutil, socket, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("compare_pango", os.path.join(ROOT, "Benchmarks", "compare-pango.py"))
compare_pango = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_pango)


def bodies(requests=64, items=32):
    """load-serve.py's request bodies."""
    rng = random.Random(7)
    texts = compare_pango.corpus()
    return [[{"id": f"{r}-{i}", "text": rng.choice(texts), "width": rng.choice(compare_pango.WIDTHS)}
             for i in range(items)] for r in range(requests)]


class Client:
    """`connections` keep-alive connections; each round sends one request on each, then reads every answer."""

    def __init__(self, port, requests, connections):
        self.requests = requests
        self.sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(connections)]
        self.pending = [b""] * connections
        self.sent = 0

    def answer(self, i):
        data = self.pending[i]
        while b"\r\n\r\n" not in data:
            data += self.sockets[i].recv(1 << 16)
        head, rest = data.split(b"\r\n\r\n", 1)
        length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")).split(b":")[1])
        while len(rest) < length:
            rest += self.sockets[i].recv(1 << 16)
        self.pending[i] = rest[length:]
        if not head.startswith(b"HTTP/1.1 200 "):
            sys.exit(f"serve.py: {head.splitlines()[0]!r}")

    def rounds(self, count):
        for _ in range(count):
            for s in self.sockets:
                s.sendall(self.requests[self.sent % len(self.requests)])
                self.sent += 1
            for i in range(len(self.sockets)):
                self.answer(i)


def summary(path):
    with open(path) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("summary:"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--out", default=os.path.join(ROOT, ".build-profile", "serve"))
    parser.add_argument("--rounds", type=int, default=10, help="measured rounds (default 10)")
    parser.add_argument("--connections", type=int, default=64, help="connections, one request each a round (default 64)")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    for name in ["textmeasure", "textmeasure-serve"]:
        subprocess.run(["strip", "--strip-debug", "-o", os.path.join(out, name), os.path.join(args.bin, name)], check=True)
    shim = os.path.join(out, "sigsuspend.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "sigsuspend.c")], check=True)
    for old in glob.glob(os.path.join(out, "cg.serve.*")):
        os.remove(old)

    items = bodies()
    payloads = [json.dumps(body, ensure_ascii=False).encode() for body in items]
    server = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.serve.%p",
                               f"--log-file={out}/cg.serve.log", os.path.join(out, "textmeasure-serve"),
                               "--host", "127.0.0.1", "--port", "0"],
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, LD_PRELOAD=shim))
    try:
        port = int(server.stdout.readline().rsplit(":", 1)[1])
        head = b"POST /v1/measure HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        requests = [head % (port, len(p)) + p for p in payloads]
        Client(port, requests, len(requests)).rounds(2)   # every text prepared and held
        client = Client(port, requests, args.connections)
        client.rounds(2)
        subprocess.run(["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True)
        client.rounds(args.rounds)
        subprocess.run(["callgrind_control", "-d", str(server.pid)], check=True, capture_output=True)
    finally:
        server.terminate()
        server.wait(timeout=300)
    dump = f"{out}/cg.serve.{server.pid}.1"
    served = args.rounds * args.connections * len(items[0])

    lines = [json.dumps(item, ensure_ascii=False) for body in items for item in body]
    counts = {}
    for copies in (1, 11):
        path = os.path.join(out, f"items-{copies}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines) * copies)
        with open(path, "rb") as stdin:
            subprocess.run(["taskset", "-c", str(min(os.sched_getaffinity(0))), "valgrind", "--tool=callgrind",
                            f"--callgrind-out-file={out}/cg.batch-{copies}", f"--log-file={out}/cg.batch-{copies}.log",
                            os.path.join(out, "textmeasure"), "batch"], stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        counts[copies] = summary(f"{out}/cg.batch-{copies}")
    for name, path in [("serve", dump), ("batch-1", f"{out}/cg.batch-1"), ("batch-11", f"{out}/cg.batch-11")]:
        subprocess.run([sys.executable, os.path.join(HERE, "cgparse.py"), path, os.path.join(out, f"{name}.pkl")],
                       check=True, stdout=subprocess.DEVNULL)

    serve = summary(dump) / served
    batch = (counts[11] - counts[1]) / (10 * len(lines))
    # Each connection makes its `Date` value again each second: under callgrind, a second holds a few
    # requests, not thousands, so that its share depends on how fast the machine ran.
    sys.path.insert(0, HERE)
    from cgparse import load
    profile = load(os.path.join(out, "serve.pkl"))
    date = sum(profile.incl(f) for name, fs in profile.by_name.items() if "imfFixdate" in name for f in fs)
    print(f"serve: {summary(dump):,} instructions for {served:,} items ({args.rounds} rounds x {args.connections} "
          f"connections x {len(items[0])}): {serve:,.0f} an item, {(summary(dump) - date) / served:,.0f} without "
          f"making the Date value ({date / served:,.0f})")
    print(f"batch: {counts[1]:,} for {len(lines):,} items, {counts[11]:,} for 11 times as many: {batch:,.0f} a warm item")
    print(f"batch / serve: {batch / serve:.3f}, {batch * served / (summary(dump) - date):.3f} without the Date value; "
          f"profiles in {out} (cgreport.py top {out}/serve.pkl)")


if __name__ == "__main__":
    main()
