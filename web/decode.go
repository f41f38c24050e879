package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// decodeJSON reads the request body into v strictly: at most
// web.max_body_size bytes (413 beyond), no unknown members, exactly one
// JSON value (400 for trailing data or an empty body). The content type
// may be absent, application/json (or any +json type), or
// application/x-www-form-urlencoded, which is what "curl -d" sends when
// one forgets -H: the body is still read as JSON. Anything else (text/plain,
// multipart/form-data, XML, ...) is 415.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "application/x-www-form-urlencoded") {
			return errorf(http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "request body must be application/json, got %q", ct)
		}
	}
	limit := s.opts.MaxBodySize
	if r.ContentLength > limit {
		return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body is larger than %d bytes", limit)
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	// One value only: anything but whitespace after it is an error.
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return err
			}
		}
		return errorf(http.StatusBadRequest, CodeBadJSON, "request body has data after the JSON value")
	}
	return nil
}

// jsonError classifies a decoding error.
func jsonError(err error) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
		pe  *time.ParseError
	)
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, CodeBadJSON, "request body is empty: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, CodeBadJSON, "request body ends in the middle of the JSON value")
	case errors.As(err, &se):
		return errorf(http.StatusBadRequest, CodeBadJSON, "request body is not valid JSON at byte %d: %v", se.Offset, err)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return errorf(http.StatusBadRequest, CodeBadJSON, "request body must be a JSON object, got %s", te.Value)
		}
		return errorf(http.StatusBadRequest, CodeInvalid, "field %q must be %s, got %s", field, kindName(te.Type.Kind().String()), te.Value)
	case errors.As(err, &pe):
		return errorf(http.StatusBadRequest, CodeInvalid, "times must be RFC 3339, such as \"2025-06-01T08:00:00Z\", got %q", pe.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errorf(http.StatusBadRequest, CodeUnknownField, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errorf(http.StatusBadRequest, CodeBadJSON, "request body: %v", err)
}

func kindName(k string) string {
	switch k {
	case "int", "int64", "int32", "uint", "uint64", "float64":
		return "a number"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "bool":
		return "true or false"
	case "struct", "map":
		return "an object"
	}
	return fmt.Sprintf("a %s", k)
}
