#!/usr/bin/env bash
# Crawl benchmark: newsrank vs Scrapy 2.8 on the bundled demo news site.
#
#   bench/crawl/run.sh            # 2,000 articles for the comparison, 10,000 for newsrank's RSS
#   ARTICLES=5000 CONCURRENCY=16 BIG_ARTICLES=0 bench/crawl/run.sh
#
# Both crawlers crawl the same site the same way: every section's HTML list
# pages through their "next" links and every article page they link to
# (demoserve -sources html; the spider in newsrank_spider.py), robots.txt
# obeyed, politeness delays off, CONCURRENCY requests at once in total and
# per host. newsrank runs `newsrank crawl -once` against a redis-server this
# script starts on a free port (flushed between runs).
#
# Printed: pages per second of each and the ratio (target: newsrank >= 3x
# Scrapy), CPU seconds per 1,000 pages (newsrank's process, and with the
# redis-server's CPU added; Scrapy's process from spider open to close), and
# peak RSS; then newsrank alone on BIG_ARTICLES articles (target: peak RSS
# under 100 MB for 10,000 articles). Pages = list pages + article pages
# (+ robots.txt for Scrapy, which counts it; disallowed pages are fetched by
# neither). Elapsed = the crawl itself (newsrank: produce + consume as
# reported by crawl -once; Scrapy: spider open to close).
#
# Needs: go, redis-server, redis-cli, /usr/bin/time, and Scrapy 2.8 for the
# system Python (Debian: apt-get install -y python3-scrapy; the script
# installs it when run as root and it is missing). SKIP_SCRAPY=1 skips it.
set -euo pipefail

ARTICLES=${ARTICLES:-2000}
BIG_ARTICLES=${BIG_ARTICLES:-10000}
CONCURRENCY=${CONCURRENCY:-8}
SKIP_SCRAPY=${SKIP_SCRAPY:-0}
PY=/usr/bin/python3

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/newsrank-crawl-bench.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

die() { echo "run.sh: $*" >&2; exit 1; }
for tool in go redis-server redis-cli /usr/bin/time; do
	command -v "$tool" >/dev/null || die "$tool not found"
done
if [ "$SKIP_SCRAPY" != 1 ] && ! "$PY" -c 'import scrapy' 2>/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing python3-scrapy..." >&2
		apt-get install -y -q python3-scrapy >/dev/null || die "apt-get install python3-scrapy failed"
	else
		die "Scrapy is missing: apt-get install -y python3-scrapy (or SKIP_SCRAPY=1)"
	fi
fi

echo "building newsrank and demoserve..." >&2
(cd "$root" && go build -o "$work/newsrank" ./cmd/newsrank && go build -o "$work/demoserve" ./bench/crawl/demoserve)

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.05; done
redis-cli -p "$redis_port" ping >/dev/null || die "redis-server did not start: $(cat "$work/redis.log")"

# serve N: starts demoserve with N articles; sets $base, writes $work/sources-N.yaml and truth-N.json.
serve() {
	local n=$1
	"$work/demoserve" -addr 127.0.0.1:0 -articles "$n" -sources html \
		-sources-out "$work/sources-$n.yaml" -truth-out "$work/truth-$n.json" >"$work/base-$n.txt" 2>"$work/demoserve-$n.log" &
	pids+=($!)
	for _ in $(seq 200); do [ -s "$work/base-$n.txt" ] && break; sleep 0.05; done
	base=$(head -1 "$work/base-$n.txt")
	[ -n "$base" ] || die "demoserve did not start: $(cat "$work/demoserve-$n.log")"
}

