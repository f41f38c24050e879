package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ErrEncoding is a body that cannot be decoded: a corrupt gzip stream, or
// a Content-Encoding newsrank did not ask for and does not read (br,
// deflate, zstd, compress).
var ErrEncoding = errors.New("body cannot be decoded")

// maxGzipLayers is how many gzip layers a body is inflated through: a
// gzip file (sitemap.xml.gz) sent with Content-Encoding: gzip has two.
const maxGzipLayers = 2

var gzipMagic = []byte{0x1f, 0x8b}

// bodyTransport is the RoundTripper under colly and the robots.txt
// client: it bounds every response body to limit bytes after inflation.
// It asks for gzip itself, so that Go's transport never inflates a body
// behind its back, and inflates a body when it starts with the gzip magic
// bytes, whatever the headers say: Content-Encoding gzip or x-gzip, a
// Content-Type containing "gzip", a name ending in .gz, or nothing at
// all; a header that says gzip over a plain body is ignored. Responses
// are marked Uncompressed, so colly does not inflate them again.
//
// Reading byte limit+1 fails with an error wrapping ErrTooLarge. A gzip
// body over the limit fails before any of it is kept: it is inflated
// into a counter that stops at limit+1 bytes first (see open), so a bomb
// costs its compressed size. With truncate (robots.txt) the body ends
// at limit bytes instead, inflated as it is read.
type bodyTransport struct {
	next     http.RoundTripper
	limit    int64
	truncate bool
}

func (t *bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Accept-Encoding") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b := &boundedBody{raw: resp.Body, left: t.limit, limit: t.limit, truncate: t.truncate}
	b.err = checkEncoding(resp.Header.Get("Content-Encoding"))
	resp.Body = b
	resp.Uncompressed = true
	resp.Header.Del("Content-Encoding")
	return resp, nil
}

// checkEncoding accepts the Content-Encodings the magic bytes decide
// about: none, identity, gzip, x-gzip, and unknown values that name no
// compression (servers send "utf-8" there).
func checkEncoding(ce string) error {
	for _, c := range strings.Split(strings.ToLower(ce), ",") {
		switch strings.TrimSpace(c) {
		case "br", "deflate", "zstd", "compress", "x-compress":
			return fmt.Errorf("%w: Content-Encoding %q is not supported (newsrank asks for gzip only)", ErrEncoding, ce)
		}
	}
	return nil
}

// boundedBody is a response body inflated (when it is gzip) and cut at
// limit: see bodyTransport. It opens the gzip layers at the first Read,
// so a response whose body is never read costs nothing.
type boundedBody struct {
	raw      io.ReadCloser
	r        io.Reader // nil until the first Read
	gz       []*gzip.Reader
	left     int64
	limit    int64
	truncate bool
	err      error // sticky
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.r == nil {
		if err := b.open(); err != nil {
			b.err = err
			return 0, err
		}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		b.left = 0
		b.err = fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.limit)
		if b.truncate {
			b.err = io.EOF
		}
		return n, b.err
	}
	b.left -= int64(n)
	if err != nil && err != io.EOF {
		err = decodeError(err)
		b.err = err
	}
	return n, err
}

// open looks at the first bytes of the body. A gzip body is read whole,
// compressed (at most limit bytes: more is too large as sent), and
// inflated twice: once into a counter that stops at limit+1 bytes, so an
// over-limit body fails before any of it is kept, then for the reader.
// With truncate it is inflated once, as it is read.
func (b *boundedBody) open() error {
	// A 16-byte buffer (bufio's least) is enough to peek at the magic
	// bytes; reads larger than it bypass it, so a plain body is read
	// straight into the caller's slice (no 4 KB buffer per response).
	br := bufio.NewReaderSize(b.raw, 16)
	if head, _ := br.Peek(len(gzipMagic)); !bytes.Equal(head, gzipMagic) {
		b.r = br // a read error, if any, surfaces on Read
		return nil
	}
	if b.truncate {
		var err error
		b.r, err = b.inflate(br)
		return decodeError(err)
	}
	raw, err := io.ReadAll(io.LimitReader(br, b.limit+1))
	if err != nil {
		return err
	}
	if int64(len(raw)) > b.limit {
		return fmt.Errorf("%w: more than %d bytes compressed", ErrTooLarge, b.limit)
	}
	// raw is all there is: any error inflating it is the data's own.
	r, err := b.inflate(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%w: gzip: %v", ErrEncoding, err)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r, b.limit+1))
	b.closeGzip()
	if err != nil {
		return fmt.Errorf("%w: gzip: %v", ErrEncoding, err)
	}
	if n > b.limit {
		return fmt.Errorf("%w: more than %d bytes inflated", ErrTooLarge, b.limit)
	}
	b.r, err = b.inflate(bytes.NewReader(raw)) // it inflated once: it does again
	return err
}

// inflate reads r through its gzip layers (up to maxGzipLayers, each
// recognised by its magic bytes).
func (b *boundedBody) inflate(r io.Reader) (io.Reader, error) {
	for range maxGzipLayers {
		br := bufio.NewReader(r)
		r = br
		if head, _ := br.Peek(len(gzipMagic)); !bytes.Equal(head, gzipMagic) {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		b.gz = append(b.gz, zr)
		r = zr
	}
	return r, nil
}

func (b *boundedBody) closeGzip() {
	for _, z := range b.gz {
		z.Close()
	}
	b.gz = nil
}

// decodeError marks the errors of a corrupt gzip stream as ErrEncoding;
// others (the connection's) are returned as they are.
func decodeError(err error) error {
	if err == nil {
		return nil
	}
	var ce flate.CorruptInputError
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &ce) {
		return fmt.Errorf("%w: gzip: %v", ErrEncoding, err)
	}
	return err
}

func (b *boundedBody) Close() error {
	b.closeGzip()
	return b.raw.Close()
}

// Inflate reads a body that came some other way than a fetch (a WebSub
// hub's push) as fetched bodies are read: a Content-Encoding other than
// gzip refused, gzip layers inflated by their magic bytes, and at most
// limit bytes after inflation (ErrTooLarge past it; a bomb costs its
// compressed size).
func Inflate(body []byte, contentEncoding string, limit int64) ([]byte, error) {
	if err := checkEncoding(contentEncoding); err != nil {
		return nil, err
	}
	b := &boundedBody{raw: io.NopCloser(bytes.NewReader(body)), left: limit, limit: limit}
	defer b.closeGzip()
	return io.ReadAll(b)
}
