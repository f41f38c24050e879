#!/usr/bin/python3
"""Scrapy side of newsrank's crawl benchmark.

Crawls the demo news site (package demosite, served by bench/crawl/demoserve)
the way a plain list-page spider does: every section's HTML list pages,
following their "next" links, and every article page they link to, and
extracts title, post time (parsed to UTC) and comment count from each article
with per-section rules. robots.txt is obeyed (it disallows /private/, as for
newsrank); politeness delays and auto-throttling are off; concurrency is a
flag, to match newsrank's workers.

Needs Scrapy 2.8 (Debian: apt-get install -y python3-scrapy) and runs with the
system Python:

    /usr/bin/python3 bench/crawl/newsrank_spider.py --base http://127.0.0.1:8088 \
        --concurrency 8 [--out items.jsonl] [--truth truth.json]

At the end it prints one JSON line to stdout: pages fetched, articles
extracted, elapsed seconds and pages per second of the crawl, CPU seconds
(user + system, whole process, measured from spider open to close) per 1,000
pages, peak RSS, and with --truth the number of articles missing or extracted
wrongly compared with demoserve's -truth-out file.

It also runs under `scrapy runspider bench/crawl/newsrank_spider.py -a
base=http://127.0.0.1:8088 -s CONCURRENT_REQUESTS=8` (no summary line then).
"""

import argparse
import json
import resource
import sys
import time
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import scrapy
from scrapy import signals

SHANGHAI = ZoneInfo("Asia/Shanghai")

LIST_LINKS = "ul.news-list li.news-item a.title::attr(href)"
LIST_NEXT = "div.pager a.next::attr(href)"

# Per section: its first list page, and how to read its article pages.
# "time" is (css, strptime layout or None for ISO 8601, zone of naive times).
SECTIONS = {
    "guonei": {
        "list": "/guonei/",
        "title": "h1.article-title::text",
        "time": ("div.article-meta .post-time::text", "%Y-%m-%d %H:%M:%S", SHANGHAI),
        "comments": "div.article-meta .comment-count em::text",
    },
    "world": {
        "list": "/world/",
        "title": 'meta[property="og:title"]::attr(content)',
        "time": ('meta[property="article:published_time"]::attr(content)', None, None),
        "comments": "span.comment-count::text",
    },
    "tech": {
        "list": "/tech/list_1.html",
        "jsonld": True,  # title and time from the JSON-LD NewsArticle
        "comments": "span.comments-count::text",
    },
    "sports": {
        "list": "/sports/",
        "title": "h1.headline::text",
        "time": ("time::attr(datetime)", None, None),
        "comments": "b.n-comments::text",
    },
    "finance": {  # served in GBK; Scrapy decodes it from the Content-Type
        "list": "/finance/",
        "title": "#artTitle::text",
        "time": ("#pubtime::text", "%Y年%m月%d日 %H:%M:%S", SHANGHAI),
        "comments": "#cmtCount::text",
    },
    "news": {
        "list": "/news/",
        "title": "article h1.title::text",
        "time": ("div.info .time::text", "%Y-%m-%d %H:%M:%S", SHANGHAI),
        "comments": "span.tie-count::text",
    },
}


def parse_time(raw, layout, zone):
    raw = (raw or "").strip()
    if layout is None:
        t = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    else:
        t = datetime.strptime(raw, layout).replace(tzinfo=zone)
    return t.astimezone(timezone.utc)


class NewsrankSpider(scrapy.Spider):
    name = "newsrank_demo"
    custom_settings = {
        "ROBOTSTXT_OBEY": True,
        "DOWNLOAD_DELAY": 0,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "AUTOTHROTTLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "USER_AGENT": "newsrank-bench-scrapy/2.8",
    }

    def __init__(self, base="http://127.0.0.1:8088", sections=",".join(SECTIONS), *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.base = base.rstrip("/")
        self.sections = [s for s in sections.split(",") if s]
        unknown = [s for s in self.sections if s not in SECTIONS]
        if unknown:
            raise ValueError(f"unknown sections {unknown}: want some of {list(SECTIONS)}")
        self.errors = 0

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.opened, signal=signals.spider_opened)
        crawler.signals.connect(spider.closed_, signal=signals.spider_closed)
        return spider

    def opened(self, spider):
        self.usage_start = resource.getrusage(resource.RUSAGE_SELF)
        self.wall_start = time.monotonic()

    def closed_(self, spider, reason):
        self.usage_end = resource.getrusage(resource.RUSAGE_SELF)
        self.wall_end = time.monotonic()

    def start_requests(self):
        for sec in self.sections:
            yield scrapy.Request(self.base + SECTIONS[sec]["list"], callback=self.parse_list,
                                 cb_kwargs={"section": sec})

    def parse_list(self, response, section):
        for href in response.css(LIST_LINKS).getall():
            yield response.follow(href, callback=self.parse_article, cb_kwargs={"section": section})
        nxt = response.css(LIST_NEXT).get()
        if nxt:
            yield response.follow(nxt, callback=self.parse_list, cb_kwargs={"section": section})

    def parse_article(self, response, section):
        rules = SECTIONS[section]
        try:
            if rules.get("jsonld"):
                ld = json.loads(response.css('script[type="application/ld+json"]::text').get())
                title = ld["headline"]
                post = parse_time(ld["datePublished"], None, None)
            else:
                title = (response.css(rules["title"]).get() or "").strip()
                css, layout, zone = rules["time"]
                post = parse_time(response.css(css).get(), layout, zone)
            comments = int((response.css(rules["comments"]).get() or "").strip())
        except (ValueError, KeyError, TypeError) as e:
            self.errors += 1
            self.logger.warning("extract %s: %s", response.url, e)
            return
        if not title:
            self.errors += 1
            self.logger.warning("extract %s: no title", response.url)
            return
        yield {
            "url": response.url,
            "section": section,
            "title": title,
            "post_time": post.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "comments": comments,
        }


