package config

import (
	"fmt"

	"github.com/newsrank/newsrank/crawler"
	"github.com/newsrank/newsrank/crawler/extract"
	"github.com/newsrank/newsrank/crawler/fetch"
)

// Options translates the crawler section into crawler.Options, with the
// sources' selectors compiled (by Validate, which reported the bad ones;
// the error names the first).
func (c Crawler) Options() (crawler.Options, error) {
	o := crawler.Options{
		Workers: c.Workers,
		Options: fetch.Options{
			UserAgent:           c.UserAgent,
			RequestTimeout:      c.RequestTimeout.D(),
			MaxBodySize:         int64(c.MaxBodySize),
			MaxRedirects:        c.MaxRedirects,
			DenyPrivateNetworks: c.DenyPrivateNetworks,
			ObeyRobots:          c.ObeyRobots,
			RobotsTTL:           c.RobotsTTL.D(),
			PerHostParallelism:  c.PerHostParallelism,
			Delay:               c.Delay.D(),
			Jitter:              c.Jitter.D(),
		},
		ListAttempts: c.ListAttempts,
		Poll:         crawler.PollOptions{Min: c.Poll.Min.D(), Max: c.Poll.Max.D()},
	}
	for i, s := range c.Sources {
		src, err := s.options(c.selectors)
		if err != nil {
			return crawler.Options{}, fmt.Errorf("crawler.sources[%d]: %w", i, err)
		}
		o.Sources = append(o.Sources, src)
	}
	return o, nil
}

// options translates one source, with the selectors Validate compiled
// (the others, in a source Validate did not see, compiled here).
func (s Source) options(compiled map[string]extract.Selector) (crawler.Source, error) {
	o := crawler.Source{
		Name: s.Name, Label: s.Label, Kind: s.Kind, URLs: s.URLs,
		AllowedDomains: s.AllowedDomains, Groups: s.Groups, MaxPages: s.MaxPages,
		PageTemplate: s.PageTemplate, FirstPage: s.FirstPage,
		JSON: extract.JSONList{ItemsPath: s.JSON.ItemsPath, URLTemplate: s.JSON.URLTemplate, Fields: s.JSON.Fields,
			Offset: extract.OffsetPagination{Start: s.JSON.Offset.Start, Step: s.JSON.Offset.Step, Limit: s.JSON.Offset.Limit}},
		Config: extract.Config{TimeLayouts: s.TimeLayouts, TimeZone: s.TimeZone, Charset: s.Charset},
	}
	x := s.Extract
	for _, f := range []struct {
		name string
		sel  string
		dst  *extract.Selector
	}{
		{"link_selector", s.LinkSelector, &o.LinkSelector},
		{"next_selector", s.NextSelector, &o.NextSelector},
		{"extract.title", x.Title, &o.Selectors.Title},
		{"extract.post_time", x.PostTime, &o.Selectors.PostTime},
		{"extract.source", x.Source, &o.Selectors.Source},
		{"extract.summary", x.Summary, &o.Selectors.Summary},
		{"extract.image", x.Image, &o.Selectors.Image},
		{"extract.comments", x.Comments, &o.Selectors.Comments},
		{"extract.body", x.Body, &o.Selectors.Body},
		{"extract.lead", x.Lead, &o.Selectors.Lead},
	} {
		sel, ok := compiled[f.sel]
		var err error
		if !ok {
			sel, err = extract.CompileSelector(f.sel)
		}
		if err != nil {
			return crawler.Source{}, fmt.Errorf("source %s: %s: %w", s.Name, f.name, err)
		}
		*f.dst = sel
	}
	return o, nil
}

// crawlerFromOptions is the crawler section holding o, without sources:
// the defaults are written once, in package crawler.
func crawlerFromOptions(o crawler.Options) Crawler {
	return Crawler{
		Workers:             o.Workers,
		UserAgent:           o.UserAgent,
		RequestTimeout:      Duration(o.RequestTimeout),
		MaxBodySize:         Size(o.MaxBodySize),
		MaxRedirects:        o.MaxRedirects,
		DenyPrivateNetworks: o.DenyPrivateNetworks,
		ObeyRobots:          o.ObeyRobots,
		RobotsTTL:           Duration(o.RobotsTTL),
		PerHostParallelism:  o.PerHostParallelism,
		Delay:               Duration(o.Delay),
		Jitter:              Duration(o.Jitter),
		ListAttempts:        o.ListAttempts,
		Poll:                Poll{Min: Duration(o.Poll.Min), Max: Duration(o.Poll.Max)},
	}
}
