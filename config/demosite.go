package config

import "github.com/newsrank/newsrank/demosite"

// DemoSources translates the demo site's sources (demosite.Site.Sources,
// HTMLSources) into crawler.sources entries.
func DemoSources(srcs []demosite.Source) []Source {
	out := make([]Source, 0, len(srcs))
	for _, d := range srcs {
		j, x := d.JSON, d.Extract
		out = append(out, Source{
			Name: d.Name, Label: d.Label, Kind: d.Kind, URLs: d.URLs, Groups: d.Groups, MaxPages: d.MaxPages,
			LinkSelector: d.LinkSelector, NextSelector: d.NextSelector, PageTemplate: d.PageTemplate, FirstPage: d.FirstPage,
			JSON: JSONList{ItemsPath: j.ItemsPath, URLTemplate: j.URLTemplate, Fields: j.Fields,
				Offset: OffsetPagination{Start: j.Offset.Start, Step: j.Offset.Step, Limit: j.Offset.Limit}},
			Extract:     Extract{Title: x.Title, PostTime: x.PostTime, Source: x.Source, Comments: x.Comments, Body: x.Body},
			TimeLayouts: d.TimeLayouts, TimeZone: d.TimeZone,
		})
	}
	return out
}
