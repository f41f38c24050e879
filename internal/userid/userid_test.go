package userid

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, id := range []string{"alice", "王小明", "a b", "user@example.com", "x-y_z.1", strings.Repeat("a", MaxLen), "שלום", "👩‍💻",
		"\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", // England flag
		"\u0600\u0661", "❤\ufe0f", "رنه\u200cای", "rené", "re\u0301ne"} {
		if err := Check(id); err != nil {
			t.Errorf("Check(%q) = %v, want nil", id, err)
		}
	}
	for id, want := range map[string]string{
		"":                            "is empty",
		"   ":                         "is empty",
		strings.Repeat("a", MaxLen+1): "bytes, at most 256",
		"a\x00b":                      "control characters",
		"a\nb":                        "control characters",
		"a\x85b":                      "control characters", // invalid UTF-8
		"a\u0085b":                    "control characters", // NEL
		" sp":                         "begins or ends with a space",
		"sp\u3000":                    "begins or ends with a space", // ideographic space
		"x,y":                         "contains a comma",
		",":                           "contains a comma",
		"\u202eevil":                  "U+202E",
		"a\u2067b":                    "U+2067",
		"zw\u200b":                    "U+200B",
		"a\u2060b":                    "invisible",
		"\ufeffbom":                   "invisible",
		"soft\u00adhyphen":            "invisible",
		"\u3164x":                     "U+3164",
		"a\ufffdb":                    "invalid UTF-8",
		"bob\u200d":                   "joiner",
		"\u200d":                      "joiner",
		"a\u200db":                    "joiner",
		"bob\ufe0f":                   "variation selector",
		"\u0301x":                     "combining mark",
		"a\u034fb":                    "invisible",
		"\u2800":                      "invisible",
		"x\u00a0y":                    "space other than",
		"bob\u2028x":                  "space other than",
		".":                           "URL path",
		"..":                          "URL path",
	} {
		err := Check(id)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%.20q) = %v, want an error with %q", id, err, want)
		}
	}
	if !errors.Is(Check(" "), ErrEmpty) {
		t.Error("Check(\" \") is not ErrEmpty")
	}
}
