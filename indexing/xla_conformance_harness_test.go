package indexing

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// verdict is how one of our maps compares with XLA's expectation.
type verdict int

const (
	verdictExact      verdict = iota // same text after parsing both
	verdictEquivalent                // different text, same points and results
	verdictDifferent                 // different meaning
)

func (v verdict) String() string {
	return [...]string{"exact", "equivalent", "different"}[v]
}

// maxEnumeration bounds the points enumerated to compare two maps
// semantically.
const maxEnumeration = 1_000_000

var operandIDRE = regexp.MustCompile(`operand id = (\d+)`)

// parseXLAIndexing splits the text of XLA's HloInstructionIndexing::ToString
// (as XLA's tests write it) into per-operand lists of map texts. A
// "runtime variables:" section, which names the HLO values behind rt
// variables, is dropped: our maps do not carry it.
func parseXLAIndexing(t *testing.T, text string) [][]string {
	t.Helper()
	locs := operandIDRE.FindAllStringSubmatchIndex(text, -1)
	out := make([][]string, len(locs))
	for i, loc := range locs {
		id, err := strconv.Atoi(text[loc[2]:loc[3]])
		require.NoError(t, err)
		require.Equal(t, i, id, "operand ids in order")
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		block := text[loc[1]:end]
		if k := strings.Index(block, "runtime variables:"); k >= 0 {
			block = block[:k]
		}
		out[i] = splitMaps(block)
	}
	return out
}

// splitMaps splits a block of maps printed back to back: a map starts on a
// line that begins with "(" and holds "->", or is a special map.
func splitMaps(block string) []string {
	var maps []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			maps = append(maps, strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ","))
			cur = nil
		}
	}
	replica := false // the lines of a map's "replica id:" section follow it
	for _, line := range strings.Split(block, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
			continue
		case l == "KNOWN EMPTY" || l == "unknown indexing":
			flush()
			maps = append(maps, l)
			continue
		case l == "replica id:":
			replica = true
		case strings.HasPrefix(l, "(") && strings.Contains(l, "->"):
			if !replica {
				flush()
			}
			replica = false
		}
		cur = append(cur, l)
	}
	flush()
	return maps
}

// parseXLAMap parses one expected map; "unknown indexing" is the undefined
// map.
func parseXLAMap(t *testing.T, s string) *IndexingMap {
	t.Helper()
	if s == "unknown indexing" {
		return Undefined()
	}
	m, err := ParseIndexingMap(s)
	require.NoError(t, err, s)
	return m
}

// canonicalText is the one-line text of a map after a parse round trip, so
// that both sides go through the same normalisation.
func canonicalText(t *testing.T, m *IndexingMap) string {
	t.Helper()
	if m.IsUndefined() {
		return "UNDEFINED"
	}
	p, err := ParseIndexingMap(m.String())
	require.NoError(t, err, m.String())
	return p.String()
}

// resultsAt returns the set of results of m at dimension point d over its
// feasible symbols and runtime variables (empty when d is outside the
// domain), as printed keys.
func resultsAt(m *IndexingMap, d []int64) map[string]bool {
	set := map[string]bool{}
	if m.IsKnownEmpty() {
		return set
	}
	var vars []Interval
	for _, v := range slices.Concat(m.RangeVars(), m.RTVars()) {
		vars = append(vars, v.Bounds)
	}
	ns := m.NumRangeVars()
	p := make([]int64, len(vars))
	for i, iv := range vars {
		if iv.Upper < iv.Lower {
			return set
		}
		p[i] = iv.Lower
	}
	for {
		if m.Contains(d, p[:ns], p[ns:]) {
			set[fmt.Sprint(m.Evaluate(d, p[:ns], p[ns:]))] = true
		}
		k := len(p) - 1
		for ; k >= 0; k-- {
			if p[k] < vars[k].Upper {
				p[k]++
				break
			}
			p[k] = vars[k].Lower
		}
		if k < 0 {
			return set
		}
	}
}

// innerSize is the number of symbol and runtime points of m.
func innerSize(m *IndexingMap) int64 {
	n := int64(1)
	for _, v := range slices.Concat(m.RangeVars(), m.RTVars()) {
		n *= max(0, v.Bounds.Upper-v.Bounds.Lower+1)
	}
	return n
}

