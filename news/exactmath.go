package news

import (
	"fmt"
	"math"
	"strings"
)

// The logarithm and power the formulas use, computed the same way in Go
// and in the Lua of the scripts (formulaLua), so that a score written by
// a script and one computed by the rescore job are the same double, bit
// for bit, and a reader of score: cannot tell which wrote it.
//
// The platform functions cannot do that: Go's math.Log10 and the C
// library's log10 that Redis's Lua calls differ in the last bit for about
// a quarter of the integers, math.Pow and C's pow for about 40 % of
// gravity's inputs. These use only + − × ÷, which IEEE 754 rounds exactly
// and identically everywhere, and frexp, ldexp and floor, which are
// exact, in the same order on both sides. Every product that is then added
// goes through an explicit float64() conversion: the Go compiler may not
// fuse it into one FMA instruction (a Lua VM never does). ln, exp and
// log10 are within 3 units in the last place of the correctly rounded
// results, pow (b^g = e^(g·ln b)) within a relative 1e-14 for gravity's
// inputs (exactmath_test.go): more than a ranking needs.
//
// The constants are defined once, here, and printed into the Lua with
// %.17g, which reads back as the same double.

// Constants: ln 2 split so that e·ln2Hi is exact (fdlibm's split), 1/ln 2,
// ln 10, √½.
const (
	ln2Hi    = 6.93147180369123816490e-01
	ln2Lo    = 1.90821492927058770002e-10
	invLn2   = 1.44269504088896338700e+00
	ln10     = 2.30258509299404568402
	sqrtHalf = 0.70710678118654752440
)

// lnCoef are the coefficients 1/(2k+1) of ln m = 2s·Σ s^(2k)/(2k+1), with
// s = (m−1)/(m+1) and √½ ≤ m < √2, so s² < 0.0295 and 13 terms reach
// below 2^-64. expCoef are 1/k! of e^r = Σ r^k/k! for |r| ≤ ln2/2, where
// 16 terms reach below 2^-60.
var lnCoef, expCoef = func() (ln [13]float64, ex [16]float64) {
	f := 1.0
	for k := range ex {
		if k > 0 {
			f *= float64(k) // exact: 15! < 2^53
		}
		ex[k] = 1 / f
	}
	for k := range ln {
		ln[k] = 1 / float64(2*k+1)
	}
	return
}()

// horner evaluates Σ c[k]·x^k from the highest term down.
func horner(c []float64, x float64) float64 {
	p := c[len(c)-1]
	for k := len(c) - 2; k >= 0; k-- {
		p = float64(p*x) + c[k]
	}
	return p
}

// ln is the natural logarithm of a finite x > 0.
func ln(x float64) float64 {
	m, e := math.Frexp(x) // x = m·2^e, ½ ≤ m < 1
	if m < sqrtHalf {
		m, e = m*2, e-1
	}
	s := (m - 1) / (m + 1)
	fe := float64(e)
	return float64(fe*ln2Hi) + (float64(fe*ln2Lo) + float64(2*s*horner(lnCoef[:], float64(s*s))))
}

// exp is e^y for a finite y.
func exp(y float64) float64 {
	k := math.Floor(float64(y*invLn2) + 0.5)
	r := (y - float64(k*ln2Hi)) - float64(k*ln2Lo)
	return math.Ldexp(horner(expCoef[:], r), int(k))
}

// log10 is the base-10 logarithm of a finite x > 0.
func log10(x float64) float64 { return ln(x) / ln10 }

// pow is b^g for a finite b > 0.
func pow(b, g float64) float64 { return exp(float64(g * ln(b))) }

// hornerLua is horner(c, x) as a Lua expression.
func hornerLua(c []float64, x string) string {
	e := lua(c[len(c)-1])
	for k := len(c) - 2; k >= 0; k-- {
		e = "(" + e + ") * " + x + " + " + lua(c[k])
	}
	return e
}

// lua formats a number as a Lua literal that reads back exactly.
func lua(x float64) string { return fmt.Sprintf("%.17g", x) }

// exactMathLua defines ln, exp, log10 and pow in Lua, as above.
var exactMathLua = strings.NewReplacer(
	"LN2HI", lua(ln2Hi), "LN2LO", lua(ln2Lo), "INVLN2", lua(invLn2), "LN10", lua(ln10), "SQRTHALF", lua(sqrtHalf),
	"LNPOLY", hornerLua(lnCoef[:], "z"), "EXPPOLY", hornerLua(expCoef[:], "r"),
).Replace(`
local function ln(x)
  local m, e = math.frexp(x)
  if m < SQRTHALF then m, e = m * 2, e - 1 end
  local s = (m - 1) / (m + 1)
  local z = s * s
  return e * LN2HI + (e * LN2LO + 2 * s * (LNPOLY))
end
local function exp(y)
  local k = math.floor(y * INVLN2 + 0.5)
  local r = (y - k * LN2HI) - k * LN2LO
  return math.ldexp(EXPPOLY, k)
end
local function log10(x) return ln(x) / LN10 end
local function pow(b, g) return exp(g * ln(b)) end
`)
