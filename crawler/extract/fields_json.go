package extract

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/newsrank/newsrank/internal/jsonstr"
)

// A list item's Fields travel through the queue as JSON, encoded by the
// producer for every URL it finds and decoded by a consumer for every URL
// it claims. encoding/json spends most of its time there on reflection;
// AppendJSON and UnmarshalFieldsJSON do the same work by hand: the bytes
// AppendJSON writes are those json.Marshal writes, and UnmarshalFieldsJSON
// reads any JSON json.Unmarshal reads into Fields the same way (keys
// matched without regard to case, null leaving a field alone, the last of
// a repeated key winning, a value of the wrong type an error that does
// not stop the other fields).

// AppendJSON appends f's JSON, as json.Marshal encodes it, to b. The error
// is json.Marshal's: a post time whose year is outside [0, 9999].
func (f Fields) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	n := len(b)
	field := func(name string) {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	str := func(name, v string) {
		if v != "" {
			field(name)
			b = jsonstr.Append(b, v)
		}
	}
	str("title", f.Title)
	if !f.PostTime.IsZero() {
		field("post_time")
		b = append(b, '"')
		var err error
		if b, err = f.PostTime.AppendText(b); err != nil {
			return b, fmt.Errorf("post_time: %w", err)
		}
		b = append(b, '"')
	}
	str("source", f.Source)
	str("summary", f.Summary)
	str("image", f.Image)
	if f.Comments != nil {
		field("comments")
		b = strconv.AppendInt(b, *f.Comments, 10)
	}
	str("bad_time", f.BadTime)
	return append(b, '}'), nil
}

// errFieldsJSON is the error of JSON that is not a Fields object.
var errFieldsJSON = errors.New("list item fields: not a JSON object")

// UnmarshalFieldsJSON reads data, JSON as AppendJSON (or json.Marshal)
// writes it, into f, as json.Unmarshal would: invalid JSON changes nothing;
// a value of the wrong type is the error returned, after the other fields
// were read.
func UnmarshalFieldsJSON(data []byte, f *Fields) error {
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("list item fields: invalid JSON")
	}
	v := gjson.ParseBytes(data)
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return errFieldsJSON
	}
	var first error
	v.ForEach(func(k, x gjson.Result) bool {
		err := f.setJSON(k.String(), x)
		var pt postTimeError
		if errors.As(err, &pt) {
			first = err // time.Time's own error ends the decoding
			return false
		}
		if err != nil && first == nil {
			first = err
		}
		return true
	})
	return first
}

// postTimeError is a post time that does not read: json.Unmarshal stops
// there, as on any error of a field's own UnmarshalJSON.
type postTimeError struct{ err error }

func (e postTimeError) Error() string { return "list item fields: post_time: " + e.err.Error() }
func (e postTimeError) Unwrap() error { return e.err }

// setJSON sets the field named key (its JSON name, any case) to x.
func (f *Fields) setJSON(key string, x gjson.Result) error {
	var s *string
	switch {
	case strings.EqualFold(key, "title"):
		s = &f.Title
	case strings.EqualFold(key, "source"):
		s = &f.Source
	case strings.EqualFold(key, "summary"):
		s = &f.Summary
	case strings.EqualFold(key, "image"):
		s = &f.Image
	case strings.EqualFold(key, "bad_time"):
		s = &f.BadTime
	case strings.EqualFold(key, "post_time"):
		switch x.Type {
		case gjson.Null:
			return nil
		case gjson.String:
			// time.Time's UnmarshalJSON reads the text between the
			// quotes as it stands, escapes and all.
			raw := x.Raw[1 : len(x.Raw)-1]
			var t time.Time
			if err := t.UnmarshalText([]byte(raw)); err != nil {
				return postTimeError{err}
			}
			f.PostTime = t
			return nil
		}
		return postTimeError{fmt.Errorf("%s is not a string", x.Raw)}
	case strings.EqualFold(key, "comments"):
		if x.Type == gjson.Null {
			f.Comments = nil
			return nil
		}
		// json.Unmarshal allocates the count before it reads the value:
		// a value that is not an int64 leaves a count of 0.
		n, err := int64(0), error(nil)
		if x.Type == gjson.Number {
			n, err = strconv.ParseInt(x.Raw, 10, 64)
		}
		if x.Type != gjson.Number || err != nil {
			f.Comments = new(int64)
			return fmt.Errorf("list item fields: comments: %s is not an int64", x.Raw)
		}
		f.Comments = &n
		return nil
	default:
		return nil // not a field: ignored
	}
	switch x.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		*s = validUTF8(x.String())
		return nil
	}
	return fmt.Errorf("list item fields: %s: %s is not a string", key, x.Raw)
}

// validUTF8 replaces each byte of invalid UTF-8 in s with U+FFFD, as
// encoding/json does when it decodes a string.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	return sb.String()
}
