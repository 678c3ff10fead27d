package hlo_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// syntaxModule is one module of testdata/xla-today/syntax/syntax.hlo: the rows of
// SYNTAX.md it shows and XLA's printing of it.
type syntaxModule struct {
	rows []string
	text string
}

func syntaxModules(t *testing.T) []syntaxModule {
	t.Helper()
	src := hlotest.ReadTestdata(t, "xla-today", "syntax", "syntax.hlo")
	var ms []syntaxModule
	for _, chunk := range strings.Split(string(src), "// -----\n") {
		tag, text, ok := strings.Cut(chunk, "\n")
		require.True(t, ok && strings.HasPrefix(tag, "// syntax: "), "chunk without its syntax line: %.80q", chunk)
		ms = append(ms, syntaxModule{rows: strings.Fields(strings.TrimPrefix(tag, "// syntax: ")), text: text})
	}
	require.NotEmpty(t, ms)
	return ms
}

// TestSyntaxRoundTrip parses each module of testdata/xla-today/syntax/syntax.hlo
// (the modules of gen/syntax_in.hlo as the pinned XLA prints them) and
// requires the same bytes back, and a stable long spelling.
func TestSyntaxRoundTrip(t *testing.T) {
	for _, sm := range syntaxModules(t) {
		t.Run(sm.rows[0], func(t *testing.T) {
			m, err := hlo.ParseString(sm.text)
			require.NoError(t, err)
			assert.Equal(t, sm.text, m.String(), "XLA's printing does not print back byte for byte")
			var b strings.Builder
			require.NoError(t, m.Print(&b, hlo.PrintOptions{Classic: true}))
			m2, err := hlo.ParseString(b.String())
			require.NoError(t, err)
			var b2 strings.Builder
			require.NoError(t, m2.Print(&b2, hlo.PrintOptions{Classic: true}))
			assert.Equal(t, b.String(), b2.String())
			assertSameGraph(t, m, m2)
		})
	}
}

// syntaxRow is one row of a table of SYNTAX.md.
type syntaxRow struct {
	ids                  []string
	prints, ours, test   string
	line                 int
	roundTrip, construct string
}

var rowIDs = regexp.MustCompile("`([a-z0-9_.]+)`")

func syntaxRows(t *testing.T) []syntaxRow {
	t.Helper()
	doc, err := os.ReadFile("SYNTAX.md")
	require.NoError(t, err)
	var rows []syntaxRow
	for i, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		require.Len(t, cells, 8, "SYNTAX.md:%d: want 8 cells", i+1)
		r := syntaxRow{construct: cells[1], prints: cells[4], ours: cells[5], roundTrip: cells[6], test: strings.TrimSpace(cells[7]), line: i + 1}
		for _, m := range rowIDs.FindAllStringSubmatch(cells[0], -1) {
			r.ids = append(r.ids, m[1])
		}
		require.NotEmpty(t, r.ids, "SYNTAX.md:%d", i+1)
		rows = append(rows, r)
	}
	require.NotEmpty(t, rows)
	return rows
}

// TestSyntaxTable checks hlo/SYNTAX.md against the tests: every row whose
// test is "syntax" is shown by a module of syntax.hlo and every id there
// is a row; the unit tests a row names exist; no construct XLA prints is
// unsupported.
func TestSyntaxTable(t *testing.T) {
	rows := syntaxRows(t)
	tagged := map[string]bool{}
	for _, sm := range syntaxModules(t) {
		for _, id := range sm.rows {
			tagged[id] = true
		}
	}
	var tests []string
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(`).FindAllSubmatch(src, -1) {
			tests = append(tests, string(m[1]))
		}
	}
	known := map[string]bool{}
	for _, r := range rows {
		for _, id := range r.ids {
			assert.False(t, known[id], "SYNTAX.md:%d: row %s twice", r.line, id)
			known[id] = true
			if strings.Contains(r.test, "syntax") {
				assert.True(t, tagged[id], "SYNTAX.md:%d: no module of syntax.hlo shows %s", r.line, id)
			}
		}
		for _, name := range regexp.MustCompile(`Test\w+`).FindAllString(r.test, -1) {
			assert.True(t, slices.Contains(tests, name), "SYNTAX.md:%d: no test %s in hlo/", r.line, name)
		}
		if r.prints == "yes" {
			assert.False(t, strings.HasPrefix(r.ours, "no"), "SYNTAX.md:%d: XLA prints %s but hlo-opt does not read it", r.line, r.construct)
		}
	}
	for id := range tagged {
		assert.True(t, known[id], "syntax.hlo shows %s, which SYNTAX.md has no row for", id)
	}
}

// TestOtherXLASpellings reads what older XLA printed and today's XLA no
// longer does (original_value=, conv_kind=, type= on compare, atan), newer
// attributes kept verbatim, and a computation written inline as an
// attribute value, which XLA reads (and prints only in its canonical form).
func TestOtherXLASpellings(t *testing.T) {
	src := `HloModule m, origin_recovery_table={ {"a"}: {"b"} }

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[8,16] parameter(0), original_value={{"p"}}
  w = f32[16,8] parameter(1)
  a = f32[8,16] atan(p)
  c = pred[8,16] compare(a, p), direction=LT, type=TOTALORDER
  d = f32[8,8] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity_config={}, block_scaling_config={}
  x = f32[1,8,8,1] parameter(2)
  k = f32[3,3,1,1] parameter(3)
  v = f32[1,6,6,1] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, conv_kind=fprop
  ROOT t = (pred[8,16], f32[8,8], f32[1,6,6,1]) tuple(c, d, v)
}
`
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	printed := m.String()
	for _, s := range []string{`origin_recovery_table={ {"a"}: {"b"} }`, `original_value={{"p"}}`, "atan(", "type=TOTALORDER", "sparsity_config={}", "block_scaling_config={}", "conv_kind=fprop"} {
		assert.Contains(t, printed, s)
	}
	m2, err := hlo.ParseString(printed)
	require.NoError(t, err)
	assert.Equal(t, printed, m2.String())

	m, err = hlo.ParseFile("n.hlo", []byte("ENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={ a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n}\n"))
	require.NoError(t, err)
	inline := m.Computation("e.r.to_apply")
	require.NotNil(t, inline, "the inline computation is one of the module, named after its caller")
	assert.Equal(t, []*hlo.Computation{inline}, m.Entry.Root.Called)
	assert.Contains(t, m.String(), "to_apply=%e.r.to_apply")
}