// equivalent reports whether two maps have the same feasible dimension
// points and, at each, the same set of results (symbols and runtime
// variables are existential, so their names and order do not matter). When
// the full enumeration exceeds maxEnumeration points, the dimension points
// checked are a deterministic sample (the first and last ones and a
// strided set) and sampled is set.
func equivalent(a, b *IndexingMap) (ok bool, why string) {
	ok, why, _ = equivalentSampled(a, b)
	return ok, why
}

func equivalentSampled(a, b *IndexingMap) (ok bool, why string, sampled bool) {
	if a.IsUndefined() || b.IsUndefined() {
		return a.IsUndefined() == b.IsUndefined(), "undefined vs defined", false
	}
	if !a.IsKnownEmpty() && !b.IsKnownEmpty() {
		if a.NumDims() != b.NumDims() || a.NumResults() != b.NumResults() {
			return false, "different arity", false
		}
	}
	n := max(a.NumDims(), b.NumDims())
	box := make([]Interval, n)
	for i := range box {
		box[i] = Interval{Lower: 1 << 40, Upper: -(1 << 40)}
		for _, m := range []*IndexingMap{a, b} {
			if m.IsKnownEmpty() || i >= m.NumDims() {
				continue
			}
			iv := m.Dims()[i].Bounds
			box[i] = Interval{Lower: min(box[i].Lower, iv.Lower), Upper: max(box[i].Upper, iv.Upper)}
		}
	}
	points := int64(1)
	for _, iv := range box {
		points *= max(0, iv.Upper-iv.Lower+1)
	}
	if points == 0 {
		return true, "", false
	}
	inner := max(1, innerSize(a)+innerSize(b))
	step := int64(1)
	if points*inner > maxEnumeration {
		sampled = true
		budget := max(1, maxEnumeration/inner)
		step = max(1, points/budget)
		for step > 1 && points%step == 0 {
			step++ // avoid strides aligned with a dimension
		}
	}
	d := make([]int64, n)
	check := func(flat int64) (bool, string) {
		for i := n - 1; i >= 0; i-- {
			size := box[i].Upper - box[i].Lower + 1
			d[i] = box[i].Lower + flat%size
			flat /= size
		}
		ra, rb := resultsAt(a, d), resultsAt(b, d)
		for k := range ra {
			if !rb[k] {
				return false, fmt.Sprintf("XLA has %v -> %s", d, k)
			}
		}
		for k := range rb {
			if !ra[k] {
				return false, fmt.Sprintf("ours has %v -> %s", d, k)
			}
		}
		return true, ""
	}
	for flat := int64(0); flat < points; flat += step {
		if ok, why := check(flat); !ok {
			return false, why, sampled
		}
	}
	if ok, why := check(points - 1); !ok {
		return false, why, sampled
	}
	return true, "", sampled
}

// compareSets matches XLA's maps of one operand with ours (as sets):
// exact matches first, then semantic ones. It returns the worst verdict and
// a description of the mismatch.
func compareSets(t *testing.T, want []*IndexingMap, got []*IndexingMap) (verdict, string) {
	t.Helper()
	if len(want) != len(got) {
		return verdictDifferent, fmt.Sprintf("XLA has %d maps, ours %d: %v", len(want), len(got), texts(got))
	}
	used := make([]bool, len(got))
	var rest []*IndexingMap
	for _, w := range want {
		wt := canonicalText(t, w)
		found := false
		for j, g := range got {
			if !used[j] && canonicalText(t, g) == wt {
				used[j], found = true, true
				break
			}
		}
		if !found {
			rest = append(rest, w)
		}
	}
	v := verdictExact
	for _, w := range rest {
		found := false
		var why string
		for j, g := range got {
			if used[j] {
				continue
			}
			ok, reason, sampled := equivalentSampled(w, g)
			if ok && sampled {
				t.Logf("equivalence of %s checked on a sample of its domain", canonicalText(t, w))
			}
			if ok && conformanceSize(g) > conformanceSize(w) {
				ok, reason = false, fmt.Sprintf("ours %s is bigger than XLA's (size %d > %d)", g, conformanceSize(g), conformanceSize(w))
			}
			if ok {
				used[j], found = true, true
				break
			}
			why = reason
		}
		if !found {
			return verdictDifferent, fmt.Sprintf("no match for XLA's %s among %v (%s)", canonicalText(t, w), texts(got), why)
		}
		v = verdictEquivalent
	}
	return v, ""
}

