package web

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// The HTTP API is described by an OpenAPI 3.1 document, written as YAML
// beside the code (web/openapi.yaml, comments allowed) and served as JSON
// at /api/openapi.json. The tests hold it to the server: every route of
// the routing table is in it and nothing else, and every response the
// tests get validates against it.

// openAPIPath is where the description is served.
const openAPIPath = "/api/openapi.json"

//go:embed openapi.yaml
var openAPIYAML []byte

// openAPIDoc is the description as served: its JSON and ETag.
type openAPIDoc struct {
	json []byte
	etag string
}

// loadOpenAPI converts the embedded YAML to JSON.
func loadOpenAPI() (*openAPIDoc, error) {
	var v any
	if err := yaml.Unmarshal(openAPIYAML, &v); err != nil {
		return nil, fmt.Errorf("web: openapi.yaml: %w", err)
	}
	v, err := jsonValue(v)
	if err != nil {
		return nil, fmt.Errorf("web: openapi.yaml: %w", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("web: openapi.yaml: %w", err)
	}
	sum := sha256.Sum256(b.Bytes())
	return &openAPIDoc{json: b.Bytes(), etag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// jsonValue turns what yaml.v3 decodes into what encoding/json encodes
// as the same document: mappings with keys that are not strings (a
// status code such as 200) get string keys.
func jsonValue(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			var err error
			if x[k], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return x, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var ks string
			switch kk := k.(type) {
			case string:
				ks = kk
			case int:
				ks = strconv.Itoa(kk)
			case bool:
				ks = strconv.FormatBool(kk)
			default:
				return nil, fmt.Errorf("mapping key %v (%T) is not a string", k, k)
			}
			var err error
			if out[ks], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		for i, e := range x {
			var err error
			if x[i], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return x, nil
	case time.Time: // an unquoted date
		return nil, fmt.Errorf("value %s reads as a time: quote it", x.Format(time.RFC3339))
	}
	return v, nil
}

// GET /api/openapi.json
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", s.apiDoc.etag)
	h.Set("Cache-Control", "public, max-age=3600")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.apiDoc.json))
	return nil
}
