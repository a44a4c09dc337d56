#!/usr/bin/env python3
"""Checks Examples/spark/measure_rows.py against a local `textmeasure batch` run of the same rows.

    python3 Examples/spark/test_measure_rows.py [--textmeasure PATH]

Needs PySpark (`pip install pyspark`), Java 17 and the release binary
(`swift build -c release --product textmeasure`). Every input row must come back exactly once, with
its id, and with the same result line as `batch` gives for the whole file at once.
"""

import glob
import json
import os
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
            spark_lines = []
            for part in parts:
                with open(part, encoding="utf-8") as f:
                    spark_lines += f.read().splitlines()
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


if __name__ == "__main__":
    if "--textmeasure" in sys.argv:
        at = sys.argv.index("--textmeasure")
        BINARY = os.path.abspath(sys.argv[at + 1])
        del sys.argv[at:at + 2]
    unittest.main(verbosity=2)
