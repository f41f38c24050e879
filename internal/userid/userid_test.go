package userid

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, id := range []string{"alice", "王小明", "a b", "user@example.com", "x-y_z.1", strings.Repeat("a", MaxLen), "שלום", "👩‍💻"} {
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
