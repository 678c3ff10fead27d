package passes

import (
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Stats counts instructions by opcode and fusions by kind, per non-fusion
// computation and for the module, with parameter and output bytes.
//
// Bytes are unpadded: elements times the element width (E(n) of the layout
// when given), rounded up to whole bytes per array, summed over tuple
// leaves. Tiling padding is the layout pass's business.
var Stats = &Pass{
	Name:           "stats",
	Doc:            "count instructions by opcode, fusions by kind, parameter and output bytes",
	ResultType:     reflect.TypeFor[*StatsResult](),
	RunComputation: statsComputation,
	Run:            statsModule,
}

// ComputationStats are the counts of one computation.
type ComputationStats struct {
	// Instructions is the number of instructions of the computation itself.
	Instructions int `json:"instructions"`
	// FusedInstructions counts the instructions of the fused computations
	// its fusion instructions call (transitively).
	FusedInstructions int `json:"fused_instructions"`
	// ByOpcode counts the computation's own instructions by opcode.
	ByOpcode Counts `json:"by_opcode"`
	// Fusions counts fusion instructions by kind (kLoop, kInput, ...).
	Fusions Counts `json:"fusions"`
	// ParameterBytes is the total size of the parameters.
	ParameterBytes int64 `json:"parameter_bytes"`
	// OutputBytes is the size of the root.
	OutputBytes int64 `json:"output_bytes"`
}

// Count is one entry of a Counts.
type Count struct {
	Key string
	N   int
}

// Counts are counts by name, each name once with N > 0, in no particular
// order. They are kept as a list since a module has hundreds of
// computations with a few dozen names each, which maps would make
// costlier to build than to count; Map converts them. In JSON they are an
// object with the keys sorted, as a map[string]int is.
type Counts []Count

// Map returns the counts as a new map (empty, not nil, when there are
// none).
func (cs Counts) Map() map[string]int {
	m := make(map[string]int, len(cs))
	for _, e := range cs {
		m[e.Key] += e.N
	}
	return m
}

// Get returns the count of key (0 when absent).
func (cs Counts) Get(key string) int {
	for _, e := range cs {
		if e.Key == key {
			return e.N
		}
	}
	return 0
}

// MarshalJSON writes the counts as a JSON object sorted by key, without
// HTML escaping: the bytes a map[string]int gets in a report.
func (cs Counts) MarshalJSON() ([]byte, error) {
	sorted := slices.SortedFunc(slices.Values(cs), func(a, b Count) int { return strings.Compare(a.Key, b.Key) })
	buf := make([]byte, 0, 2+len(cs)*16)
	buf = append(buf, '{')
	for i, e := range sorted {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, err := marshal(e.Key)
		if err != nil {
			return nil, err
		}
		buf = append(buf, k...)
		buf = append(buf, ':')
		buf = strconv.AppendInt(buf, int64(e.N), 10)
	}
	return append(buf, '}'), nil
}

// ModuleStats are the module's totals.
type ModuleStats struct {
	Computations       int `json:"computations"`
	FusionComputations int `json:"fusion_computations"`
	// Instructions counts every instruction of every computation.
	Instructions int `json:"instructions"`
	// ByOpcode counts every instruction of every computation by opcode.
	ByOpcode map[string]int `json:"by_opcode"`
	// Fusions counts every fusion instruction by kind.
	Fusions map[string]int `json:"fusions"`
	// ParameterBytes and OutputBytes are those of the entry computation.
	ParameterBytes int64 `json:"parameter_bytes"`
	OutputBytes    int64 `json:"output_bytes"`
}

// StatsResult is the result of Stats.
type StatsResult struct {
	Module ModuleStats
	// Computations holds the stats of each non-fusion computation, indexed
	// like Module.Computations (nil for fusion computations). Computations
	// with equal stats may share one value: results are read-only.
	Computations []*ComputationStats
	mod          *hlo.Module
}

// Of returns the stats of computation c, or nil.
func (r *StatsResult) Of(c *hlo.Computation) *ComputationStats {
	if i := r.mod.ComputationIndex(c); i >= 0 {
		return r.Computations[i]
	}
	return nil
}

// ModuleReport is the JSON value of "stats" at module level.
func (r *StatsResult) ModuleReport() any { return &r.Module }

// ComputationReport is the JSON value of "stats" for c.
func (r *StatsResult) ComputationReport(c *hlo.Computation) any {
	if s := r.Of(c); s != nil {
		return s
	}
	return nil
}

// WriteText writes a table of the computations and the module's opcode
// counts.
func (r *StatsResult) WriteText(w io.Writer, m *hlo.Module) error {
	ms := &r.Module
	fmt.Fprintf(w, "stats: module %s: %d computations (%d fusion), %d instructions, entry parameters %s, output %s\n",
		m.Name, ms.Computations, ms.FusionComputations, ms.Instructions, FormatBytes(ms.ParameterBytes), FormatBytes(ms.OutputBytes))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "computation\tinstructions\tfused\tfusions\tparameter bytes\toutput bytes\t")
	for i, s := range r.Computations {
		if s == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t\n", m.Computations[i].Name, s.Instructions, s.FusedInstructions, countList(s.Fusions), s.ParameterBytes, s.OutputBytes)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "opcodes: %s\n", countList(counts(ms.ByOpcode)))
	_, err := fmt.Fprintf(w, "fusions: %s\n", countList(counts(ms.Fusions)))
	return err
}

// countList prints counts as "add 3, multiply 2" by decreasing count, then
// name; "-" when empty.
func countList(cs Counts) string {
	if len(cs) == 0 {
		return "-"
	}
	sorted := slices.SortedFunc(slices.Values(cs), func(a, b Count) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return strings.Compare(a.Key, b.Key)
	})
	parts := make([]string, len(sorted))
	for i, e := range sorted {
		parts[i] = fmt.Sprintf("%s %d", e.Key, e.N)
	}
	return strings.Join(parts, ", ")
}

