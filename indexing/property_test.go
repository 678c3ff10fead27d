package indexing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mapGen generates small random indexing maps whose domains are small
// enough to enumerate.
type mapGen struct {
	r       *rand.Rand
	numDims int
}

func (g *mapGen) interval() Interval {
	lo := g.r.Int64N(6) - 2
	return Interval{lo, lo + g.r.Int64N(6)}
}

func (g *mapGen) expr(depth int) *Expr {
	if depth == 0 || g.r.IntN(4) == 0 {
		switch g.r.IntN(5) {
		case 0:
			return Const(g.r.Int64N(11) - 5)
		case 1:
			return Sym(0)
		default:
			return Dim(g.r.IntN(g.numDims))
		}
	}
	switch g.r.IntN(6) {
	case 0:
		return Add(g.expr(depth-1), g.expr(depth-1))
	case 1:
		return Sub(g.expr(depth-1), g.expr(depth-1))
	case 2:
		return Mul(g.expr(depth-1), g.r.Int64N(9)-4)
	case 3:
		d := g.r.Int64N(8) + 1
		if g.r.IntN(6) == 0 {
			d = -d
		}
		return FloorDiv(g.expr(depth-1), d)
	case 4:
		if g.r.IntN(3) == 0 {
			return CeilDiv(g.expr(depth-1), g.r.Int64N(6)+1)
		}
		return Mod(g.expr(depth-1), g.r.Int64N(8)+1)
	}
	if g.r.IntN(5) == 0 {
		return MulExpr(g.expr(depth-1), g.expr(depth-1)) // non-affine, mostly
	}
	return Add(Mul(g.expr(depth-1), g.r.Int64N(16)+1), g.expr(depth-1))
}

func (g *mapGen) indexingMap() *IndexingMap {
	g.numDims = 2 + g.r.IntN(2)
	dims := make([]Variable, g.numDims)
	for i := range dims {
		dims[i].Bounds = g.interval()
	}
	results := make([]*Expr, 1+g.r.IntN(2))
	for i := range results {
		results[i] = g.expr(3)
	}
	sym := g.interval()
	varRange := func(v *Expr) Interval {
		if v.Kind() == KindSymbol {
			return sym
		}
		return dims[v.Value()].Bounds
	}
	var cons []Constraint
	for range g.r.IntN(3) {
		// Mostly pick bounds inside the expression's range, so that the
		// constraint neither always nor never holds.
		e := g.expr(2)
		b := g.interval()
		if r := e.Range(varRange); g.r.IntN(4) != 0 && r.Size() > 1 && r.Size() < 100 {
			lo := r.Lower + g.r.Int64N(r.Size())
			b = Interval{lo, lo + g.r.Int64N(r.Upper-lo+1)}
		}
		cons = append(cons, Constraint{e, b})
	}
	return MustNewIndexingMap(dims, []Variable{{Bounds: sym}}, nil, results, cons...)
}

// forEachPoint calls fn for every point of the box of m's variable bounds.
func forEachPoint(dims []Variable, sym Interval, fn func(d []int64, s []int64)) {
	d := make([]int64, len(dims))
	var rec func(i int)
	rec = func(i int) {
		if i == len(dims) {
			for s := sym.Lower; s <= sym.Upper; s++ {
				fn(d, []int64{s})
			}
			return
		}
		for v := dims[i].Bounds.Lower; v <= dims[i].Bounds.Upper; v++ {
			d[i] = v
			rec(i + 1)
		}
	}
	rec(0)
}

func mapSize(m *IndexingMap) int {
	n := 0
	for _, r := range m.results {
		n += r.Size()
	}
	for _, c := range m.constraints {
		n += c.Expr.Size()
	}
	return n
}

