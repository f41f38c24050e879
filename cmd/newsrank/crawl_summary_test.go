package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/newsrank/newsrank/crawler"
)

// TestCrawlSummaryCountsReadAhead: list pages read ahead past where a walk
// stopped show in the text summary and in -json, summed over the sources.
func TestCrawlSummaryCountsReadAhead(t *testing.T) {
	rep := crawler.Report{
		Produce: crawler.ProduceReport{Sources: []crawler.SourceProduce{
			{Name: "a", Pages: 5, Discarded: 2},
			{Name: "b", Pages: 3, Discarded: 1},
		}},
		Sources: []crawler.SourceReport{{Name: "a"}, {Name: "b"}},
	}
	var text bytes.Buffer
	printCrawlSummary(&text, rep)
	if !strings.Contains(text.String(), "read ahead: 3 list pages read ahead past where a walk stopped") {
		t.Errorf("text summary lacks the read-ahead line:\n%s", text.String())
	}
	var js bytes.Buffer
	printCrawlJSON(&js, rep)
	var out struct {
		Sources []struct {
			Discarded int `json:"list_pages_discarded"`
		} `json:"sources"`
		Total struct {
			Discarded int `json:"list_pages_discarded"`
		} `json:"total"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Sources) != 2 || out.Sources[0].Discarded != 2 || out.Sources[1].Discarded != 1 || out.Total.Discarded != 3 {
		t.Errorf("-json: %+v\n%s", out, js.String())
	}

	rep.Produce.Sources[0].Discarded, rep.Produce.Sources[1].Discarded = 0, 0
	text.Reset()
	printCrawlSummary(&text, rep)
	if strings.Contains(text.String(), "read ahead") {
		t.Errorf("a crawl that discarded nothing mentions read-ahead:\n%s", text.String())
	}
}
