#!/usr/bin/env bash
# Crawl benchmark: newsrank against the ceilings of fetching and parsing
# alone, and against Scrapy 2.8, on the bundled demo news site.
#
#   bench/crawl/run.sh            # 3,000 articles, 3 rounds; 100,000 for flat pages/s and RSS
#   ARTICLES=5000 CONCURRENCY=16 ROUNDS=5 BIG_ARTICLES=0 SKIP_SCRAPY=1 bench/crawl/run.sh
#   NEWSRANK=/path/to/old/newsrank bench/crawl/run.sh   # measure another build of newsrank
#   LISTS_ONLY=1 bench/crawl/run.sh   # the list-API site alone (below), no Scrapy, no 100,000
#
# Every crawler reads the same pages the same way: every section's HTML
# list pages through their "next" links and every article page they link
# to (demoserve -sources html; the spider in newsrank_spider.py), robots.txt
# obeyed, politeness delays off, CONCURRENCY requests at once in total and
# per host. newsrank runs `newsrank crawl -once` against a redis-server this
# script starts on a free port (flushed between runs).
#
# The ceilings (bench/crawl/ceiling) get the same pages with net/http,
# CONCURRENCY at once: "fetch" reads each body, "parse" also parses it
# with goquery and reads its title and h1. ROUNDS rounds alternate fetch,
# parse and newsrank in one run; printed are the medians: pages per second,
# CPU ms per page of the crawler's own process (newsrank: its whole run,
# start-up included; the ceilings: the timed part) and of redis-server
# (read from /proc), and the demo site's CPU ms per page (the site is not
# the limit when that is small), then newsrank's pages/s as a fraction of
# the fetch+parse ceiling's (target >= 0.5x). Scrapy, once, after them
# (target: newsrank >= 3x Scrapy's pages/s). Then the same rounds of
# fetch, parse and newsrank on a second site, shaped like NetEase's JSONP
# list APIs (demoserve -site lists): LISTS_CHANNELS sources (3) of
# offset-paginated list pages of 20 items, LISTS_ARTICLES small articles
# (3,000: 50 pages a source); its list pages' URLs are known in advance,
# and newsrank reads them ahead (target: newsrank >= 0.5x the fetch+parse
# ceiling there too). LISTS_ARTICLES=0 skips it. Then newsrank alone on
# BIG_ARTICLES articles (targets: peak RSS under 100 MB, and pages/s and
# peak RSS flat against the medians of the ARTICLES rounds: >= 0.9x and
# <= 1.1x). Pages = list pages + article pages (+ robots.txt for Scrapy,
# which counts it; disallowed pages are fetched by none). Elapsed = the
# crawl itself (newsrank: produce + consume as reported by crawl -once;
# Scrapy: spider open to close; ceilings: the timed gets).
#
# Needs: go, redis-server, redis-cli, /usr/bin/time, /proc, and Scrapy 2.8
# for the system Python (Debian: apt-get install -y python3-scrapy; the
# script installs it when run as root and it is missing). SKIP_SCRAPY=1
# skips it.
set -euo pipefail

ARTICLES=${ARTICLES:-3000}
LISTS_ARTICLES=${LISTS_ARTICLES:-3000}
LISTS_CHANNELS=${LISTS_CHANNELS:-3}
LISTS_ONLY=${LISTS_ONLY:-0}
BIG_ARTICLES=${BIG_ARTICLES:-100000}
CONCURRENCY=${CONCURRENCY:-16}
ROUNDS=${ROUNDS:-3}
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

echo "building newsrank, demoserve and ceiling..." >&2
(cd "$root" && go build -o "$work/newsrank" ./cmd/newsrank && go build -o "$work/demoserve" ./bench/crawl/demoserve &&
	go build -o "$work/ceiling" ./bench/crawl/ceiling)
