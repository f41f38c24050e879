package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxPage bounds page numbers so that offsets stay far from overflow.
const maxPage = 1_000_000

// queryParams reads query parameters, refusing unknown ones, repeated
// ones and bad values with a 400 naming the parameter.
type queryParams struct {
	v url.Values
}

func params(r *http.Request, allowed ...string) (queryParams, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return queryParams{}, invalidf("query string: %v", err)
	}
	for k, vals := range v {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			if len(allowed) == 0 {
				return queryParams{}, invalidf("unknown query parameter %q: this endpoint takes none", k)
			}
			return queryParams{}, invalidf("unknown query parameter %q: allowed are %s", k, strings.Join(allowed, ", "))
		}
		if len(vals) > 1 {
			return queryParams{}, invalidf("query parameter %q given %d times", k, len(vals))
		}
	}
	return queryParams{v: v}, nil
}

func (q queryParams) str(name string) string { return strings.TrimSpace(q.v.Get(name)) }

// intIn reads an integer parameter in [lo, hi]; def when absent.
func (q queryParams) intIn(name string, def, lo, hi int) (int, error) {
	s := q.str(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, invalidf("%s must be a whole number, got %q", name, s)
	}
	if n < lo || n > hi {
		return 0, invalidf("%s must be between %d and %d, got %d", name, lo, hi, n)
	}
	return n, nil
}

// oneOf reads a parameter that must be one of choices; def when absent.
func (q queryParams) oneOf(name, def string, choices ...string) (string, error) {
	s := q.str(name)
	if s == "" {
		return def, nil
	}
	for _, c := range choices {
		if s == c {
			return s, nil
		}
	}
	return "", invalidf("%s must be one of %s, got %q", name, strings.Join(choices, ", "), s)
}
