package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLead: the lead is the first paragraphs of the body, from the
// source's body selector, JSON-LD's articleBody, the articleBody or
// <article> element, or the page's paragraphs, in that order; white space
// collapsed, empty paragraphs skipped, LeadParagraphs and LeadMax
// characters at most.
func TestLead(t *testing.T) {
	long := strings.Repeat("长", LeadMax-10)
	tests := []struct {
		name, page string
		body       Selector
		want       string
	}{
		{
			name: "body selector",
			page: `<nav><p>Home</p></nav><div class="body"><p>First
			  paragraph.</p><p> </p><figure><p>Second.</p></figure><p>Third.</p><p>Fourth.</p></div><p>Comments</p>`,
			body: sel("div.body"),
			want: "First paragraph.\n\nSecond.\n\nThird.",
		},
		{
			name: "body selector without paragraphs",
			page: `<div class="body">Text <b>without</b> paragraphs.</div><div class="body">More.</div>`,
			body: sel("div.body"),
			want: "Text without paragraphs.\n\nMore.",
		},
		{
			name: "body selector naming the paragraphs",
			page: `<div class="c"><p>One.</p><p>Two.</p></div>`,
			body: sel("div.c p"),
			want: "One.\n\nTwo.",
		},
		{
			name: "JSON-LD articleBody",
			page: `<script type="application/ld+json">{"@type":"NewsArticle","headline":"H","articleBody":"Line one.\n\nLine  two.\nLine three.\nLine four."}</script><p>Other.</p>`,
			want: "Line one.\n\nLine two.\n\nLine three.",
		},
		{
			name: "articleBody element",
			page: `<p>Teaser.</p><div itemprop="articleBody"><p>Body one.</p><p>Body two.</p></div>`,
			want: "Body one.\n\nBody two.",
		},
		{
			name: "article element",
			page: `<header><p>Menu</p></header><article><h1>T</h1><p>Art one.</p></article>`,
			want: "Art one.",
		},
		{
			name: "the page's paragraphs",
			page: `<div><p>P one.</p><p></p><p>P two.</p></div>`,
			want: "P one.\n\nP two.",
		},
		{
			name: "cut at LeadMax",
			page: `<article><p>` + long + `</p><p>一二三四五六七八九十一二三四五</p><p>more</p></article>`,
			want: long + "\n\n一二三四五六七八九十",
		},
		{
			name: "no body",
			page: `<h1>Only a title</h1>`,
			want: "",
		},
	}
	rules, err := NewRules(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := *rules
			r.sel.Body = tt.body
			page, err := Extract([]byte("<html><head><title>T</title></head><body>"+tt.page+"</body></html>"),
				"text/html; charset=utf-8", "https://example.com/a", &r, testNow, Fields{})
			if err != nil {
				t.Fatal(err)
			}
			if page.Lead != tt.want {
				t.Errorf("Lead = %q, want %q", page.Lead, tt.want)
			}
			if n := utf8.RuneCountInString(strings.ReplaceAll(page.Lead, "\n\n", "")); n > LeadMax {
				t.Errorf("Lead has %d characters, want at most %d", n, LeadMax)
			}
		})
	}
}
