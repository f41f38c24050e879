package extract

// furnitureClass's answer for the class and id values written in ASCII
// (nearly all of them), without the expression: its alternatives under
// (?i) cost the backtracker microseconds a value, and a real page has
// hundreds of values, more than the memo keeps across many sites. In
// ASCII, (?i) is ASCII case folding (the other folds of k and s, the
// Kelvin sign and the long s, are not ASCII), so the value lowered holds
// one of the words furnitureWords, or has furnitureTokens as a token
// between the start, the end, white space (\s: \t \n \f \r and space),
// '_' or '-', exactly when the expression matches it
// (TestFurnitureASCII holds the two to the expression).

// furnitureWords are furnitureClass's words matched anywhere, lowered,
// by their first byte (read-?more and more-?link written both ways).
var furnitureWords = func() [256][]string {
	var by [256][]string
	for _, w := range []string{"byline", "author", "caption", "credit", "share", "sharing", "social", "related",
		"recommend", "promo", "newsletter", "subscri", "signup", "sign-up", "advert", "sponsor", "breadcrumb",
		"crumbs", "readmore", "read-more", "morelink", "more-link", "copyright", "disclaimer", "sidebar", "widget",
		"footer", "teaser", "outbrain", "taboola", "cookie", "consent", "gdpr"} {
		by[w[0]] = append(by[w[0]], w)
	}
	return by
}()

// furnitureTokens are furnitureClass's words matched as a whole token.
var furnitureTokens = map[string]bool{"ad": true, "ads": true, "tag": true, "tags": true, "meta": true, "tie": true,
	"info": true, "editor": true, "comment": true, "comments": true, "cmt": true}

// furnitureASCIIWidth bounds the values furnitureASCII lowers on the
// stack; wider ones go to the expression.
const furnitureASCIIWidth = 256

// furnitureASCII is furnitureClass.MatchString(v) for an ASCII v of up
// to furnitureASCIIWidth bytes (ok); ok is false for other values.
func furnitureASCII(v string) (furniture, ok bool) {
	if len(v) > furnitureASCIIWidth {
		return false, false
	}
	var buf [furnitureASCIIWidth]byte
	low := buf[:len(v)]
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 0x80 {
			return false, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for i, c := range low {
		for _, w := range furnitureWords[c] {
			if len(low)-i >= len(w) && string(low[i:i+len(w)]) == w {
				return true, true
			}
		}
	}
	start := 0
	for i := 0; i <= len(low); i++ {
		if i < len(low) && !tokenSep(low[i]) {
			continue
		}
		if i > start && i-start <= len("comments") && furnitureTokens[string(low[start:i])] {
			return true, true
		}
		start = i + 1
	}
	return false, true
}

// tokenSep is a byte that may stand before or after furnitureTokens'
// words in furnitureClass: \s (Perl's: \t \n \f \r and space), '_', '-'.
func tokenSep(c byte) bool {
	switch c {
	case '\t', '\n', '\f', '\r', ' ', '_', '-':
		return true
	}
	return false
}
