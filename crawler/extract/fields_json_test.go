package extract

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func fieldsJSONCases() []Fields {
	n, zero, neg := int64(1234), int64(0), int64(-7)
	cst := time.FixedZone("CST", 8*3600)
	return []Fields{
		{},
		{Title: "Hello"},
		{Title: "新闻 <b>&amp;</b> \"quoted\" \\ back\tslash\n", PostTime: time.Date(2026, 11, 28, 9, 30, 0, 0, cst)},
		{Summary: "control \x00\x01\x1f\x7f, \b\f\r, line\u2028para\u2029 end", Comments: &zero},
		{Source: "bad \xff\xfe utf-8 \xe4\xb8", Image: "https://img.example.com/a.jpg?x=1&y=<2>", Comments: &n},
		{PostTime: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC), BadTime: "yesterday-ish", Comments: &neg},
		{Title: "t", PostTime: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), Source: "s", Summary: "u", Image: "i", Comments: &n, BadTime: "b"},
	}
}

// TestFieldsAppendJSON: AppendJSON writes the bytes json.Marshal writes.
func TestFieldsAppendJSON(t *testing.T) {
	for i, f := range fieldsJSONCases() {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("case %d:\n got %s\nwant prefix%s", i, got, want)
		}
	}
	_, err := Fields{PostTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}.AppendJSON(nil)
	if _, jerr := json.Marshal(Fields{PostTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil || jerr == nil {
		t.Errorf("a post time in year 10000: AppendJSON error %v, json.Marshal error %v; want both", err, jerr)
	}
}

// TestUnmarshalFieldsJSON: UnmarshalFieldsJSON reads what json.Unmarshal
// reads, fields and whether there is an error, from well-formed payloads
// and from odd ones.
func TestUnmarshalFieldsJSON(t *testing.T) {
	var inputs []string
	for _, f := range fieldsJSONCases() {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs,
		`null`, `[]`, `"x"`, `12`, `{`, ``, `{"title":"a",}`,
		`{"Title":"case","SUMMARY":"upper","Post_Time":"2026-11-28T01:02:03Z"}`,
		`{"title":"first","title":"last","comments":1,"comments":null}`,
		`{"title":null,"post_time":null,"comments":null,"image":null}`,
		`{"title":5,"summary":"kept","comments":"7","image":"kept too"}`,
		`{"comments":1.5,"title":"after a bad count"}`,
		`{"comments":1e3}`, `{"comments":true}`, `{"comments":{"a":1},"title":"t"}`, `{"comments":[1]}`, `{"title":{"x":1},"source":[],"image":false}`, `{"comments":-0}`, `{"comments":99999999999999999999}`,
		`{"post_time":"not a time","title":"x"}`, `{"post_time":12}`,
		`{"post_time":"2026-11-28T01:02:03+08:00"}`, `{"post_time":"2026-11-28T01:02:03.5Z"}`,
		`{"unknown":{"nested":[1,2,{"a":"b"}]},"title":"\u4e2d\u6587 \ud83d\ude00 \"q\" \\ \/"}`,
		`{"source":"raw \xff bytes"}`, `{"title":"\ud800 lone surrogate"}`,
		"{ \"title\" :\t\"spaced\" \n}",
	)
	for _, in := range inputs {
		var want, got Fields
		werr := json.Unmarshal([]byte(in), &want)
		gerr := UnmarshalFieldsJSON([]byte(in), &got)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: error %v, json.Unmarshal's %v", in, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", in, got, want)
		}
	}
}

// FuzzFieldsJSON checks UnmarshalFieldsJSON against json.Unmarshal on any
// input, and AppendJSON against json.Marshal on what it read (the corpus
// entries run in every go test).
func FuzzFieldsJSON(f *testing.F) {
	for _, c := range fieldsJSONCases() {
		b, _ := json.Marshal(c)
		f.Add(b)
	}
	f.Add([]byte(`{"Title":"x","comments":3,"post_time":"2026-11-28T01:02:03Z","bad_time":"?"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var want, got Fields
		werr := json.Unmarshal(in, &want)
		gerr := UnmarshalFieldsJSON(in, &got)
		if werr != nil || gerr != nil {
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%q: error %v, json.Unmarshal's %v", in, gerr, werr)
			}
			return // on an error the fields read so far may differ in odd inputs
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", in, got, want)
		}
		wb, werr := json.Marshal(want)
		gb, gerr := got.AppendJSON(nil)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wb, gb) {
			t.Fatalf("%+v: AppendJSON %s (%v), json.Marshal %s (%v)", got, gb, gerr, wb, werr)
		}
	})
}
