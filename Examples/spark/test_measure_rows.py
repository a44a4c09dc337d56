#!/usr/bin/env python3
"""Checks Examples/spark/measure_rows.py against a local `textmeasure batch` run of the same rows.

    python3 Examples/spark/test_measure_rows.py [--textmeasure PATH]

Needs PySpark (`pip install pyspark`), Java 17 and the release binaries
(`swift build -c release --product textmeasure && swift build -c release --product textmeasure-store`; the store tests build
`textmeasure-store` when it is missing beside the default binary). Every input row must come back exactly once, with
its id, and with the same result line as `batch` gives for the whole file at once. The PostgreSQL store test
starts a private server (Debian's postgresql 15: /usr/lib/postgresql/15/bin, or TEXTMEASURE_POSTGRES_BIN) and is
skipped, saying so, when it is not installed.
"""

import glob
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_rows  # noqa: E402

BINARY = measure_rows.DEFAULT_BINARY
TEXTS = [
    "Hello, world", "你好，世界", "مرحبا بالعالم", "שלום עולם", "สวัสดีชาวโลก", "नमस्ते दुनिया", "안녕하세요 세계",
    "👋🏽 emoji 🎉", "A longer sentence that will wrap over a few lines at narrow widths, surely.", "",
]


def make_rows(count):
    """Batch lines with ids: texts at several widths and sizes, plus lines that `batch` refuses."""
    rows = []
    for i in range(count):
        kind = i % 23
        if kind == 7:
            rows.append(json.dumps({"id": f"row-{i}", "width": 100}))                 # missing text
        elif kind == 13:
            rows.append(json.dumps({"id": f"row-{i}", "text": "x", "width": -1}))    # out of range
        elif kind == 19:
            rows.append("{not json")                                                   # no id to check
        else:
            rows.append(json.dumps({"id": f"row-{i}", "text": TEXTS[i % len(TEXTS)] * (1 + i % 3),
                                    "width": 40 + (i * 37) % 400, "size": 12 + i % 9}, ensure_ascii=False))
    return rows


def ensure_store_executable():
    """`--store` runs `textmeasure-store` from beside `textmeasure`: builds it when the default release
    binary is used and it is missing."""
    beside = os.path.join(os.path.dirname(BINARY), "textmeasure-store")
    if not os.access(beside, os.X_OK) and BINARY == measure_rows.DEFAULT_BINARY:
        subprocess.run(["swift", "build", "-c", "release", "--product", "textmeasure-store"],
                       cwd=measure_rows.CHECKOUT, check=True)


POSTGRES_BIN = os.environ.get("TEXTMEASURE_POSTGRES_BIN", "/usr/lib/postgresql/15/bin")


