package extract

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// lateMeta finds a <meta charset> declared after the first 1,024 bytes,
// where the HTML prescan stops looking (some Chinese portals put it late).
var lateMeta = regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_.:-]+)`)

// DecodeHTML returns body as UTF-8. The charset comes from, in order: a
// byte-order mark, the charset parameter of contentType, a <meta> charset
// declaration (the first 8 KiB are searched), and, for undeclared bytes
// that are not valid UTF-8, a statistical guess. It also returns the name
// of the charset used.
func DecodeHTML(body []byte, contentType string) ([]byte, string, error) {
	if contentType == utf8HTML && !bytes.HasPrefix(body, []byte{0xfe, 0xff}) && !bytes.HasPrefix(body, []byte{0xff, 0xfe}) {
		// What DetermineEncoding answers without a UTF-16 byte-order
		// mark, sooner: the crawler's fetch hands every page colly
		// decoded (and every page declared UTF-8) over with this type.
		return decodeWith(body, nil, "utf-8")
	}
	e, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && name == "windows-1252" {
		// DetermineEncoding's last resort: look further, then guess.
		e, name = nil, ""
		head := body[:min(len(body), 8<<10)]
		if m := lateMeta.FindSubmatch(head); m != nil {
			e, name = charset.Lookup(string(m[1]))
		}
		if e == nil {
			e, name = guessCharset(body)
		}
	}
	return decodeWith(body, e, name)
}

// utf8HTML is the Content-Type of an HTML page in UTF-8 as fetch writes
// it.
const utf8HTML = "text/html; charset=utf-8"

// DecodeWith decodes body from the named charset (a WHATWG label such as
// "gbk", "gb18030", "big5", "shift_jis", "windows-1252").
func DecodeWith(body []byte, label string) ([]byte, error) {
	e, name := charset.Lookup(label)
	if e == nil {
		return nil, fmt.Errorf("unknown charset %q", label)
	}
	out, _, err := decodeWith(body, e, name)
	return out, err
}

func decodeWith(body []byte, e encoding.Encoding, name string) ([]byte, string, error) {
	if name == "utf-8" || e == encoding.Nop || e == nil {
		body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
		if !utf8.Valid(body) {
			// Declared UTF-8 but is not (a misconfigured site): keep what
			// is readable rather than pass invalid text on.
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		return body, "utf-8", nil
	}
	out, _, err := transform.Bytes(e.NewDecoder(), body)
	if err != nil {
		return nil, name, fmt.Errorf("decode %s: %w", name, err)
	}
	return out, name, nil
}

// guessCharset picks a charset for undeclared text: UTF-8 when the bytes
// are valid UTF-8, otherwise chardet's best guess, otherwise windows-1252.
func guessCharset(body []byte) (encoding.Encoding, string) {
	if utf8.Valid(body) {
		return encoding.Nop, "utf-8"
	}
	if r, err := chardet.NewTextDetector().DetectBest(body); err == nil {
		if e, name := charset.Lookup(r.Charset); e != nil {
			return e, name
		}
	}
	e, name := charset.Lookup("windows-1252")
	return e, name
}

// hasCharset reports whether a Content-Type header names a charset.
func hasCharset(contentType string) bool {
	_, params, err := mime.ParseMediaType(contentType)
	return err == nil && params["charset"] != ""
}

// xmlCharsetReader is an encoding/xml CharsetReader. When the body was
// already decoded (the HTTP header named the charset, which wins over the
// XML declaration), it passes the input through.
func xmlCharsetReader(decoded bool) func(string, io.Reader) (io.Reader, error) {
	return func(label string, in io.Reader) (io.Reader, error) {
		if decoded {
			return in, nil
		}
		l := strings.ToLower(strings.TrimSpace(label))
		if l == "utf-8" || l == "utf8" || l == "us-ascii" || l == "ascii" {
			return in, nil
		}
		r, err := charset.NewReaderLabel(label, in)
		if err != nil {
			return nil, fmt.Errorf("xml charset %q: %w", label, err)
		}
		return r, nil
	}
}
