#!/usr/bin/env python3
"""A client that pipelines measure requests on one connection and never reads the answers, against
`textmeasure-serve`: how much the server takes from it, its resident memory meanwhile, and when it
closes the connection.

    Benchmarks/serve-unread.py [--seconds 16] [--idle-timeout 60] [--serve PATH]

Builds `textmeasure-serve` in release mode unless `--serve` names one, starts it on a free loopback
port, warms it with one request (so that every request after is answered in the connection's
pipeline), then sends the same request (32 items) without end and without reading, for `--seconds`
or until the server closes the connection. Prints, every 2 seconds, the bytes the server has taken
and its VmRSS. A server that stops reading a client whose answers wait unread takes what the sockets'
buffers hold and no more, and closes the connection after `--idle-timeout`; one that does not reads
and answers as fast as it can, holding every answer in memory.
"""
import argparse, json, os, select, socket, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build():
    subprocess.run(["swift", "build", "-c", "release", "--product", "textmeasure-serve"], check=True, cwd=ROOT,
                   timeout=3600)
    out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "textmeasure-serve")


def resident_megabytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return -1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=16, help="how long to send (default 16)")
    parser.add_argument("--idle-timeout", type=float, default=60, help="the server's --idle-timeout (default 60)")
    parser.add_argument("--serve", help="a textmeasure-serve to run instead of building one")
    args = parser.parse_args()
    serve = args.serve or build()

    body = json.dumps([{"id": str(i), "text": "Hello, world — 你好，世界", "width": 320} for i in range(32)]).encode()
    request = (b"POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
               % len(body)) + body
    server = subprocess.Popen([serve, "--host", "127.0.0.1", "--port", "0", "--idle-timeout", str(args.idle_timeout)],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as warm:   # the texts held from here on
            warm.sendall(request)
            warm.recv(1 << 20)
        client = socket.create_connection(("127.0.0.1", port))
        client.setblocking(False)
        chunk = memoryview(request * 64)
        offset = sent = 0
        start = last = time.monotonic()
        stalled_since = None
        closed = False
        print(f"serve-unread: server resident {resident_megabytes(server.pid)} MB before")
        while time.monotonic() - start < args.seconds:
            try:
                count = client.send(chunk[offset:])
                sent += count
                offset = (offset + count) % len(chunk)
                stalled_since = None
            except BlockingIOError:
                stalled_since = stalled_since or time.monotonic()
                select.select([], [client], [], 0.2)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            if time.monotonic() - last >= 2:
                last = time.monotonic()
                print(f"  {last - start:5.1f} s: taken {sent / 1e6:8.1f} MB ({sent // len(request):,} requests), "
                      f"server resident {resident_megabytes(server.pid)} MB", flush=True)
        stalled = time.monotonic() - stalled_since if stalled_since else 0
        print(f"serve-unread: taken {sent / 1e6:.1f} MB in {time.monotonic() - start:.1f} s; "
              f"server resident {resident_megabytes(server.pid)} MB; "
              + (f"closed by the server after a stall of {stalled:.1f} s" if closed
                 else f"still open, stalled for the last {stalled:.1f} s"))
        client.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
