package jsonstr

import (
	"encoding/json"
	"testing"
)

func TestAppendAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"<script>&amp;</script>", "line\u2028para\u2029end", "bad \xff byte", "cut \xe6\x96 rune",
		"中文标题：央行降准0.5个百分点", "emoji 📰 news", "\xed\xa0\x80 surrogate",
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("Append(%q) = %s, want %s", s, got[1:], want)
		}
	}
}
