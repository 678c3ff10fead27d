package indexing

import (
	"slices"
	"strconv"
	"strings"
)

// String prints the map on one line, as XLA's ToString(IndexingMap):
//
//	(d0, d1)[s0]{rt0} -> (d0, s0 + rt0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 255], rt0 in [0, 4], d0 + s0 in [0, 20]
//
// Range variables print in [] and runtime variables in {} only when there
// are any. A map without variables prints without a domain. Constraints
// print after the variables, sorted by their text.
func (m *IndexingMap) String() string { return m.format(", ", " ") }

// MultiLineString prints the map in the layout of the indexing analysis
// document: the affine map, then "domain:" and one variable or constraint
// per line, each line but the last ending in a comma.
func (m *IndexingMap) MultiLineString() string { return m.format(",\n", "\n") }

func (m *IndexingMap) format(sep, afterDomain string) string {
	switch m.state {
	case stateUndefined:
		return "UNDEFINED"
	case stateKnownEmpty:
		return "KNOWN EMPTY"
	}
	names := m.names()
	var b strings.Builder
	b.WriteString("(" + strings.Join(names.Dims, ", ") + ")")
	if len(m.ranges) > 0 {
		b.WriteString("[" + strings.Join(names.Symbols, ", ") + "]")
	}
	if len(m.rts) > 0 {
		b.WriteString("{" + strings.Join(names.Runtime, ", ") + "}")
	}
	b.WriteString(" -> (")
	for i, r := range m.results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Format(names))
	}
	b.WriteString(")")
	if len(m.dims)+len(m.ranges)+len(m.rts) == 0 && len(m.constraints) == 0 {
		return b.String()
	}
	var items []string
	for _, vs := range []struct {
		vars  []Variable
		names []string
	}{{m.dims, names.Dims}, {m.ranges, names.Symbols}, {m.rts, names.Runtime}} {
		for i, v := range vs.vars {
			items = append(items, vs.names[i]+" in "+v.Bounds.String())
		}
	}
	cons := make([]string, len(m.constraints))
	for i, c := range m.constraints {
		cons[i] = c.Expr.Format(names) + " in " + c.Bounds.String()
	}
	slices.Sort(cons)
	items = append(items, cons...)
	b.WriteString(sep + "domain:" + afterDomain)
	b.WriteString(strings.Join(items, sep))
	return b.String()
}

// names returns the printed names of all variables.
func (m *IndexingMap) names() *VarNames {
	return &VarNames{
		Dims:    varNames(m.dims, "d"),
		Symbols: varNames(m.ranges, "s"),
		Runtime: varNames(m.rts, "rt"),
	}
}

func varNames(vars []Variable, prefix string) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.Name
		if out[i] == "" {
			out[i] = prefix + strconv.Itoa(i)
		}
	}
	return out
}
