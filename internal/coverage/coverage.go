// Package coverage is a labelled set of news coverage written by hand:
// events reported by several outlets, each in its own words, in Chinese
// and English, with pairs of different events that look alike. It loads
// the set (embedded from testdata), splits it into a tuning half and a
// held-out half, and measures a grouping of its articles into stories:
// pair precision and recall, look-alike events merged, and the pairs of
// a story's copies in two languages found.
package coverage

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

//go:embed testdata
var embedded embed.FS

// The splits: thresholds and weights are chosen on Tune only; HeldOut
// reports how the choice does on events it never saw.
const (
	Tune    = "tune"
	HeldOut = "heldout"
)

// The languages of the set.
const (
	Chinese = "zh"
	English = "en"
)

// Article is one outlet's report of an event.
type Article struct {
	Event     string    `json:"event"`
	Split     string    `json:"split"`
	Lang      string    `json:"lang"`
	Outlet    string    `json:"outlet"`
	Published time.Time `json:"published"`
	Title     string    `json:"title"`
	Summary   string    `json:"summary"`
	Lead      string    `json:"lead"`
	// File and Line say where the article is written (not in the JSON).
	File string `json:"-"`
	Line int    `json:"-"`
}

// LookAlike is a pair of different events that look alike (one kind of
// event, the same actor, another day's figure) and must not be grouped.
type LookAlike struct {
	A   string `json:"a"`
	B   string `json:"b"`
	Why string `json:"why"`
}

// Set is a labelled set: its articles, in the order of their files (by
// name) and lines, and its look-alike pairs.
type Set struct {
	Articles   []Article
	LookAlikes []LookAlike
	// Files is how many set-*.jsonl files the set was read from.
	Files int
}

// Load reads the embedded set (testdata/set-*.jsonl and
// testdata/lookalike-*.jsonl) and validates it.
func Load() (*Set, error) { return LoadFS(embedded, "testdata") }

// MustLoad is Load for package-level variables: it panics when the
// embedded set does not load (the package's own tests say why).
func MustLoad() *Set {
	s, err := Load()
	if err != nil {
		panic(err)
	}
	return s
}

// LoadFS reads a set from the files set-*.jsonl and lookalike-*.jsonl of
// dir in fsys and validates it: an error names the file and line.
func LoadFS(fsys fs.FS, dir string) (*Set, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	s := &Set{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		p := path.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "set-"):
			s.Files++
			err = readLines(fsys, p, func(line int, b []byte) error {
				var a Article
				if err := decode(b, &a); err != nil {
					return err
				}
				a.File, a.Line = p, line
				if err := a.validate(); err != nil {
					return err
				}
				s.Articles = append(s.Articles, a)
				return nil
			})
		case strings.HasPrefix(name, "lookalike-"):
			err = readLines(fsys, p, func(line int, b []byte) error {
				var l LookAlike
				if err := decode(b, &l); err != nil {
					return err
				}
				if l.A == "" || l.B == "" || l.A == l.B {
					return fmt.Errorf("a look-alike pair needs two different events, got a %q b %q", l.A, l.B)
				}
				s.LookAlikes = append(s.LookAlikes, l)
				return nil
			})
		}
		if err != nil {
			return nil, fmt.Errorf("coverage: %w", err)
		}
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	return s, nil
}

// readLines calls fn with each non-blank line of file p and its number;
// an error is wrapped with the file and line.
func readLines(fsys fs.FS, p string, fn func(line int, b []byte) error) error {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if b := bytes.TrimSpace(sc.Bytes()); len(b) > 0 {
			if err := fn(n, b); err != nil {
				return fmt.Errorf("%s:%d: %w", p, n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// decode decodes one JSON object, refusing unknown fields.
func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// validate checks one article's fields.
func (a *Article) validate() error {
	switch {
	case strings.TrimSpace(a.Event) == "":
		return errors.New("event is empty")
	case a.Split != Tune && a.Split != HeldOut:
		return fmt.Errorf("split must be %q or %q, got %q", Tune, HeldOut, a.Split)
	case a.Lang != Chinese && a.Lang != English:
		return fmt.Errorf("lang must be %q or %q, got %q", Chinese, English, a.Lang)
	case strings.TrimSpace(a.Outlet) == "":
		return errors.New("outlet is empty")
	case a.Published.IsZero():
		return errors.New("published is missing")
	case strings.TrimSpace(a.Title) == "":
		return errors.New("title is empty")
	case strings.TrimSpace(a.Summary) == "" && strings.TrimSpace(a.Lead) == "":
		return errors.New("summary and lead are both empty")
	}
	return nil
}

// check checks what holds across lines: an event has one split, an
// outlet reports an event once per language, and look-alike pairs name
// events of the set.
func (s *Set) check() error {
	split := make(map[string]*Article)
	copies := make(map[[3]string]*Article)
	for i := range s.Articles {
		a := &s.Articles[i]
		if b := split[a.Event]; b != nil && b.Split != a.Split {
			return fmt.Errorf("%s:%d: event %s is in split %s here and %s at %s:%d", a.File, a.Line, a.Event, a.Split, b.Split, b.File, b.Line)
		} else if b == nil {
			split[a.Event] = a
		}
		k := [3]string{a.Event, a.Lang, a.Outlet}
		if b := copies[k]; b != nil {
			return fmt.Errorf("%s:%d: outlet %s reports event %s in %s twice (also %s:%d)", a.File, a.Line, a.Outlet, a.Event, a.Lang, b.File, b.Line)
		}
		copies[k] = a
	}
	seen := make(map[[2]string]bool)
	for _, l := range s.LookAlikes {
		for _, e := range []string{l.A, l.B} {
			if split[e] == nil {
				return fmt.Errorf("look-alike pair %s, %s: event %s has no article", l.A, l.B, e)
			}
		}
		k := [2]string{min(l.A, l.B), max(l.A, l.B)}
		if seen[k] {
			return fmt.Errorf("look-alike pair %s, %s is listed twice", l.A, l.B)
		}
		seen[k] = true
	}
	return nil
}

// Split returns the part of s in split (Tune or HeldOut): its articles,
// in order, and the look-alike pairs whose two events are both in it.
func (s *Set) Split(split string) *Set {
	out := &Set{Files: s.Files}
	in := make(map[string]bool)
	for _, a := range s.Articles {
		if a.Split == split {
			out.Articles = append(out.Articles, a)
			in[a.Event] = true
		}
	}
	for _, l := range s.LookAlikes {
		if in[l.A] && in[l.B] {
			out.LookAlikes = append(out.LookAlikes, l)
		}
	}
	return out
}

// Span is how long s's reports span, from the first published to the
// last.
func (s *Set) Span() time.Duration {
	if len(s.Articles) == 0 {
		return 0
	}
	first, last := s.Articles[0].Published, s.Articles[0].Published
	for _, a := range s.Articles {
		if a.Published.Before(first) {
			first = a.Published
		}
		if a.Published.After(last) {
			last = a.Published
		}
	}
	return last.Sub(first)
}

// Window is a story window that holds all of s: its span (its slices
// were written weeks apart) and two days more, so that every report of
// it is stored and measured.
func (s *Set) Window() time.Duration { return s.Span() + 48*time.Hour }

// ByPublished returns the indexes of s.Articles in publication order
// (ties in the set's order): the order a crawl would bring them in.
func (s *Set) ByPublished() []int {
	order := make([]int, len(s.Articles))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return s.Articles[i].Published.Compare(s.Articles[j].Published)
	})
	return order
}
