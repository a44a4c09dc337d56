#!/usr/bin/env bash
# Cold vs warm `textmeasure batch --store`, side by side in one run: the same 100,000 distinct lines
# measured into an empty store, then answered from a warm SQLite file and from a warm PostgreSQL
# database on loopback; then `textmeasure serve` under wrk answering those lines from each warm store.
# Checks that every run prints the bytes a run without a store prints, and reports the ratios.
#
# Usage: Benchmarks/store-warm-cold.sh [LINES] [RUNS] [SECONDS]   (builds the release tools first)
#
# PostgreSQL: a private server (Debian's postgresql 15, from /usr/lib/postgresql/15/bin or
# TEXTMEASURE_POSTGRES_BIN) in a temporary folder on a free loopback port, with its default settings,
# run as `postgres` when this script runs as root; skipped, saying so, when it is not installed.
# wrk is installed (Debian's package) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-100000}
runs=${2:-3}
duration=${3:-10}
# One product a build: given several --product options, swift build builds only the last.
for product in textmeasure textmeasure-store textmeasure-serve; do swift build -c release --product "$product" >/dev/null; done
tool=.build/release/textmeasure
work=$(mktemp -d)
chmod 755 "$work"
pg_bin=${TEXTMEASURE_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
as_server=()
if [ "$(id -u)" -eq 0 ]; then as_server=(/usr/sbin/runuser -u postgres --); fi
url=""
cleanup() {
    if [ -n "$url" ]; then (cd / && "${as_server[@]}" "$pg_bin/pg_ctl" stop -D "$work/pg/data" -m immediate >/dev/null 2>&1) || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
python3 Benchmarks/store-input.py "$lines" > "$work/input.jsonl"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if [ -x "$pg_bin/postgres" ]; then
    mkdir -m 755 "$work/pg"
    if [ ${#as_server[@]} -gt 0 ]; then chown postgres "$work/pg"; fi
    pg_port=$(free_port)
    (cd / && "${as_server[@]}" "$pg_bin/initdb" -D "$work/pg/data" -A trust -U textmeasure -E UTF8 --locale C \
        --no-instructions >/dev/null)
    (cd / && "${as_server[@]}" "$pg_bin/pg_ctl" start -D "$work/pg/data" -w -l "$work/pg/log" \
        -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1" >/dev/null)
    url="postgres://textmeasure@127.0.0.1:$pg_port/postgres"
else
    echo "PostgreSQL not found in $pg_bin (apt-get install postgresql): its runs are skipped" >&2
fi

now() { date +%s.%N; }
# Runs `batch` with the arguments given, input from input.jsonl, output to $work/$1.out; prints seconds.
timed_batch() {
    local name=$1
    shift
    local start end
    start=$(now)
    "$tool" batch "$@" < "$work/input.jsonl" > "$work/$name.out" 2> "$work/$name.err"
    end=$(now)
    echo "$end - $start" | bc
}
"$tool" batch < "$work/input.jsonl" > "$work/plain.out"
same() { cmp -s "$work/plain.out" "$work/$1.out" || { echo "$1: output differs from a run without a store" >&2; exit 1; }; }

cold=() warm=() pg_cold=() pg_warm=()
for run in $(seq 1 "$runs"); do
    rm -f "$work"/heights.sqlite*
    cold+=("$(timed_batch cold --store "$work/heights.sqlite")"); same cold
    warm+=("$(timed_batch warm --store "$work/heights.sqlite" --stats)"); same warm
    if [ -n "$url" ]; then
        "$tool" store clear "$url" >/dev/null
        pg_cold+=("$(timed_batch pg-cold --store "$url")"); same pg-cold
        pg_warm+=("$(timed_batch pg-warm --store "$url" --stats)"); same pg-warm
    fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { echo "scale=1; $1 / $2" | bc; }
c=$(median "${cold[@]}") w=$(median "${warm[@]}")
echo "lines: $lines, runs: $runs (median), identical output: yes"
echo "batch, cold (empty SQLite store):  ${c}s"
echo "batch, warm SQLite:                ${w}s   $(ratio "$c" "$w")x faster than cold   ($(grep "height store" "$work/warm.err"))"
if [ -n "$url" ]; then
    pc=$(median "${pg_cold[@]}") pw=$(median "${pg_warm[@]}")
    echo "batch, cold (empty PostgreSQL):    ${pc}s"
    echo "batch, warm PostgreSQL (loopback): ${pw}s   $(ratio "$c" "$pw")x faster than cold   ($(grep "height store" "$work/pg-warm.err"))"
fi

# `serve` under wrk: requests of 32 lines each, in rotation over all the lines, against each warm store
# (memory keeps 1,000 prepared texts, so nearly every item is a store look-up).
if ! command -v wrk >/dev/null; then
    sudo=""; if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "installing wrk" >&2
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends wrk >/dev/null
fi
python3 -c '
import sys
lines = [line.rstrip("\n") for line in open(sys.argv[1], encoding="utf-8")]
for start in range(0, len(lines), 32):
    print("[" + ",".join(lines[start:start + 32]) + "]")
' "$work/input.jsonl" > "$work/bodies.txt"
cat > "$work/bodies.lua" <<EOF
local bodies = {}
for line in io.lines("$work/bodies.txt") do bodies[#bodies + 1] = line end
local i = 0
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "/v1/measure", {["Content-Type"] = "application/json"}, bodies[i])
end
EOF
serve_under_wrk() {
    local label=$1 store=$2
    "$tool" serve --port 0 --store "$store" > "$work/serve.out" 2> "$work/serve.err" &
    local pid=$! port=""
    for _ in $(seq 1 100); do
        port=$(grep -oE '[0-9]+$' "$work/serve.out" 2>/dev/null || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "serve did not start: $(cat "$work/serve.err")" >&2; kill "$pid"; exit 1; }
    local out
    out=$(wrk -t2 -c16 -d"${duration}s" --latency --timeout 10s -s "$work/bodies.lua" "http://127.0.0.1:$port/v1/measure")
    local hits misses
    hits=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^textmeasure_store_hits /{ print $2 }')
    misses=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^textmeasure_store_misses /{ print $2 }')
    kill -TERM "$pid"
    wait "$pid" || true
    printf 'serve, warm %-10s  %8s requests/s (%d items each)   p50 %s   p99 %s   store: %s hits, %s misses\n' "$label:" \
        "$(awk '/Requests\/sec/{ print $2 }' <<< "$out")" 32 "$(awk '$1 == "50%" { print $2 }' <<< "$out")" \
        "$(awk '$1 == "99%" { print $2 }' <<< "$out")" "$hits" "$misses"
}
serve_under_wrk SQLite "$work/heights.sqlite"
if [ -n "$url" ]; then serve_under_wrk PostgreSQL "$url"; fi
