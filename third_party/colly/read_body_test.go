package colly

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBody: readBody reads what io.ReadAll reads, with the same
// error, whatever the Content-Length says (right, short, long, unknown,
// over the limit or the hint) and however the reader hands the bytes
// over (one at a time, with the last data or with an error).
func TestReadBody(t *testing.T) {
	errBoom := errors.New("boom")
	for _, size := range []int{0, 1, 15, 16, 17, 511, 512, 513, 9800, 70000} {
		data := bytes.Repeat([]byte("abcdefghij"), size/10+1)[:size]
		for _, cl := range []int64{-1, 0, 1, int64(size) - 1, int64(size), int64(size) + 1, 2 * int64(size), maxBodyHint + 1} {
			for _, limit := range []int{0, 100, size} {
				readers := map[string]func() io.Reader{
					"plain":    func() io.Reader { return bytes.NewReader(data) },
					"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
					"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
					"error":    func() io.Reader { return io.MultiReader(bytes.NewReader(data), iotest.ErrReader(errBoom)) },
				}
				for name, mk := range readers {
					want, werr := io.ReadAll(mk())
					got, gerr := readBody(mk(), cl, limit)
					if !bytes.Equal(got, want) || !errors.Is(gerr, werr) && gerr != werr {
						t.Fatalf("size %d, Content-Length %d, limit %d, %s reader: %d bytes, %v; want %d bytes, %v",
							size, cl, limit, name, len(got), gerr, len(want), werr)
					}
				}
			}
		}
	}
	if raceOn {
		return
	}
	// One allocation of the said length for a body that says it.
	r := strings.NewReader(strings.Repeat("x", 9800))
	if n := testing.AllocsPerRun(10, func() {
		r.Seek(0, io.SeekStart)
		readBody(r, 9800, 0)
	}); n != 1 {
		t.Errorf("readBody of a 9,800-byte body that says so: %v allocations, want 1", n)
	}
}