[ -z "${NEWSRANK:-}" ] || cp "$NEWSRANK" "$work/newsrank"

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
redis_pid=$!
for _ in $(seq 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.05; done
redis-cli -p "$redis_port" ping >/dev/null || die "redis-server did not start: $(cat "$work/redis.log")"

# serve N [TAG ARGS...]: starts demoserve with N articles (and ARGS: the demo
# site's HTML sources by default); sets $base, writes $work/sources-TAG.yaml
# and truth-TAG.json (TAG: N by default).
serve() {
	local n=$1 tag=${2:-$1}
	shift $(($# > 1 ? 2 : 1))
	[ $# -gt 0 ] || set -- -sources html
	"$work/demoserve" -addr 127.0.0.1:0 -articles "$n" "$@" \
		-sources-out "$work/sources-$tag.yaml" -truth-out "$work/truth-$tag.json" >"$work/base-$tag.txt" 2>"$work/demoserve-$tag.log" &
	pids+=($!)
	site_pid=$!
	for _ in $(seq 200); do [ -s "$work/base-$tag.txt" ] && break; sleep 0.05; done
	base=$(head -1 "$work/base-$tag.txt")
	[ -n "$base" ] || die "demoserve did not start: $(cat "$work/demoserve-$tag.log")"
}

# proc_cpu PID: the process's user + system CPU seconds so far, from /proc.
tck=$(getconf CLK_TCK)
proc_cpu() { awk -v t="$tck" '{printf "%.3f", ($14 + $15) / t}' "/proc/$1/stat"; }
redis_cpu() { proc_cpu "$redis_pid"; }

# newsrank_run N [TAG]: crawls the site of N articles served as TAG (N by
# default); prints "pages elapsed_s cpu_s redis_cpu_s rss_kb articles site_cpu_s".
newsrank_run() {
	local n=$1 tag=${2:-$1}
	local cfg="$work/config-$tag.yaml"
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
		sed -n '/^  sources:/,$p' "$work/sources-$tag.yaml"
	} >"$cfg"
	redis-cli -p "$redis_port" flushall >/dev/null
	local r0 r1 s0 s1
	r0=$(redis_cpu)
	s0=$(proc_cpu "$site_pid")
	/usr/bin/time -v -o "$work/time-$n.txt" "$work/newsrank" crawl -once -json -progress none -config "$cfg" \
		>"$work/newsrank-$n.json" 2>"$work/newsrank-$n.log" || {
		cat "$work/newsrank-$n.log" >&2
		die "newsrank crawl failed"
	}
	r1=$(redis_cpu)
	s1=$(proc_cpu "$site_pid")
	"$PY" - "$work/newsrank-$n.json" "$work/time-$n.txt" "$r0" "$r1" "$n" "$s0" "$s1" <<-'EOF'
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
	      int(field("Maximum resident set size (kbytes)")), articles, float(sys.argv[7]) - float(sys.argv[6]))
	EOF
}


# ceiling_run MODE [TAG]: the ceiling on the site served as TAG ($ARTICLES
# by default); prints "pages elapsed_s cpu_s site_cpu_s".
ceiling_run() {
	local s0 s1 tag=${2:-$ARTICLES}
	s0=$(proc_cpu "$site_pid")
	"$work/ceiling" -sources "$work/sources-$tag.yaml" -concurrency "$CONCURRENCY" -mode "$1" >"$work/ceiling.json" ||
		die "ceiling -mode $1 failed"
	s1=$(proc_cpu "$site_pid")
	"$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))
print(c["pages"], c["elapsed_s"], c["cpu_s"], float(sys.argv[3]) - float(sys.argv[2]))' "$work/ceiling.json" "$s0" "$s1"
}

# rounds N TAG: ROUNDS rounds of fetch, parse and newsrank on the site
# served as TAG (N articles), into $work/rounds-TAG.txt.
rounds() {
	local n=$1 tag=$2 round p el cpu scpu rcpu rss art
	: >"$work/rounds-$tag.txt"
	for round in $(seq "$ROUNDS"); do
		echo "round $round of $ROUNDS..." >&2
		read -r p el cpu scpu < <(ceiling_run fetch "$tag")
		echo "fetch $p $el $cpu 0 0 $scpu" >>"$work/rounds-$tag.txt"
		read -r p el cpu scpu < <(ceiling_run parse "$tag")
		echo "parse $p $el $cpu 0 0 $scpu" >>"$work/rounds-$tag.txt"
		read -r p el cpu rcpu rss art scpu < <(newsrank_run "$n" "$tag")
		echo "newsrank $p $el $cpu $rcpu $rss $scpu" >>"$work/rounds-$tag.txt"
	done
}

# table TAG: the medians of the rounds of the site served as TAG against the
# ceilings; writes newsrank's medians to $work/newsrank-median.txt.
table() {
	"$PY" - "$work/rounds-$1.txt" "$work/newsrank-median.txt" <<-'EOF'
	import statistics as st, sys
	rows = {}
	for line in open(sys.argv[1]):
	    name, pages, el, cpu, rcpu, rss, scpu = line.split()
	    rows.setdefault(name, []).append((int(pages), float(el), float(cpu), float(rcpu), int(rss), float(scpu)))
	med = {}
	for name, label in (("fetch", "net/http GET, bodies read"), ("parse", "GET + goquery, title and h1"), ("newsrank", "newsrank crawl -once")):
	    rs = rows[name]
	    pages = rs[0][0]
	    rate = st.median(p / el for p, el, *_ in rs)
	    cpu = st.median(c * 1000 / p for p, _, c, *_ in rs)
	    rcpu = st.median(r * 1000 / p for p, _, _, r, *_ in rs)
	    site = st.median(s * 1000 / p for p, *_, s in rs)
	    rss = st.median(r[4] for r in rs) / 1024
	    med[name] = (pages, st.median(el for _, el, *_ in rs), rate, st.median(r[4] for r in rs))
	    extra = f"  + redis-server {rcpu:.3f}  peak RSS {rss:.1f} MB" if name == "newsrank" else ""
	    print(f"{label:28s} {pages:6d} pages  {rate:8.0f} pages/s  CPU {cpu:.3f} ms/page{extra}  (demo site {site:.3f} ms/page)")
	ratio = med["newsrank"][2] / med["parse"][2]
	print(f"ratio newsrank/fetch+parse ceiling pages per second: {ratio:.2f}x (target >= 0.5x: {'met' if ratio >= 0.5 else 'NOT met'})")
	print(*med["newsrank"], file=open(sys.argv[2], "w"))
	EOF
}

if [ "$LISTS_ONLY" != 1 ]; then
echo "demo site: $ARTICLES articles; concurrency $CONCURRENCY; $ROUNDS rounds; $(nproc) CPUs" >&2
serve "$ARTICLES"
rounds "$ARTICLES" "$ARTICLES"

echo
echo "== crawl of the demo site: $ARTICLES articles, concurrency $CONCURRENCY, medians of $ROUNDS rounds =="
table "$ARTICLES"
read -r n_pages n_el n_rate n_rss <"$work/newsrank-median.txt"

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

fi # LISTS_ONLY

if [ "$LISTS_ARTICLES" -gt 0 ]; then
	echo "list-API site: $LISTS_ARTICLES articles, $LISTS_CHANNELS sources; concurrency $CONCURRENCY; $ROUNDS rounds" >&2
	serve "$LISTS_ARTICLES" lists -site lists -channels "$LISTS_CHANNELS"
	rounds "$LISTS_ARTICLES" lists
	echo
	echo "== crawl of the list-API site: $LISTS_CHANNELS JSONP sources of $((LISTS_ARTICLES / LISTS_CHANNELS / 20)) offset-paginated list pages, $LISTS_ARTICLES small articles, concurrency $CONCURRENCY, medians of $ROUNDS rounds =="
	table lists
fi

if [ "$LISTS_ONLY" != 1 ] && [ "$BIG_ARTICLES" -gt 0 ]; then
	serve "$BIG_ARTICLES"
	read -r b_pages b_el b_cpu b_rcpu b_rss b_art b_scpu < <(newsrank_run "$BIG_ARTICLES")
	verdict=met
	[ "$b_rss" -lt $((100 * 1024)) ] || verdict="NOT met"
	echo
	echo "== newsrank alone: $BIG_ARTICLES articles, concurrency $CONCURRENCY =="
	printf "newsrank  %6d pages in %7.2fs  %8.1f pages/s  CPU %.2f s/1000 pages (%.2f with redis-server)  peak RSS %.1f MB (target < 100 MB: %s)\n" \
		"$b_pages" "$b_el" "$("$PY" -c "print($b_pages / $b_el)")" "$("$PY" -c "print($b_cpu * 1000 / $b_pages)")" \
		"$("$PY" -c "print(($b_cpu + $b_rcpu) * 1000 / $b_pages)")" "$("$PY" -c "print($b_rss / 1024)")" "$verdict"
	"$PY" - "$b_pages" "$b_el" "$b_rss" "$n_rate" "$n_rss" "$BIG_ARTICLES" "$ARTICLES" <<-'EOF'
	import sys
	pages, el, rss, rate, rss0 = (float(a) for a in sys.argv[1:6])
	r, m = pages / el / rate, rss / rss0
	flat = r >= 0.9 and m <= 1.1
	print(f"flat      {sys.argv[6]} vs {sys.argv[7]} articles: pages/s {r:.2f}x, peak RSS {m:.2f}x"
	      f" (target: flat, pages/s >= 0.9x and peak RSS <= 1.1x: {'met' if flat else 'NOT met'})")
	EOF
fi