class PrivatePostgres:
    """A PostgreSQL server of this test's own: a new cluster in a temporary folder, on a free loopback
    port, run as `postgres` (or `nobody`) when the test runs as root, as CI does (PostgreSQL refuses root)."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="textmeasure-spark-postgres-")
        os.chmod(self.folder, 0o755)
        self.as_server = []
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres").pw_name
            except KeyError:
                user = "nobody"
            shutil.chown(self.folder, user)
            self.as_server = ["/usr/sbin/runuser", "-u", user, "--"]
        self.data = os.path.join(self.folder, "data")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "textmeasure", "--no-sync", "--no-instructions",
                  "-E", "UTF8", "--locale", "C")
        self._run("pg_ctl", "start", "-D", self.data, "-w", "-t", "60", "-l", os.path.join(self.folder, "log"),
                  "-o", f"-p {port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off")
        self.url = f"postgres://textmeasure@127.0.0.1:{port}/postgres"

    def _run(self, tool, *arguments):
        subprocess.run(self.as_server + [os.path.join(POSTGRES_BIN, tool), *arguments], cwd="/", check=True,
                       stdout=subprocess.DEVNULL, timeout=120)

    def stop(self):
        try:
            self._run("pg_ctl", "stop", "-D", self.data, "-m", "immediate", "-w")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def store_counts(stderr):
    """The sums of every `batch --stats` line's store hits and misses in a job's standard error (Spark
    copies each piped process's standard error to its own), and how many such lines there were."""
    found = re.findall(r"height store: (\d+) hits, (\d+) misses", stderr)
    return sum(int(h) for h, _ in found), sum(int(m) for _, m in found), len(found)


def part_lines(output):
    """The lines of a job's part files, read in name order (what one `batch` run writes for the whole input)."""
    lines = []
    for part in sorted(glob.glob(os.path.join(output, "part-*"))):
        with open(part, encoding="utf-8") as f:
            lines += f.read().splitlines()
    return lines


class MeasureRowsTests(unittest.TestCase):
    def test_every_row_comes_back_once_with_its_id_and_batch_result(self):
        rows = make_rows(1000)
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "rows.jsonl")
            with open(source, "w", encoding="utf-8") as f:
                f.write("\n".join(rows) + "\n")
            output = os.path.join(tmp, "out")
            subprocess.run([sys.executable, os.path.join(HERE, "measure_rows.py"), source, output,
                            "--textmeasure", BINARY, "--partitions", "5", "--max-lines", "3"], check=True)
            parts = sorted(glob.glob(os.path.join(output, "part-*")))
            self.assertGreaterEqual(len(parts), 5, "expected one part file per partition")
            spark_lines = part_lines(output)
            with open(source, "rb") as f:
                local = subprocess.run([BINARY, "batch", "--max-lines", "3"], stdin=f, check=True,
                                       capture_output=True).stdout.decode("utf-8").splitlines()

        self.assertEqual(len(spark_lines), len(rows))
        self.assertEqual(len(local), len(rows))
        ids = [json.loads(line).get("id") for line in spark_lines]
        expected_ids = [json.loads(r).get("id") if r.startswith("{\"") else None for r in rows]
        self.assertEqual(ids, expected_ids)
        with_ids = [i for i in ids if i is not None]
        self.assertEqual(len(with_ids), len(set(with_ids)), "an id came back twice")
        self.assertEqual(spark_lines, local)
        self.assertTrue(any('"error"' in line for line in spark_lines))
        self.assertTrue(any('"lineCount"' in line for line in spark_lines))

    def test_workers_share_one_store(self):
        """Partitions measured with one --store path: a second job answers every row from the file,
        with the same output, and a local batch run finds every row there."""
        ensure_store_executable()
        rows = make_rows(400)
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "rows.jsonl")
            with open(source, "w", encoding="utf-8") as f:
                f.write("\n".join(rows) + "\n")
            store = os.path.join(tmp, "heights.sqlite")
            outputs = []
            for run in ("first", "second"):
                output = os.path.join(tmp, run)
                subprocess.run([sys.executable, os.path.join(HERE, "measure_rows.py"), source, output,
                                "--textmeasure", BINARY, "--partitions", "4", "--store", store], check=True)
                outputs.append(part_lines(output))
            with open(source, "rb") as f:
                local = subprocess.run([BINARY, "batch", "--store", store, "--stats"], stdin=f, check=True,
                                       capture_output=True)
        self.assertEqual(outputs[0], outputs[1])
        self.assertEqual(outputs[0], local.stdout.decode("utf-8").splitlines())
        measurable = sum(1 for line in outputs[0] if '"lineCount"' in line)
        stats = local.stderr.decode("utf-8")
        self.assertIn(f"height store: {measurable} hits, 0 misses", stats)

    def test_workers_share_one_postgres_database(self):
        """Partitions measured with one --store postgres:// URL (the database a fleet of machines would
        share): the second job answers every row from the server, with the same output as the first
        and as a local batch run without a store."""
        if not os.access(os.path.join(POSTGRES_BIN, "postgres"), os.X_OK):
            self.skipTest(f"PostgreSQL not found in {POSTGRES_BIN} (apt-get install postgresql, or "
                          "TEXTMEASURE_POSTGRES_BIN): the shared-database test needs a server to start")
        ensure_store_executable()
        server = PrivatePostgres()
        self.addCleanup(server.stop)
        rows = make_rows(400)
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "rows.jsonl")
            with open(source, "w", encoding="utf-8") as f:
                f.write("\n".join(rows) + "\n")
            outputs, counts = [], []
            for run in ("first", "second"):
                output = os.path.join(tmp, run)
                job = subprocess.run([sys.executable, os.path.join(HERE, "measure_rows.py"), source, output,
                                      "--textmeasure", BINARY, "--partitions", "4", "--store", server.url, "--stats"],
                                     check=True, stderr=subprocess.PIPE)
                counts.append(store_counts(job.stderr.decode("utf-8", "replace")))
                outputs.append(part_lines(output))
            with open(source, "rb") as f:
                plain = subprocess.run([BINARY, "batch"], stdin=f, check=True, capture_output=True)
        self.assertEqual(outputs[0], outputs[1])
        self.assertEqual(outputs[0], plain.stdout.decode("utf-8").splitlines())
        measurable = sum(1 for line in outputs[0] if '"lineCount"' in line)
        first_hits, first_misses, first_partitions = counts[0]
        hits, misses, partitions = counts[1]
        self.assertGreaterEqual(first_partitions, 4, "each partition's batch prints its store counts")
        self.assertEqual(first_hits + first_misses, measurable)
        self.assertGreaterEqual(partitions, 4)
        self.assertEqual((hits, misses), (measurable, 0), "the second job measured rows the first had stored")


if __name__ == "__main__":
    if "--textmeasure" in sys.argv:
        at = sys.argv.index("--textmeasure")
        BINARY = os.path.abspath(sys.argv[at + 1])
        del sys.argv[at:at + 2]
    unittest.main(verbosity=2)
