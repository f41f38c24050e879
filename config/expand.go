package config

import (
	"fmt"
	"os"
	"reflect"
	"strings"
)

// expandEnv replaces ${VAR} and ${VAR:-default} in every string value of the
// configuration (struct fields, slices and map values). A ${VAR} whose
// variable is unset and has no default is an error naming the field, so a
// missing secret is caught at start rather than sent as an empty string.
// "$$" stands for a literal "$".
func expandEnv(cfg *Config, lookup func(string) (string, bool)) error {
	return expandValue(reflect.ValueOf(cfg).Elem(), "", lookup)
}

func expandValue(v reflect.Value, path string, lookup func(string) (string, bool)) error {
	switch v.Kind() {
	case reflect.String:
		s, err := expandString(v.String(), lookup)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		v.SetString(s)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if name == "" || name == "-" {
				name = strings.ToLower(f.Name)
			}
			if err := expandValue(v.Field(i), join(path, name), lookup); err != nil {
				return err
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := expandValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i), lookup); err != nil {
				return err
			}
		}
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			return nil
		}
		for _, k := range v.MapKeys() {
			s, err := expandString(v.MapIndex(k).String(), lookup)
			if err != nil {
				return fmt.Errorf("%s.%v: %w", path, k, err)
			}
			v.SetMapIndex(k, reflect.ValueOf(s).Convert(v.Type().Elem()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return expandValue(v.Elem(), path, lookup)
		}
	}
	return nil
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
		return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} to allow a default)", missing[0], missing[0])
	}
	return out, nil
}
