package colly

import "io"

// maxBodyHint bounds the buffer readBody makes from a Content-Length
// before any of the body arrived.
const maxBodyHint = 1 << 20

// readBody is io.ReadAll(r) of a response body (newsrank): when the
// response says its length (contentLength, capped at limit when limit > 0,
// and at maxBodyHint), the body is read into one buffer of that size and
// a byte, where io.ReadAll grows a buffer from 512 bytes and copies its
// pieces into a last one. A body longer than it said (an inflated one) is
// read on with io.ReadAll. It returns what was read and the first error
// but io.EOF, as io.ReadAll does.
func readBody(r io.Reader, contentLength int64, limit int) ([]byte, error) {
	n := contentLength
	if limit > 0 && n > int64(limit) {
		n = int64(limit)
	}
	if n <= 0 || n > maxBodyHint {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, n+1) // the byte more: the read that sees EOF has room
	for len(b) < cap(b) {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	rest, err := io.ReadAll(r)
	return append(b, rest...), err
}