// conformanceSize measures how big a map is for the "equal one no bigger"
// rule: the expression nodes of its results and constraints, its
// constraints, and its range and runtime variables (and those of its
// replica id map).
func conformanceSize(m *IndexingMap) int {
	if m.IsUndefined() || m.IsKnownEmpty() {
		return 0
	}
	n := mapSize(m) + len(m.constraints) + len(m.ranges) + len(m.rts)
	if m.replica != nil {
		n += conformanceSize(m.replica)
	}
	return n
}

func texts(ms []*IndexingMap) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// checkKind is the direction of an indexing check.
type checkKind int

const (
	outToIn checkKind = iota // GetOutputToInputIndexing(root, id)
	inToOut                  // GetInputToOutputIndexing(root, id)
)

// xlaCheck is one EXPECT_THAT of an XLA test: the direction, the output or
// input id, and the expected HloInstructionIndexing text copied from the
// test. physical composes with the layouts of the operands and results.
// A check XLA expects differently from us on purpose has differs (the
// reason) and ours (what we print instead, asserted exactly).
type xlaCheck struct {
	kind     checkKind
	id       int
	physical bool
	want     string
	differs  string
	ours     string
}

// xlaIndexingCase is one XLA test: its HLO and checks on the entry root.
type xlaIndexingCase struct {
	name   string
	hlo    string
	checks []xlaCheck
}

// readXLAIndexingCases reads testdata/indexing/xla-conformance.txtar, whose
// comment says how it is written.
func readXLAIndexingCases(t *testing.T) []xlaIndexingCase {
	t.Helper()
	var cases []xlaIndexingCase
	for _, f := range hlotest.ReadArchive(t, "../testdata/indexing/xla-conformance.txtar").Files {
		name, spec, isCheck := strings.Cut(f.Name, ": ")
		if !isCheck {
			cases = append(cases, xlaIndexingCase{name: name, hlo: f.Data})
			continue
		}
		require.NotEmpty(t, cases, f.Name)
		tc := &cases[len(cases)-1]
		require.Equal(t, tc.name, name, "a check follows the HLO of its case")
		if spec, ok := strings.CutSuffix(spec, ", ours"); ok {
			require.Equal(t, spec, checkSpec(tc.checks[len(tc.checks)-1]), f.Name)
			tc.checks[len(tc.checks)-1].ours = f.Data
			continue
		}
		if spec, ok := strings.CutSuffix(spec, ", why ours differs"); ok {
			require.Equal(t, spec, checkSpec(tc.checks[len(tc.checks)-1]), f.Name)
			tc.checks[len(tc.checks)-1].differs = strings.TrimSpace(f.Data)
			continue
		}
		c := xlaCheck{want: f.Data}
		dir, physical := strings.CutSuffix(spec, ", physical")
		c.physical = physical
		if _, err := fmt.Sscanf(dir, "output %d to inputs", &c.id); err != nil {
			c.kind = inToOut
			_, err = fmt.Sscanf(dir, "input %d to output", &c.id)
			require.NoError(t, err, f.Name)
		}
		require.Equal(t, spec, checkSpec(c), "%s: a check's name as checkSpec writes it", f.Name)
		tc.checks = append(tc.checks, c)
	}
	return cases
}

// checkSpec names a check as the conformance archive does.
func checkSpec(c xlaCheck) string {
	s := fmt.Sprintf("output %d to inputs", c.id)
	if c.kind == inToOut {
		s = fmt.Sprintf("input %d to output", c.id)
	}
	if c.physical {
		s += ", physical"
	}
	return s
}

// rootOf parses the module and returns the entry root; XLA's tests omit the
// HloModule line sometimes.
func rootOf(t *testing.T, src string) *hlo.Instruction {
	t.Helper()
	if !strings.Contains(src, "HloModule") {
		src = "HloModule m\n" + src
	}
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	require.NotNil(t, m.Entry)
	return m.Entry.Root
}