redis_cpu() { redis-cli -p "$redis_port" info cpu | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.3f", s}'; }

# newsrank_run N: crawls the site of N articles; prints "pages elapsed_s cpu_s redis_cpu_s rss_kb articles".
newsrank_run() {
	local n=$1
	local cfg="$work/config-$n.yaml"
	{
		cat <<-EOF
		log:
		  level: warn
		redis:
		  url: redis://127.0.0.1:$redis_port/0
		crawler:
		  workers: $CONCURRENCY
		  per_host_parallelism: $CONCURRENCY
		  delay: 0s
		  jitter: 0s
		EOF
		sed -n '/^  sources:/,$p' "$work/sources-$n.yaml"
	} >"$cfg"
	redis-cli -p "$redis_port" flushall >/dev/null
	local r0 r1
	r0=$(redis_cpu)
	/usr/bin/time -v -o "$work/time-$n.txt" "$work/newsrank" crawl -once -json -progress none -config "$cfg" \
		>"$work/newsrank-$n.json" 2>"$work/newsrank-$n.log" || {
		cat "$work/newsrank-$n.log" >&2
		die "newsrank crawl failed"
	}
	r1=$(redis_cpu)
	"$PY" - "$work/newsrank-$n.json" "$work/time-$n.txt" "$r0" "$r1" "$n" <<-'EOF'
	import json, re, sys
	rep = json.load(open(sys.argv[1]))
	t = open(sys.argv[2]).read()
	def field(name):
	    return float(re.search(re.escape(name) + r":\s*([0-9.]+)", t).group(1))
	tot = rep["total"]
	pages = tot["list_pages"] + tot["fetched"]
	articles = tot["stored"] + tot["too_old"]
	if articles != int(sys.argv[5]) or set(tot["failed"]) - {"robots"}:
	    sys.exit(f"newsrank stored {articles} of {sys.argv[5]} articles, failures {tot['failed']}")
	cpu = field("User time (seconds)") + field("System time (seconds)")
	print(pages, rep["elapsed_s"], cpu, float(sys.argv[4]) - float(sys.argv[3]),
	      int(field("Maximum resident set size (kbytes)")), articles)
	EOF
}


echo "demo site: $ARTICLES articles; concurrency $CONCURRENCY; $(nproc) CPUs" >&2
serve "$ARTICLES"
read -r n_pages n_el n_cpu n_rcpu n_rss n_art < <(newsrank_run "$ARTICLES")
n_rate=$("$PY" -c "print($n_pages / $n_el)")

echo
echo "== crawl of the demo site: $ARTICLES articles, concurrency $CONCURRENCY =="
printf "newsrank  %6d pages in %7.2fs  %8.1f pages/s  CPU %.2f s/1000 pages (%.2f with redis-server)  peak RSS %.1f MB\n" \
	"$n_pages" "$n_el" "$n_rate" "$("$PY" -c "print($n_cpu * 1000 / $n_pages)")" \
	"$("$PY" -c "print(($n_cpu + $n_rcpu) * 1000 / $n_pages)")" "$("$PY" -c "print($n_rss / 1024)")"

if [ "$SKIP_SCRAPY" != 1 ]; then
	"$PY" "$root/bench/crawl/newsrank_spider.py" --base "$base" --concurrency "$CONCURRENCY" \
		--truth "$work/truth-$ARTICLES.json" >"$work/scrapy.json" 2>"$work/scrapy.log" || {
		tail -20 "$work/scrapy.log" >&2
		die "the Scrapy spider failed"
	}
	read -r s_pages s_el s_rate s_cpu1k s_rss < <("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
print(s["pages"], s["elapsed_s"], s["pages_per_s"], s["cpu_s_per_1000_pages"], s["peak_rss_mb"])' "$work/scrapy.json")
	printf "scrapy    %6d pages in %7.2fs  %8.1f pages/s  CPU %.2f s/1000 pages                        peak RSS %.1f MB\n" \
		"$s_pages" "$s_el" "$s_rate" "$s_cpu1k" "$s_rss"
	ratio=$("$PY" -c "print($n_rate / $s_rate)")
	verdict=met
	"$PY" -c "import sys; sys.exit(0 if $ratio >= 3 else 1)" || verdict="NOT met"
	printf "ratio     newsrank/scrapy pages per second: %.2fx (target >= 3x: %s)\n" "$ratio" "$verdict"
fi

if [ "$BIG_ARTICLES" -gt 0 ]; then
	serve "$BIG_ARTICLES"
	read -r b_pages b_el b_cpu b_rcpu b_rss b_art < <(newsrank_run "$BIG_ARTICLES")
	verdict=met
	[ "$b_rss" -lt $((100 * 1024)) ] || verdict="NOT met"
	echo
	echo "== newsrank alone: $BIG_ARTICLES articles, concurrency $CONCURRENCY =="
	printf "newsrank  %6d pages in %7.2fs  %8.1f pages/s  CPU %.2f s/1000 pages (%.2f with redis-server)  peak RSS %.1f MB (target < 100 MB: %s)\n" \
		"$b_pages" "$b_el" "$("$PY" -c "print($b_pages / $b_el)")" "$("$PY" -c "print($b_cpu * 1000 / $b_pages)")" \
		"$("$PY" -c "print(($b_cpu + $b_rcpu) * 1000 / $b_pages)")" "$("$PY" -c "print($b_rss / 1024)")" "$verdict"
fi
