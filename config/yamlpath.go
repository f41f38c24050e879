package config

import (
	"fmt"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

var lineRef = regexp.MustCompile(`line (\d+):`)

// nameFields rewrites "line N:" in a YAML decoding error to
// "line N (section.field):", so that a bad duration or a typo names the
// field as validation errors do.
func nameFields(data []byte, err error) error {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	msg := lineRef.ReplaceAllStringFunc(err.Error(), func(m string) string {
		n, _ := strconv.Atoi(lineRef.FindStringSubmatch(m)[1])
		if path := pathAtLine(&root, n, ""); path != "" {
			return fmt.Sprintf("line %d (%s):", n, path)
		}
		return m
	})
	return fmt.Errorf("%s", msg)
}

// pathAtLine finds the dotted key path of the mapping key or value that
// starts on line.
func pathAtLine(n *yaml.Node, line int, path string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := pathAtLine(c, line, path); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if k.Line == line {
				return p
			}
			if got := pathAtLine(v, line, p); got != "" {
				return got
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if c.Line == line && c.Kind == yaml.ScalarNode {
				return p
			}
			if got := pathAtLine(c, line, p); got != "" {
				return got
			}
		}
	}
	return ""
}
