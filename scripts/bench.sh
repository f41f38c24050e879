#!/usr/bin/env bash
# Runs every committed benchmark once, one package at a time (-p 1, so no
# two benchmarks share the machine), and writes BENCHMARKS.md: each figure
# and ratio, the machine, the date and the command that produced it; then
# bench/measured.md, the figures measured by hand (profiles, big runs) with
# the commands that produced them.
#   make bench                 (all)
#   BENCH_PKGS=./queue/ make bench   (some packages)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

pkgs=${BENCH_PKGS:-./...}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

echo "running Go benchmarks in $pkgs (this takes several minutes)" >&2
go test -p 1 -run '^$' -bench . -benchtime 1x -timeout 60m $pkgs 2>&1 | tee "$raw" >&2

crawl=""
if [ -z "${BENCH_PKGS:-}" ] && [ -x bench/crawl/run.sh ]; then
  echo "running the crawl benchmark (newsrank vs Scrapy)" >&2
  crawl_out=$(mktemp)
  if ! bash bench/crawl/run.sh >"$crawl_out" 2>&1; then
    echo "crawl benchmark failed" >>"$crawl_out"
  fi
  cat "$crawl_out" >&2
  crawl=$(cat "$crawl_out")
  rm -f "$crawl_out"
fi

{
  echo "# Benchmarks"
  echo
  echo "Produced by \`make bench\` (scripts/bench.sh: \`go test -p 1 -run '^\$' -bench . -benchtime 1x $pkgs\`"
  echo "and bench/crawl/run.sh). Every ratio compares newsrank with a baseline measured in the same run"
  echo "against the same redis-server; the targets are in each benchmark's comment."
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "- go: $(go env GOVERSION), redis-server: $(redis-server --version | awk '{print $3}' | sed 's/v=//')"
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "## Go benchmarks"
  echo
  echo "| package | benchmark | figures |"
  echo "|---|---|---|"
  awk '
    /^pkg: / { pkg = $2; sub(/.*newsrank\//, "", pkg) }
    /^Benchmark/ {
      name = $1; sub(/-[0-9]+$/, "", name)
      figs = ""
      for (i = 3; i < NF; i += 2) {
        if ($(i+1) == "ns/op") continue
        figs = figs (figs == "" ? "" : ", ") $i " " $(i+1)
      }
      printf "| %s | %s | %s |\n", pkg, name, figs
    }' "$raw"
  echo
  echo "Benchmark logs (targets and notes):"
  echo
  echo '```'
  grep -E '^\s+[a-z_]*bench_test\.go:[0-9]+:' "$raw" | sed 's/^\s*//' || true
  echo '```'
  if [ -n "$crawl" ]; then
    echo
    echo "## Crawl: newsrank vs Scrapy (bench/crawl/run.sh)"
    echo
    echo '```'
    echo "$crawl"
    echo '```'
  fi
  if [ -f bench/measured.md ]; then
    echo
    cat bench/measured.md
  fi
} > BENCHMARKS.md
echo "wrote BENCHMARKS.md" >&2
