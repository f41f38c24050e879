//go:build !(re2_wasm || re2_cgo) || !cgo

package regexp

import (
	stdregex "regexp"
	"sync"
)

// Regexp compiles its pattern on first use: the locale tables hold
// thousands of patterns, and compiling them all in init cost every process
// that links this package ~0.15 s of CPU and ~95 MB of allocations.
type Regexp struct {
	once    sync.Once
	pattern string
	rx      *stdregex.Regexp
}

func (re *Regexp) get() *stdregex.Regexp {
	re.once.Do(func() {
		if re.rx == nil {
			re.rx = stdregex.MustCompile(re.pattern)
		}
	})
	return re.rx
}

func QuoteMeta(s string) string {
	return stdregex.QuoteMeta(s)
}

func Compile(str string) (*Regexp, error) {
	rx, err := stdregex.Compile(str)
	if err != nil {
		return nil, err
	}
	return &Regexp{rx: rx}, nil
}

func MustCompile(str string) *Regexp {
	return &Regexp{pattern: str}
}

func (re *Regexp) Expand(dst []byte, template []byte, src []byte, match []int) []byte {
	return re.get().Expand(dst, template, src, match)
}

func (re *Regexp) ExpandString(dst []byte, template string, src string, match []int) []byte {
	return re.get().ExpandString(dst, template, src, match)
}

func (re *Regexp) Find(b []byte) []byte {
	return re.get().Find(b)
}

func (re *Regexp) FindAll(b []byte, n int) [][]byte {
	return re.get().FindAll(b, n)
}

func (re *Regexp) FindAllIndex(b []byte, n int) [][]int {
	return re.get().FindAllIndex(b, n)
}

func (re *Regexp) FindAllString(s string, n int) []string {
	return re.get().FindAllString(s, n)
}

func (re *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return re.get().FindAllStringIndex(s, n)
}

func (re *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return re.get().FindAllStringSubmatch(s, n)
}

func (re *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return re.get().FindAllStringSubmatchIndex(s, n)
}

func (re *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return re.get().FindAllSubmatch(b, n)
}

func (re *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return re.get().FindAllSubmatchIndex(b, n)
}

func (re *Regexp) FindIndex(b []byte) (loc []int) {
	return re.get().FindIndex(b)
}

func (re *Regexp) FindString(s string) string {
	return re.get().FindString(s)
}

func (re *Regexp) FindStringIndex(s string) (loc []int) {
	return re.get().FindStringIndex(s)
}

func (re *Regexp) FindStringSubmatch(s string) []string {
	return re.get().FindStringSubmatch(s)
}

func (re *Regexp) FindStringSubmatchIndex(s string) []int {
	return re.get().FindStringSubmatchIndex(s)
}

func (re *Regexp) FindSubmatch(b []byte) [][]byte {
	return re.get().FindSubmatch(b)
}

func (re *Regexp) FindSubmatchIndex(b []byte) []int {
	return re.get().FindSubmatchIndex(b)
}

func (re *Regexp) Longest() {
	re.get().Longest()
}

func (re *Regexp) Match(b []byte) bool {
	return re.get().Match(b)
}

func (re *Regexp) MatchString(s string) bool {
	return re.get().MatchString(s)
}

func (re *Regexp) NumSubexp() int {
	return re.get().NumSubexp()
}

func (re *Regexp) ReplaceAll(src, repl []byte) []byte {
	return re.get().ReplaceAll(src, repl)
}

func (re *Regexp) ReplaceAllLiteral(src, repl []byte) []byte {
	return re.get().ReplaceAllLiteral(src, repl)
}

func (re *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return re.get().ReplaceAllLiteralString(src, repl)
}

func (re *Regexp) ReplaceAllString(src, repl string) string {
	return re.get().ReplaceAllString(src, repl)
}

func (re *Regexp) Split(s string, n int) []string {
	return re.get().Split(s, n)
}

func (re *Regexp) String() string {
	return re.get().String()
}

func (re *Regexp) SubexpIndex(name string) int {
	return re.get().SubexpIndex(name)
}

func (re *Regexp) SubexpNames() []string {
	return re.get().SubexpNames()
}