// TestSimplifyIsSound checks on 12,000 random maps that Simplify keeps the
// relation: the same domain points and, at each of them, the same results;
// and that it never makes a map larger.
func TestSimplifyIsSound(t *testing.T) {
	const numMaps = 12000
	g := &mapGen{r: rand.New(rand.NewPCG(1, 2))}
	var points, changed, builtEmpty, empty, trulyEmpty int
	for i := range numMaps {
		orig := g.indexingMap()
		simp := orig.Simplify()
		require.Equal(t, orig.NumDims(), simp.NumDims())
		require.Equal(t, orig.NumRangeVars(), simp.NumRangeVars())
		if simp.String() != orig.String() {
			changed++
		}
		require.LessOrEqual(t, mapSize(simp), mapSize(orig), "map %d grew:\n%s\n%s", i, orig, simp)
		if orig.IsKnownEmpty() {
			builtEmpty++
			continue
		}
		feasible := 0
		forEachPoint(orig.dims, orig.ranges[0].Bounds, func(d, s []int64) {
			points++
			in := orig.Contains(d, s, nil)
			if in {
				feasible++
			}
			require.Equal(t, in, simp.Contains(d, s, nil),
				"map %d, point %v %v: domain differs\norig: %s\nsimp: %s", i, d, s, orig, simp)
			if in {
				require.Equal(t, orig.Evaluate(d, s, nil), simp.Evaluate(d, s, nil),
					"map %d, point %v %v: results differ\norig: %s\nsimp: %s", i, d, s, orig, simp)
			}
		})
		if feasible == 0 {
			trulyEmpty++
			if simp.IsKnownEmpty() {
				empty++
			}
		}
		reparsed, err := ParseIndexingMap(simp.String())
		require.NoError(t, err, simp.String())
		require.Equal(t, simp.String(), reparsed.String())
	}
	t.Logf("%d maps (%d known empty when built), %d points checked; %d maps changed by Simplify; "+
		"%d others have an empty domain, Simplify marks %d of them known empty",
		numMaps, builtEmpty, points, changed, trulyEmpty, empty)
	assert.Greater(t, changed, numMaps/2, "the simplifier should rewrite most random maps")
}

// TestComposeIsSound checks on random pairs that composing and then
// evaluating equals evaluating the consumer, then the producer, on the
// points where both domains hold.
func TestComposeIsSound(t *testing.T) {
	g := &mapGen{r: rand.New(rand.NewPCG(3, 4))}
	for i := range 2000 {
		consumer := g.indexingMap()
		g.numDims = consumer.NumResults()
		dims := make([]Variable, g.numDims)
		for j := range dims {
			dims[j].Bounds = g.interval()
		}
		producer := MustNewIndexingMap(dims, []Variable{{Bounds: g.interval()}}, nil, []*Expr{g.expr(3), g.expr(2)})
		composed, err := Compose(consumer, producer)
		require.NoError(t, err)
		if consumer.IsKnownEmpty() {
			assert.True(t, composed.IsKnownEmpty())
			continue
		}
		forEachPoint(consumer.dims, consumer.ranges[0].Bounds, func(d, s []int64) {
			inner := consumer.Evaluate(d, s, nil)
			for ps := producer.ranges[0].Bounds.Lower; ps <= producer.ranges[0].Bounds.Upper; ps++ {
				cs := []int64{ps, s[0]} // producer's range variables come first
				want := consumer.Contains(d, s, nil) && producer.Contains(inner, []int64{ps}, nil)
				require.Equal(t, want, composed.Contains(d, cs, nil), "pair %d:\n%s\n%s\n%s", i, consumer, producer, composed)
				if want {
					require.Equal(t, producer.Evaluate(inner, []int64{ps}, nil), composed.Evaluate(d, cs, nil))
				}
			}
		})
	}
}

// BenchmarkSimplify measures the simplifier on random small maps.
func BenchmarkSimplify(b *testing.B) {
	g := &mapGen{r: rand.New(rand.NewPCG(5, 6))}
	maps := make([]*IndexingMap, 1000)
	for i := range maps {
		maps[i] = g.indexingMap()
	}
	n := 0
	for b.Loop() {
		maps[n%len(maps)].Simplify()
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "maps/s")
}