def check_truth(items, truth_path, base):
    """Counts ground-truth articles missing from items or extracted wrongly."""
    with open(truth_path, encoding="utf-8") as f:
        truth = json.load(f)
    got = {it["url"]: it for it in items}
    bad = 0
    for a in truth:
        it = got.get(base + a["Path"])
        want_time = parse_time(a["PostTime"], None, None).strftime("%Y-%m-%dT%H:%M:%SZ")
        if it is None or it["title"] != a["Title"] or it["post_time"] != want_time or it["comments"] != a["Comments"]:
            bad += 1
            if bad <= 5:
                print(f"truth mismatch: {a['Path']}: got {it}", file=sys.stderr)
    return bad, len(truth)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="http://127.0.0.1:8088", help="demo site base URL")
    ap.add_argument("--concurrency", type=int, default=8, help="concurrent requests (total and per host)")
    ap.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated sections to crawl")
    ap.add_argument("--out", help="write the extracted articles as JSON lines to this file")
    ap.add_argument("--truth", help="demoserve -truth-out file to check the results against")
    ap.add_argument("--log-level", default="WARNING")
    args = ap.parse_args()
    if args.concurrency < 1:
        ap.error("--concurrency must be >= 1")

    from scrapy.crawler import CrawlerProcess

    items = []
    settings = {
        "CONCURRENT_REQUESTS": args.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": args.concurrency,
        "CONCURRENT_REQUESTS_PER_IP": 0,
        "LOG_LEVEL": args.log_level,
    }
    if args.out:
        settings["FEEDS"] = {args.out: {"format": "jsonlines", "encoding": "utf8", "overwrite": True}}
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(NewsrankSpider)

    def collect(item, **_):
        items.append(dict(item))

    # Scrapy holds receivers weakly; collect stays referenced until main returns.
    crawler.signals.connect(collect, signal=signals.item_scraped)
    process.crawl(crawler, base=args.base, sections=args.sections)
    process.start()

    spider = crawler.spider
    stats = crawler.stats.get_stats()
    pages = stats.get("downloader/response_count", 0)
    wall = spider.wall_end - spider.wall_start
    u0, u1 = spider.usage_start, spider.usage_end
    cpu = (u1.ru_utime - u0.ru_utime) + (u1.ru_stime - u0.ru_stime)
    summary = {
        "tool": "scrapy",
        "scrapy_version": scrapy.__version__,
        "concurrency": args.concurrency,
        "pages": pages,
        "articles": len(items),
        "extract_errors": spider.errors,
        "http_errors": sum(v for k, v in stats.items()
                           if k.startswith("downloader/response_status_count/") and not k.endswith("/200")),
        "robots_forbidden": stats.get("robotstxt/forbidden", 0),
        "elapsed_s": round(wall, 3),
        "pages_per_s": round(pages / wall, 1) if wall > 0 else 0,
        "cpu_s": round(cpu, 3),
        "cpu_s_per_1000_pages": round(cpu * 1000 / pages, 3) if pages else 0,
        "peak_rss_mb": round(u1.ru_maxrss / 1024, 1),
    }
    if args.truth:
        bad, total = check_truth(items, args.truth, args.base.rstrip("/"))
        summary["truth_articles"] = total
        summary["truth_mismatches"] = bad
    print(json.dumps(summary))
    if spider.errors or summary.get("truth_mismatches"):
        sys.exit(1)


if __name__ == "__main__":
    main()
