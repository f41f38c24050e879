package demosite

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// wordLists holds the embedded word lists (assets/words.txt) by name.
type wordLists map[string][]string

// parseWords reads the "[name]" / one-entry-per-line format of words.txt.
func parseWords(data []byte) (wordLists, error) {
	w := wordLists{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			cur = line[1 : len(line)-1]
			if _, dup := w[cur]; dup {
				return nil, fmt.Errorf("words.txt:%d: list %q defined twice", n, cur)
			}
			w[cur] = nil
		case cur == "":
			return nil, fmt.Errorf("words.txt:%d: entry %q before any [list]", n, line)
		default:
			w[cur] = append(w[cur], line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("words.txt: %w", err)
	}
	for name, list := range w {
		if len(list) == 0 {
			return nil, fmt.Errorf("words.txt: list %q is empty", name)
		}
	}
	return w, nil
}

// pick returns a random entry of the named list. A missing list is a
// programming error in this package, caught by every test.
func (w wordLists) pick(r *rand.Rand, name string) string {
	list, ok := w[name]
	if !ok {
		panic("demosite: no word list " + name)
	}
	return list[r.IntN(len(list))]
}

// pickOther returns an entry of the named list different from not.
func (w wordLists) pickOther(r *rand.Rand, name, not string) string {
	for {
		if s := w.pick(r, name); s != not {
			return s
		}
	}
}

// fill replaces {list} placeholders (e.g. "{place}") with random entries of
// the "zh.<list>" or "en.<list>" lists of lang.
func (w wordLists) fill(r *rand.Rand, lang, s string) string {
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return s
		}
		key := s[i+1 : i+j]
		s = s[:i] + w.pick(r, lang+"."+key) + s[i+j+1:]
	}
}