// ShapeBytes is the unpadded size of a shape: for each array leaf, elements
// times the element width (the layout's E(n) if set), rounded up to bytes.
func ShapeBytes(s hlo.Shape) int64 {
	if s.IsTuple() {
		var total int64
		for i := range s.Tuple {
			total += ShapeBytes(s.Tuple[i])
		}
		return total
	}
	if !s.IsArray() {
		return 0
	}
	bits := int64(s.Type.BitWidth())
	if s.Layout != nil && s.Layout.ElementSizeBits > 0 {
		bits = s.Layout.ElementSizeBits
	}
	return (s.ElementCount()*bits + 7) / 8
}

func fusionKind(in *hlo.Instruction) string {
	if in.Typed.FusionKind != "" {
		return in.Typed.FusionKind
	}
	if k, ok := in.Attr("kind"); ok {
		return k
	}
	return "unknown"
}

// statsPart is what statsComputation returns for a computation with fusion
// instructions: its stats and the opcode and fusion counts of the
// computation plus the fused computations it owns (those whose first
// caller is in it), so that the module totals need no serial pass over the
// instructions. Computations without fusions, most of them, return just
// their *ComputationStats (half the bytes: the allocations of a run are
// what sets the collector's pace).
type statsPart struct {
	stats       ComputationStats // in the part: one allocation for both
	instrs      int
	fusionComps int
	// ops and kinds count by opcode and fusion kind, as lists, which the
	// serial merge in statsModule reads faster than maps.
	ops, kinds Counts
}

// counts lists the entries of m, sorted by key.
func counts(m map[string]int) Counts {
	if len(m) == 0 {
		return nil
	}
	out := make(Counts, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Count{k, m[k]})
	}
	return out
}

