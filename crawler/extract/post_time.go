package extract

import (
	"github.com/newsrank/newsrank/crawler/dates"
)

// An article page's post time, when neither the source's selector nor
// the list item gave one, is chosen by package dates among the dates the
// page carries. The page's data claim theirs here: the JSON-LD article's
// keys, another JSON-LD object's (a WebPage, a video), then the <meta>
// tags', in the order of the tables below.

// metaDateKeys are the <meta> keys that carry a date, in the order they
// are read, and what kind of date they carry.
var metaDateKeys = [...]struct {
	key  string
	kind dates.Kind
}{
	{"property=article:published_time", dates.Published}, {"name=article:published_time", dates.Published},
	{"property=og:article:published_time", dates.Published}, {"itemprop=datepublished", dates.Published},
	{"property=og:published_time", dates.Published}, {"name=og:published_time", dates.Published},
	{"name=pubdate", dates.Published}, {"name=publishdate", dates.Published}, {"name=publish-date", dates.Published},
	{"name=publish_date", dates.Published}, {"name=publication_date", dates.Published},
	{"property=publication_date", dates.Published}, {"name=date", dates.Generic}, {"name=dc.date", dates.Generic},
	{"name=dc.date.issued", dates.Published}, {"name=dc.date.created", dates.Published},
	{"name=dcterms.created", dates.Published}, {"name=dcterms.issued", dates.Published},
	{"name=dcterms.date", dates.Generic}, {"name=citation_publication_date", dates.Published},
	{"name=citation_date", dates.Published}, {"name=sailthru.date", dates.Published},
	{"name=parsely-pub-date", dates.Published}, {"name=article.published", dates.Published},
	{"name=article_date_original", dates.Published}, {"name=original-publish-date", dates.Published},
	{"name=pub_date", dates.Published}, {"name=date_published", dates.Published},
	{"itemprop=datecreated", dates.Published}, {"name=created", dates.Published},
	{"property=article:modified_time", dates.Modified}, {"property=og:updated_time", dates.Modified},
	{"name=og:updated_time", dates.Modified}, {"itemprop=datemodified", dates.Modified},
	{"name=last-modified", dates.Modified}, {"name=dcterms.modified", dates.Modified},
}

// ldDateKeys are the JSON-LD keys of a date, in the order they are read.
var ldDateKeys = [...]struct {
	key  string
	kind dates.Kind
}{
	{"datePublished", dates.Published}, {"dateCreated", dates.Published}, {"uploadDate", dates.Published},
	{"startDate", dates.Published}, {"dateModified", dates.Modified},
}

// dateClaims are the dates of the page's data: the JSON-LD article's,
// the other dated JSON-LD object's, the <meta> tags'.
func dateClaims(ld jsonLD, m metas) []dates.Claim {
	var out []dates.Claim
	for _, o := range [...]struct {
		obj  map[string]any
		from string
	}{{ld.obj, "json-ld"}, {ld.dated, "json-ld " + typeName(ld.dated)}} {
		for _, k := range ldDateKeys {
			if v := str(o.obj[k.key]); v != "" {
				out = append(out, dates.Claim{Text: v, From: o.from + " " + k.key, Kind: k.kind})
			}
		}
	}
	for _, k := range metaDateKeys {
		if v := m[k.key]; v != "" {
			out = append(out, dates.Claim{Text: v, From: "meta " + k.key, Kind: k.kind})
		}
	}
	return out
}

// typeName is a JSON-LD object's @type, for where a date came from.
func typeName(o map[string]any) string {
	if s := str(o["@type"]); s != "" {
		return s
	}
	return "object"
}
