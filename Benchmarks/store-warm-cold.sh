#!/usr/bin/env bash
# Cold vs warm `textmeasure batch --store`: the same 100,000 distinct lines measured into an empty
# store, then answered from it. Checks that both runs print identical bytes and reports the ratio.
#
# Usage: Benchmarks/store-warm-cold.sh [LINES] [RUNS]   (builds the release tool first)
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-100000}
runs=${2:-3}
swift build -c release --product textmeasure >/dev/null && swift build -c release --product textmeasure-store >/dev/null   # --store runs textmeasure-store
tool=.build/release/textmeasure
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 Benchmarks/store-input.py "$lines" > "$work/input.jsonl"

now() { date +%s.%N; }
cold=() warm=()
for run in $(seq 1 "$runs"); do
    rm -f "$work"/heights.sqlite*
    start=$(now); "$tool" batch --store "$work/heights.sqlite" < "$work/input.jsonl" > "$work/cold.out"; end=$(now)
    cold+=("$(echo "$end - $start" | bc)")
    start=$(now); "$tool" batch --store "$work/heights.sqlite" --stats < "$work/input.jsonl" > "$work/warm.out" 2> "$work/warm.err"; end=$(now)
    warm+=("$(echo "$end - $start" | bc)")
    cmp -s "$work/cold.out" "$work/warm.out" || { echo "outputs differ" >&2; exit 1; }
done
"$tool" batch < "$work/input.jsonl" > "$work/plain.out"
cmp -s "$work/cold.out" "$work/plain.out" || { echo "output with a store differs from output without" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
c=$(median "${cold[@]}") w=$(median "${warm[@]}")
echo "lines: $lines, runs: $runs (median), identical output: yes"
echo "cold (empty store): ${c}s   warm (from the store): ${w}s   ratio: $(echo "scale=1; $c / $w" | bc)x"
grep "height store" "$work/warm.err"