func statsComputation(u *Unit) (any, error) {
	c := u.Computation
	part := statsPart{stats: ComputationStats{Instructions: len(c.Instructions)}}
	s := &part.stats
	// own counts c's opcodes, fused those of the fused computations c
	// owns (allocated on first use); kinds count fusion kinds the same
	// way.
	var own, ownKinds tally
	var fused, fusedKinds *tally
	hasFusion := false
	count := func(c *hlo.Computation, ops, kinds *tally) error {
		for i, in := range c.Instructions {
			if i%1024 == 0 {
				if err := u.Context().Err(); err != nil {
					return err
				}
			}
			ops.add(string(in.Opcode), 1)
			if in.Opcode == hlo.OpFusion {
				hasFusion = true
				kinds.add(fusionKind(in), 1)
			}
		}
		part.instrs += len(c.Instructions)
		return nil
	}
	if err := count(c, &own, &ownKinds); err != nil {
		return nil, err
	}
	var seen map[*hlo.Computation]bool
	var walk func(c *hlo.Computation) error
	walk = func(c *hlo.Computation) error {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpFusion {
				continue
			}
			for _, fc := range in.Called {
				if fc == nil || seen[fc] {
					continue
				}
				if seen == nil {
					seen = map[*hlo.Computation]bool{}
				}
				seen[fc] = true
				s.FusedInstructions += len(fc.Instructions)
				if callers := u.CallGraph.Callers(fc); len(callers) > 0 && callers[0].Caller == in {
					part.fusionComps++
					if fused == nil {
						fused, fusedKinds = new(tally), new(tally)
					}
					if err := count(fc, fused, fusedKinds); err != nil {
						return err
					}
				}
				if err := walk(fc); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if hasFusion {
		if err := walk(c); err != nil {
			return nil, err
		}
	}
	for _, p := range c.Params {
		if p != nil {
			s.ParameterBytes += ShapeBytes(p.Shape)
		}
	}
	if c.Root != nil {
		s.OutputBytes = ShapeBytes(c.Root.Shape)
	}
	if fused == nil {
		// The module totals read the computation's own counts. Equal
		// stats are shared: a module has hundreds of small computations
		// (reducers, comparators) that count the same.
		share := u.Local(newStatsShare).(*statsShare)
		if cs := share.find(s, &own, &ownKinds); cs != nil {
			return cs, nil
		}
		s.ByOpcode, s.Fusions = own.list(), ownKinds.list()
		out := new(ComputationStats)
		*out = *s
		share.add(out)
		return out, nil
	}
	s.ByOpcode, s.Fusions = own.list(), ownKinds.list()
	for _, e := range s.ByOpcode {
		fused.add(e.Key, e.N)
	}
	for _, e := range s.Fusions {
		fusedKinds.add(e.Key, e.N)
	}
	part.ops, part.kinds = fused.list(), fusedKinds.list()
	out := new(statsPart)
	*out = part
	return out, nil
}

// statsShare holds the last stats of computations without fusions that a
// worker made, for Unit.Local.
type statsShare struct {
	recent [16]*ComputationStats
	next   int
}

func newStatsShare() any { return new(statsShare) }

// find returns a recent stats equal to s with the counts ops and kinds, or
// nil.
func (sh *statsShare) find(s *ComputationStats, ops, kinds *tally) *ComputationStats {
	for _, cs := range sh.recent {
		if cs != nil && cs.Instructions == s.Instructions && cs.FusedInstructions == s.FusedInstructions &&
			cs.ParameterBytes == s.ParameterBytes && cs.OutputBytes == s.OutputBytes &&
			ops.equal(cs.ByOpcode) && kinds.equal(cs.Fusions) {
			return cs
		}
	}
	return nil
}

func (sh *statsShare) add(cs *ComputationStats) {
	sh.recent[sh.next] = cs
	sh.next = (sh.next + 1) % len(sh.recent)
}

// tally counts strings (opcodes), in a small open-addressing table until
// it is three quarters full, then in a map. Opcodes are few and their
// strings are mostly shared constants, so this is cheaper than a map.
type tally struct {
	slots [64]Count // N == 0: empty
	used  int
	over  map[string]int
}

func (t *tally) add(k string, n int) {
	if t.over != nil {
		t.over[k] += n
		return
	}
	h := uint(len(k))
	if len(k) > 0 {
		h ^= uint(k[0])<<1 ^ uint(k[len(k)-1])<<3 ^ uint(k[len(k)/2])<<5
	}
	for i := h % uint(len(t.slots)); ; i = (i + 1) % uint(len(t.slots)) {
		e := &t.slots[i]
		if e.N == 0 {
			if t.used == len(t.slots)*3/4 {
				t.spill()
				t.over[k] += n
				return
			}
			e.Key, e.N = k, n
			t.used++
			return
		}
		if e.Key == k {
			e.N += n
			return
		}
	}
}

// spill moves the table's counts into t.over.
func (t *tally) spill() {
	t.over = make(map[string]int, 2*t.used)
	for _, e := range t.slots {
		if e.N != 0 {
			t.over[e.Key] += e.N
		}
	}
}

// toMap returns the counts as a new map.
func (t *tally) toMap() map[string]int {
	if t.over != nil {
		return maps.Clone(t.over)
	}
	m := make(map[string]int, t.used)
	for _, e := range t.slots {
		if e.N != 0 {
			m[e.Key] = e.N
		}
	}
	return m
}

// equal reports whether list would return cs (a table that spilled into
// its map never is).
func (t *tally) equal(cs Counts) bool {
	if t.over != nil || t.used != len(cs) {
		return false
	}
	k := 0
	for _, e := range t.slots {
		if e.N != 0 {
			if e != cs[k] {
				return false
			}
			k++
		}
	}
	return true
}

// list returns the counts as a list.
func (t *tally) list() Counts {
	if t.over != nil {
		return counts(t.over)
	}
	if t.used == 0 {
		return nil
	}
	out := make(Counts, 0, t.used)
	for _, e := range t.slots {
		if e.N != 0 {
			out = append(out, e)
		}
	}
	return out
}

func statsModule(u *Unit) (any, error) {
	m := u.Module
	r := &StatsResult{mod: m, Computations: make([]*ComputationStats, len(m.Computations))}
	ms := &r.Module
	ms.Computations = len(m.Computations)
	var ops, kinds tally
	merge := func(part *statsPart, times int) {
		ms.Instructions += times * part.instrs
		ms.FusionComputations += times * part.fusionComps
		for _, e := range part.ops {
			ops.add(e.Key, times*e.N)
		}
		for _, e := range part.kinds {
			kinds.add(e.Key, times*e.N)
		}
	}
	// Shared stats (see statsShare) often follow one another: they are
	// merged once, times their run.
	var shared *ComputationStats
	times := 0
	flush := func() {
		if times > 0 {
			merge(&statsPart{instrs: shared.Instructions, ops: shared.ByOpcode, kinds: shared.Fusions}, times)
		}
		shared, times = nil, 0
	}
	for i, c := range m.Computations {
		switch v := u.Part(c).(type) {
		case *ComputationStats:
			r.Computations[i] = v
			if v != shared {
				flush()
				shared = v
			}
			times++
		case *statsPart:
			r.Computations[i] = &v.stats
			merge(v, 1)
		}
	}
	flush()
	ms.ByOpcode, ms.Fusions = ops.toMap(), kinds.toMap()
	if m.Entry != nil {
		if s := r.Of(m.Entry); s != nil {
			ms.ParameterBytes, ms.OutputBytes = s.ParameterBytes, s.OutputBytes
		}
	}
	return r, nil
}
