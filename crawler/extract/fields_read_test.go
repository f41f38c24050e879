package extract

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestReadFieldsAsUnmarshal holds ReadFields to json.Unmarshal: on what
// json.Marshal writes of Fields, and on payloads it does not write.
func TestReadFieldsAsUnmarshal(t *testing.T) {
	n, zero, neg := int64(1591), int64(0), int64(-3)
	sh := time.FixedZone("CST", 8*3600)
	var payloads [][]byte
	for _, f := range []Fields{
		{}, {Title: "肯尼亚举行议会选举", Source: "中国新闻网", Summary: "截至目前，已有超过三百个项目完成备案。", Comments: &n,
			PostTime: time.Date(2026, 11, 25, 20, 22, 7, 0, sh)},
		{Title: "a <b> & \"c\"\n\t\u2028", Image: "https://x.example/i.png?a=1&b=2", Comments: &zero},
		{PostTime: time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC), BadTime: "昨天 25:61", Comments: &neg},
		{Title: "\xff invalid utf-8"},
	} {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, b)
	}
	for _, s := range []string{
		`{"title":"x","title":"y"}`, `{"Title":"x"}`, `{"title":"x","other":1}`, `{"title":null}`, `{"comments":null}`,
		`{"comments":"12"}`, `{"comments":1.5}`, `{"comments":1e3}`, `{"comments":99999999999999999999}`,
		`{"title":5}`, `{"post_time":"yesterday"}`, `{"post_time":"2026-11-25T20:22:07+08:00"}`,
		`{"post_time":"2026-11-25T20:22:07\u002b08:00"}`, `{"title":"\u00e9\ud800"}`, `{"title":"x"} `, `{"title":"x"} x`,
		`{"title":"x"}{}`, `[]`, `"s"`, `null`, ``, `{`, `{"title":"x",}`, `{"comments":3,"comments":4}`,
	} {
		payloads = append(payloads, []byte(s))
	}
	for _, b := range payloads {
		var want Fields
		werr := json.Unmarshal(b, &want)
		got, err := ReadFields(b)
		if (err != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("ReadFields(%s) = %+v, %v; json.Unmarshal: %+v, %v", b, got, err, want, werr)
		}
		if _, fast := readFieldsFast(b); fast && werr != nil {
			t.Errorf("ReadFields(%s) read it itself, json.Unmarshal refuses it: %v", b, werr)
		}
	}
	if _, fast := readFieldsFast(payloads[1]); !fast {
		t.Error("what json.Marshal writes was left to json.Unmarshal")
	}
}
