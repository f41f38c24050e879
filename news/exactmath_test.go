package news

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsrank/newsrank/internal/rdb"
	"github.com/newsrank/newsrank/internal/redistest"
)

// rankAllCmd runs formulaLua's rank over many inputs.
//
//	ARGV[1], ARGV[2] -> formula name and parameter
//	ARGV[3] -> now (Unix s)
//	ARGV[4+2i], ARGV[5+2i] -> post time and votes of input i
//
// Returns num(rank(...)) per input.
var rankAllCmd = redis.NewScript(formulaLua + `
local out = {}
for i = 4, #ARGV, 2 do
  out[#out + 1] = num(rank(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[3])))
end
return out
`)

// rankInputs are post times (an hour of seconds, then ten days by the
// minute, before now) and net votes (integers from -300 to 30,000, halves
// and large counts) — about 40,000 pairs.
func rankInputs(now int64) (ts, vs []float64) {
	add := func(t int64, v float64) { ts, vs = append(ts, float64(t)), append(vs, v) }
	for i := range int64(3600) {
		add(now-i, float64(i%500))
	}
	for i := range int64(14400) {
		add(now-3600-60*i, float64(i%2000)-300)
	}
	for v := range 20000 {
		add(now-int64(v)*37, float64(v)+float64(v%2)*0.5)
	}
	for v := 1.0; v < 1e15; v *= 3.7 {
		add(now-int64(v)%600000, v)
		add(now+60, -v) // posted after now
	}
	return ts, vs
}

// checkRankMatchesGo compares rank in the scripts of c with Formula.Score,
// bit for bit.
func checkRankMatchesGo(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	ts, vs := rankInputs(now.Unix())
	for _, f := range []Formula{Linear{Weight: 432}, Linear{Weight: 0.1}, Hot{Divisor: 45000}, Hot{Divisor: 12.5},
		Gravity{Gravity: 1.8}, Gravity{Gravity: 1.5}, Gravity{Gravity: 3}} {
		name, param := f.scriptArgs()
		const chunk = 2000
		diff := 0
		for start := 0; start < len(ts); start += chunk {
			args := []any{name, param, now.Unix()}
			end := min(start+chunk, len(ts))
			for i := start; i < end; i++ {
				args = append(args, ts[i], vs[i])
			}
			out, err := rankAllCmd.Run(ctx, c, nil, args...).StringSlice()
			if err != nil {
				t.Fatal(err)
			}
			for i := start; i < end; i++ {
				lua, err := strconv.ParseFloat(out[i-start], 64)
				if err != nil {
					t.Fatal(err)
				}
				if g := f.Score(time.Unix(int64(ts[i]), 0), vs[i], now); math.Float64bits(g) != math.Float64bits(lua) {
					if diff++; diff <= 3 {
						t.Errorf("%s %g: t %d, votes %g: Go %.17g, Lua %.17g", name, param, int64(ts[i]), vs[i], g, lua)
					}
				}
			}
		}
		if diff > 0 {
			t.Errorf("%s %g: %d of %d scores differ between Go and Lua", name, param, diff, len(ts))
		}
	}
}

func TestRankIsTheSameInGoAndLua(t *testing.T) {
	t.Run("redis-server", func(t *testing.T) { checkRankMatchesGo(t, redistest.Start(t).Client()) })
	t.Run("embedded", func(t *testing.T) {
		c, err := rdb.Open(context.Background(), rdb.DefaultOptions(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		checkRankMatchesGo(t, c)
	})
}

// TestExactMathIsAccurate compares ln, exp, log10 and pow with the math
// package: ln, exp and log10 within 3 units in the last place; pow, whose
// error is that of g·ln b times |g·ln b|, within a relative 1e-14.
func TestExactMathIsAccurate(t *testing.T) {
	ulps := func(a, b float64) float64 {
		if a == b {
			return 0
		}
		return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
	}
	worst := map[string]float64{}
	check := func(name string, got, want float64) {
		if u := ulps(got, want); u > worst[name] {
			worst[name] = u
		}
	}
	for x := 1e-300; x < 1e300; x *= 1.0137 {
		check("ln", ln(x), math.Log(x))
		check("log10", log10(x), math.Log10(x))
	}
	for v := 1; v < 200000; v++ {
		check("log10", log10(float64(v)), math.Log10(float64(v)))
	}
	for y := -700.0; y < 700; y += 0.0137 {
		check("exp", exp(y), math.Exp(y))
	}
	for age := 0.0; age < 400; age += 1.0 / 60 {
		for _, g := range []float64{1.5, 1.8, 3} {
			check("pow", pow(age+2, g), math.Pow(age+2, g))
		}
	}
	for name, u := range worst {
		t.Logf("%s: worst %.2f ulp", name, u)
		if limit := map[string]float64{"pow": 1e-14 / 0x1p-52}[name]; u > max(3, limit) {
			t.Errorf("%s is %.2f units in the last place off", name, u)
		}
	}
}
