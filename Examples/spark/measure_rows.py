#!/usr/bin/env python3
"""Measures a JSON Lines file on Spark: every partition is piped through `textmeasure batch`.

    python3 Examples/spark/measure_rows.py INPUT.jsonl OUTPUT_DIR [--textmeasure PATH]
        [--partitions N] [--master URL] [batch options...]

Each input line is a batch line ({"text": ..., "width": ..., "id": ...}); OUTPUT_DIR receives the result
lines as Spark text part files (part-00000, part-00001, ...), which, read in name order, are exactly what
`textmeasure batch` writes for the whole file: one line per input line, in input order, other fields
(an "id") echoed back. Options this script does not know (--size, --max-lines, --font, ...) go to
`textmeasure batch` unchanged.

Order and completeness: `RDD.pipe` runs one `textmeasure batch` process per partition and keeps the
order within it, and `batch` writes exactly one line per input line. The results are zipped with the
input rows (`RDD.zip` fails unless every partition has as many results as rows), and a row that carried
an "id" must come back with the same one, or the job fails: no row is lost, duplicated or mismatched.

The binary defaults to the release build of the checkout this script lives in
(`swift build -c release --product textmeasure`); every worker must be able to run it at that path
(on a cluster: install the same binary at the same path on every node, or ship it with --files).
`--store PATH` passes through to `batch`, which runs `textmeasure-store` from beside the binary
(`swift build -c release --product textmeasure-store`): install both. On many machines, give every
worker one PostgreSQL database instead (`--store postgres://USER@HOST:PORT/DATABASE`, or
TEXTMEASURE_STORE in the executors' environment): a text measured by one worker is then found by all.
"""

import argparse
import json
import os
import shlex
import sys

CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_BINARY = os.path.join(CHECKOUT, ".build", "release", "textmeasure")


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Measure JSON Lines rows with `textmeasure batch` on Spark (RDD.pipe).",
        epilog="Other options are passed to `textmeasure batch`.")
    parser.add_argument("input", help="JSON Lines file (or anything sc.textFile reads)")
    parser.add_argument("output", help="directory for the result part files (must not exist)")
    parser.add_argument("--textmeasure", default=DEFAULT_BINARY, help="the textmeasure binary (default: %(default)s)")
    parser.add_argument("--partitions", type=int, default=None, help="minimum input partitions")
    parser.add_argument("--master", default="local[*]", help="Spark master (default: %(default)s)")
    return parser.parse_known_args(argv)


def input_id(line):
    """The "id" of an input line that is a JSON object holding one, else None."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value.get("id") if isinstance(value, dict) else None


def check_row(pair):
    """Fails the job when a result does not belong to its row; returns the result line."""
    (line, index), result = pair
    expected = input_id(line)
    if expected is not None:
        got = json.loads(result).get("id")
        if got != expected:
            raise RuntimeError(f"row {index}: input id {expected!r} came back as {got!r}")
    return result


def main(argv=None):
    options, batch_options = parse_arguments(sys.argv[1:] if argv is None else argv)
    binary = os.path.abspath(options.textmeasure)
    if not os.access(binary, os.X_OK):
        sys.exit(f"measure_rows.py: no executable at {binary}; build it with "
                 f"`swift build -c release --product textmeasure` in {CHECKOUT}, or pass --textmeasure PATH")
    if os.path.exists(options.output):
        sys.exit(f"measure_rows.py: {options.output} exists; choose a new output directory")

    from pyspark import SparkConf, SparkContext  # imported late: --help works without PySpark

    if options.master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")   # a local run stays on loopback
    conf = (SparkConf().setAppName("textmeasure-measure-rows").setMaster(options.master)
            .set("spark.ui.showConsoleProgress", "false"))
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    try:
        rows = sc.textFile(options.input, options.partitions) if options.partitions else sc.textFile(options.input)
        command = [binary, "batch"] + batch_options
        # The same partitioning on both sides of the zip: the piped results are computed from `rows`.
        results = rows.pipe(shlex.join(command), checkCode=True)
        checked = rows.zipWithIndex().zip(results).map(check_row)
        checked.saveAsTextFile(options.output)
    finally:
        sc.stop()


if __name__ == "__main__":
    main()
