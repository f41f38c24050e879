package extract

import (
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
)

// firstRunes returns the ranges of runes a match of re can start with
// (any: it can start with anything, or with nothing), read from re's
// syntax tree.
func firstRunes(re *syntax.Regexp) (ranges []rune, nullable, any bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, true, false
		}
		r := re.Rune[0]
		ranges = append(ranges, r, r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				ranges = append(ranges, f, f)
			}
		}
		return ranges, false, false
	case syntax.OpCharClass:
		return re.Rune, false, false
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true, false
	case syntax.OpCapture, syntax.OpPlus:
		return firstRunes(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		r, _, a := firstRunes(re.Sub[0])
		return r, true, a
	case syntax.OpRepeat:
		r, n, a := firstRunes(re.Sub[0])
		return r, n || re.Min == 0, a
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			r, n, a := firstRunes(sub)
			ranges = append(ranges, r...)
			if a {
				return nil, false, true
			}
			if !n {
				return ranges, false, false
			}
		}
		return ranges, true, false
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			r, n, a := firstRunes(sub)
			if a {
				return nil, false, true
			}
			ranges = append(ranges, r...)
			nullable = nullable || n
		}
		return ranges, nullable, false
	}
	return nil, false, true
}

// TestFurnitureStart holds furnitureStart to furnitureText: every
// character a match can start with is in it.
func TestFurnitureStart(t *testing.T) {
	re, err := syntax.Parse(furnitureText.String(), syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	ranges, nullable, any := firstRunes(re.Simplify())
	if nullable || any {
		t.Fatalf("furnitureText can start with anything (nullable %v, any %v): furnitureStart cannot stand for it", nullable, any)
	}
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] > 1000 {
			t.Fatalf("furnitureText starts with any of %q-%q: list them or drop furnitureStart", ranges[i], ranges[i+1])
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if !strings.ContainsRune(furnitureStart, r) {
				t.Errorf("furnitureText may start with %q, which furnitureStart lacks", r)
			}
		}
	}
	for _, p := range []string{"Read more: x", "ſee also", "SEE ALSO", "责任编辑：王", "© 2024", "By Jane Doe", "已有12人参与"} {
		if !furnitureText.MatchString(p) || !isFurnitureText(p) {
			t.Errorf("%q: furnitureText %v, isFurnitureText %v; want both true", p, furnitureText.MatchString(p), isFurnitureText(p))
		}
	}
	if isFurnitureText("截至目前，已有超过三百个项目完成备案。") {
		t.Error("a body paragraph taken for furniture")
	}
}

// TestMayBeCaption holds mayBeCaption to captionText: it was written for
// this expression, whose every alternative needs one of its characters
// or texts, and the one letter it checks, y, has no other case than Y.
func TestMayBeCaption(t *testing.T) {
	const written = `(?i)\b(?:photo|foto|bild|image|picture|crédit|credit)s?\s*:|©|getty images|\(ap photo|^图为|摄影[:：]|图片来源`
	if captionText.String() != written {
		t.Fatalf("captionText changed: check mayBeCaption against it, then update this test")
	}
	for f := unicode.SimpleFold('y'); f != 'y'; f = unicode.SimpleFold(f) {
		if f != 'Y' {
			t.Fatalf("y folds to %q too: mayBeCaption must list it", f)
		}
	}
	for _, p := range []string{"Photo: AP", "CREDITS :x", "Foto:x", "© Reuters", "GETTY IMAGES", "(AP Photo/x)", "图为现场", "新华社记者 摄影：李", "图片来源网络", "Crédit: x"} {
		if !captionText.MatchString(p) || !mayBeCaption(p) {
			t.Errorf("%q: captionText %v, mayBeCaption %v; want both true", p, captionText.MatchString(p), mayBeCaption(p))
		}
	}
	if mayBeCaption("截至目前，已有超过三百个项目完成备案。") {
		t.Error("mayBeCaption true for a paragraph with none of its characters")
	}
}

// TestFurnitureValue: the remembered answer for a class or id value is
// furnitureClass's, the first time and every time after, for values the
// memo keeps and values too wide for it; the memo keeps no more than
// furnitureMemoMax values.
func TestFurnitureValue(t *testing.T) {
	values := []string{"", "byline", "post-byline author", "article-body", "story-body__inner", "ad", "ads-slot",
		"header-ad", "lead", "load", "meta", "metadata", "tags", "tag-politics", "entry-content",
		"share-tools", "Newsletter-Signup", "cmt", "comment-list", "comments", "tie-post", "tie",
		"main-content", "related-stories", "teaser", "content", "article__content", "GDPR-notice",
		strings.Repeat("x", furnitureMemoWidth+1), strings.Repeat("y", furnitureMemoWidth) + " related"}
	for round := range 3 {
		for _, v := range values {
			if got, want := furnitureValue(v), furnitureClass.MatchString(v); got != want {
				t.Errorf("round %d: furnitureValue(%q) = %t, the expression says %t", round, v, got, want)
			}
		}
	}
	for i := range furnitureMemoMax + 100 {
		v := "c" + strings.Repeat("z", i%7) + string(rune('a'+i%26)) + strings.Repeat("q", i/182)
		if got, want := furnitureValue(v), furnitureClass.MatchString(v); got != want {
			t.Fatalf("furnitureValue(%q) = %t, the expression says %t", v, got, want)
		}
	}
	if n := furnitureMemoLen.Load(); n > furnitureMemoMax {
		t.Errorf("the memo holds %d values, more than %d", n, furnitureMemoMax)
	}
}