// physicalToLogical is the inverse of the (untiled) layout permutation of s:
// from the physical index (major to minor) to the logical one.
func physicalToLogical(s hlo.Shape) *IndexingMap {
	m2m := s.MinorToMajor()
	n := len(m2m)
	res := make([]*Expr, n)
	phys := make([]int64, n)
	for j := range n {
		l := int(m2m[n-1-j])
		res[l] = Dim(j)
		phys[j] = s.Dims[l]
	}
	return MustNewIndexingMap(VarsFromSizes(phys), nil, nil, res)
}

// physicalIndexing composes a logical indexing with the layouts: from the
// physical index of from to the physical indices of each of to.
func physicalIndexing(t *testing.T, h *HloInstructionIndexing, from hlo.Shape, to []hlo.Shape) *HloInstructionIndexing {
	t.Helper()
	out := newIndexing(len(h.Maps))
	for i, set := range h.Maps {
		for _, m := range set {
			c, err := Compose(physicalToLogical(from), m)
			require.NoError(t, err)
			c, err = Compose(c, PhysicalIndexMap(to[i]))
			require.NoError(t, err)
			c, _ = c.Simplify().RemoveUnusedSymbols()
			out.Add(i, c)
		}
	}
	return out
}

// runCheck computes our indexing for one check.
func runCheck(t *testing.T, root *hlo.Instruction, c xlaCheck) *HloInstructionIndexing {
	t.Helper()
	var h *HloInstructionIndexing
	var err error
	if c.kind == outToIn {
		h, err = ComputeOutputToInput(root, c.id)
	} else {
		h, err = ComputeInputToOutput(root, c.id)
	}
	require.NoError(t, err)
	if c.physical {
		var ops []hlo.Shape
		for _, op := range root.Operands {
			ops = append(ops, op.Shape)
		}
		if c.kind == outToIn {
			h = physicalIndexing(t, h, root.Shape, ops)
		} else {
			h = physicalIndexing(t, h, ops[c.id], []hlo.Shape{root.Shape})
		}
	}
	return h
}

// conformance tallies the verdicts of a table run; verdicts has one per
// check, for the summary golden.
type conformance struct {
	exact, equivalent, documented, different int
	equivalentNames                          []string
	verdicts                                 []hlotest.Verdict
}

// runXLAIndexingCases checks every case and returns the tally. Equivalent
// and different checks are logged with both texts.
func runXLAIndexingCases(t *testing.T, cases []xlaIndexingCase) conformance {
	var tally conformance
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := rootOf(t, tc.hlo)
			for ci, c := range tc.checks {
				label := fmt.Sprintf("%s#%d", tc.name, ci)
				verdict := hlotest.Verdict{Suite: "indexing analysis", Name: label, Check: checkSpec(c)}
				got := runCheck(t, root, c)
				if c.differs != "" {
					tally.documented++
					verdict.Differs = c.differs
					tally.verdicts = append(tally.verdicts, verdict)
					assert.Equal(t, strings.TrimSpace(c.ours), strings.TrimSpace(got.String()), "%s: %s", label, c.differs)
					continue
				}
				want := parseXLAIndexing(t, c.want)
				if len(got.Maps) != len(want) {
					tally.different++
					verdict.Detail = fmt.Sprintf("%d operands instead of %d:\n%s", len(got.Maps), len(want), got)
					tally.verdicts = append(tally.verdicts, verdict)
					continue
				}
				v := verdictExact
				for i := range want {
					var wm []*IndexingMap
					for _, s := range want[i] {
						wm = append(wm, parseXLAMap(t, s))
					}
					ov, why := compareSets(t, wm, got.Maps[i])
					if ov == verdictDifferent && verdict.Detail == "" {
						verdict.Detail = fmt.Sprintf("operand %d: %s", i, why)
					}
					v = max(v, ov)
				}
				switch v {
				case verdictExact:
					tally.exact++
				case verdictEquivalent:
					tally.equivalent++
					tally.equivalentNames = append(tally.equivalentNames, label)
					t.Logf("%s equivalent:\nXLA:\n%s\nours:\n%s", label, strings.TrimSpace(c.want), got)
				default:
					tally.different++
				}
				verdict.Pass = v != verdictDifferent
				tally.verdicts = append(tally.verdicts, verdict)
			}
		})
	}
	return tally
}
