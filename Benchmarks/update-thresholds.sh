#!/bin/sh
# Rewrites Thresholds/: the allocation count (mallocCountTotal, p90) of every TextMeasureBenchmarks
# benchmark, as measured now. Run it after a change that deliberately changes allocations, look at
# `git diff Thresholds/`, commit. Check against the committed counts with
#
#   swift package benchmark thresholds check --target TextMeasureBenchmarks --metric mallocCountTotal
#
# Only mallocCountTotal is written (times on a shared machine are no threshold), and it is measured
# alone: the sampler behind peakMemoryResident allocates on its own thread.
#
# `thresholds update` names a file after the benchmark with spaces and slashes turned into
# underscores, while `thresholds check` looks for the name as it is (ordo-one/benchmark issues #301
# and #373), so the files are renamed back. (No benchmark name here has an underscore of its own.)
set -eu
cd "$(dirname "$0")"
rm -f Thresholds/TextMeasureBenchmarks.*.p90.json
swift package --allow-writing-to-package-directory benchmark thresholds update \
    --target TextMeasureBenchmarks --metric mallocCountTotal --no-progress "$@"
for file in Thresholds/TextMeasureBenchmarks.*_*.p90.json; do
    [ -e "$file" ] || continue
    mv "$file" "$(dirname "$file")/$(basename "$file" | tr _ ' ')"
done
