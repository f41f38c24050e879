package config

import (
	"fmt"
	"os"
	"reflect"
	"strings"
)

// expandEnv replaces ${VAR} and ${VAR:-default} in every string value of the
// configuration (struct fields, slices and map values). A ${VAR} whose
// variable is unset and has no default is a problem naming the field, so a
// missing secret is caught at start rather than sent as an empty string.
// "$$" stands for a literal "$". It returns a problem per bad value.
func expandEnv(cfg *Config, lookup func(string) (string, bool)) []Problem {
	var probs []Problem
	expandValue(reflect.ValueOf(cfg).Elem(), "", lookup, &probs)
	return probs
}

func expandValue(v reflect.Value, path string, lookup func(string) (string, bool), probs *[]Problem) {
	switch v.Kind() {
	case reflect.String:
		s, err := expandString(v.String(), lookup)
		if err != nil {
			*probs = append(*probs, Problem{Path: path, Msg: err.Error()})
			return
		}
		v.SetString(s)
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			expandValue(v.Field(f.index), join(path, f.name), lookup, probs)
		}
	case reflect.Slice:
		for i := range v.Len() {
			expandValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i), lookup, probs)
		}
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			return
		}
		for _, k := range v.MapKeys() {
			s, err := expandString(v.MapIndex(k).String(), lookup)
			if err != nil {
				*probs = append(*probs, Problem{Path: fmt.Sprintf("%s.%v", path, k), Msg: err.Error()})
				continue
			}
			v.SetMapIndex(k, reflect.ValueOf(s).Convert(v.Type().Elem()))
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func expandString(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	if err := checkRefs(s); err != nil {
		return "", err
	}
	var missing []string
	out := os.Expand(s, func(ref string) string {
		if ref == "$" {
			return "$"
		}
		name, def, hasDef := strings.Cut(ref, ":-")
		if val, ok := lookup(name); ok && (val != "" || !hasDef) {
			return val
		}
		if hasDef {
			return def
		}
		missing = append(missing, name)
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} to allow a default, or $$ for a literal $)", missing[0], missing[0])
	}
	return out, nil
}

// checkRefs finds the ${...} references os.Expand would silently drop: an
// unclosed "${" and an empty "${}".
func checkRefs(s string) error {
	for i := 0; i < len(s)-1; i++ {
		if s[i] != '$' {
			continue
		}
		switch s[i+1] {
		case '$':
			i++
		case '{':
			end := strings.IndexByte(s[i:], '}')
			switch {
			case end < 0:
				return fmt.Errorf("unclosed ${ (write ${VAR}, or $$ for a literal $)")
			case end == 2:
				return fmt.Errorf("empty ${} (write ${VAR}, or $$ for a literal $)")
			}
			i += end
		}
	}
	return nil
}
