package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/fetch"
)

// printCrawlSummary prints one line per source and the totals.
func printCrawlSummary(w io.Writer, rep crawler.Report) {
	prod := map[string]crawler.SourceProduce{}
	for _, p := range rep.Produce.Sources {
		prod[p.Name] = p
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "source\tlist pages\tnot modified\tunchanged\tURLs found\tnew\trefreshed\tpushes retried\tfetched\tstored\tupdated\ttoo old\tfailed\trobots\tdead\tleft\tretry later\t")
	var tp crawler.SourceProduce
	row := func(s crawler.SourceReport, p crawler.SourceProduce) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Name, p.Pages, p.NotModified, p.Unchanged, p.Found, p.New, p.Refreshed, p.Retried,
			s.Fetched, s.Created, s.Updated, s.TooOld, s.Failures()-s.Disallowed(), s.Disallowed(), s.Dead, s.Left.Pending+s.Left.InFlight, s.Left.Delayed)
	}
	for _, s := range rep.Sources {
		p := prod[s.Name]
		addProduce(&tp, p)
		row(s, p)
	}
	t := rep.Totals()
	row(t, tp)
	tw.Flush()
	reasons := make([]string, 0, len(t.Failed))
	for r := range t.Failed {
		if r != fetch.ReasonRobots {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) > 0 {
		sort.Slice(reasons, func(i, j int) bool {
			return t.Failed[reasons[i]] > t.Failed[reasons[j]] || t.Failed[reasons[i]] == t.Failed[reasons[j]] && reasons[i] < reasons[j]
		})
		var parts []string
		for _, r := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", r, t.Failed[r]))
		}
		fmt.Fprintf(w, "failures: %s  (newsrank queue dead: the dead letters)\n", strings.Join(parts, ", "))
	}
	if n := t.Disallowed(); n > 0 {
		fmt.Fprintf(w, "robots: %s disallowed by robots.txt, not fetched (dead letters with reason robots)\n", plural(n, "URL"))
	}
	if tp.Discarded > 0 {
		fmt.Fprintf(w, "read ahead: %s read ahead past where a walk stopped and not used (not among the list pages)\n", plural(tp.Discarded, "list page"))
	}
	if n := t.Left.Delayed; n > 0 && !rep.Interrupted {
		fmt.Fprintf(w, "retry later: %s wait for a retry that is not due yet: the next crawl -once or a daemon's consumers fetch them "+
			"(crawl -once -wait-retries waits for those due soon)\n", plural(n, "URL"))
	}
	for _, p := range rep.Produce.Sources {
		if p.Err != nil && !slices.Contains(rep.InterruptedSources(), p.Name) {
			fmt.Fprintf(w, "source %s could not be read: %v\n", p.Name, p.Err)
		}
	}
	rate := 0.0
	if secs := rep.Elapsed.Seconds(); secs > 0 {
		rate = float64(t.Fetched) / secs
	}
	fmt.Fprintf(w, "took %s, %.1f article pages/s\n", rep.Elapsed.Round(time.Millisecond), rate)
}

// addProduce adds a source's list counts to the totals tp.
func addProduce(tp *crawler.SourceProduce, p crawler.SourceProduce) {
	tp.Pages += p.Pages
	tp.NotModified += p.NotModified
	tp.Unchanged += p.Unchanged
	tp.PageErrors += p.PageErrors
	tp.Discarded += p.Discarded
	tp.Found += p.Found
	tp.New += p.New
	tp.Refreshed += p.Refreshed
	tp.Retried += p.Retried
}

// crawlJSON is the -json summary of one source or of the total.
type crawlJSON struct {
	Source    string `json:"source"`
	ListPages int    `json:"list_pages"`
	// NotModified list pages answered 304, Unchanged ones had the same
	// body as at their last answer: neither was parsed again.
	NotModified int `json:"list_pages_not_modified"`
	Unchanged   int `json:"list_pages_unchanged"`
	PageErrors  int `json:"list_page_errors"`
	// Discarded list pages were read ahead past where a walk stopped.
	Discarded  int              `json:"list_pages_discarded"`
	Found      int              `json:"urls_found"`
	New        int              `json:"urls_new"`
	Refreshed  int              `json:"refreshed"`
	Retried    int              `json:"pushes_retried"`
	Fetched    int64            `json:"fetched"`
	Created    int64            `json:"stored"`
	Updated    int64            `json:"updated"`
	TooOld     int64            `json:"too_old"`
	Failed     map[string]int64 `json:"failed"`
	Robots     int64            `json:"robots"`
	Dead       int64            `json:"dead"`
	Left       int64            `json:"left"`
	RetryLater int64            `json:"retry_later"`
	Error      string           `json:"error,omitempty"`
}

func printCrawlJSON(w io.Writer, rep crawler.Report) {
	prod := map[string]crawler.SourceProduce{}
	for _, p := range rep.Produce.Sources {
		prod[p.Name] = p
	}
	view := func(s crawler.SourceReport, p crawler.SourceProduce) crawlJSON {
		v := crawlJSON{Source: s.Name, ListPages: p.Pages, NotModified: p.NotModified, Unchanged: p.Unchanged, PageErrors: p.PageErrors, Discarded: p.Discarded, Found: p.Found, New: p.New, Refreshed: p.Refreshed, Retried: p.Retried,
			Fetched: s.Fetched, Created: s.Created, Updated: s.Updated, TooOld: s.TooOld, Failed: s.Failed, Robots: s.Disallowed(), Dead: s.Dead,
			Left: s.Left.Pending + s.Left.InFlight, RetryLater: s.Left.Delayed}
		if p.Err != nil {
			v.Error = p.Err.Error()
		}
		return v
	}
	out := struct {
		Sources  []crawlJSON `json:"sources"`
		Total    crawlJSON   `json:"total"`
		ElapsedS float64     `json:"elapsed_s"`
		Failed   []string    `json:"failed_sources"`
		// Interrupted: a signal stopped the crawl; the counts are until then.
		Interrupted bool `json:"interrupted"`
	}{ElapsedS: rep.Elapsed.Seconds(), Failed: rep.FailedSources(), Interrupted: rep.Interrupted}
	var tp crawler.SourceProduce
	for _, s := range rep.Sources {
		p := prod[s.Name]
		addProduce(&tp, p)
		out.Sources = append(out.Sources, view(s, p))
	}
	out.Total = view(rep.Totals(), tp)
	if out.Failed == nil {
		out.Failed = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}
