package indexing

import (
	"slices"
	"strconv"
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
	return string(m.appendFormat(nil, sep, afterDomain))
}

// appendFormat appends the map's text, as format makes it, to dst.
func (m *IndexingMap) appendFormat(dst []byte, sep, afterDomain string) []byte {
	switch m.state {
	case stateUndefined:
		return append(dst, "UNDEFINED"...)
	case stateKnownEmpty:
		return append(dst, "KNOWN EMPTY"...)
	}
	names := m.names()
	b := textBuf(dst)
	writeList := func(open, close byte, list []string) {
		b.WriteByte(open)
		for i, n := range list {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n)
		}
		b.WriteByte(close)
	}
	writeList('(', ')', names.Dims)
	if len(m.ranges) > 0 {
		writeList('[', ']', names.Symbols)
	}
	if len(m.rts) > 0 {
		writeList('{', '}', names.Runtime)
	}
	b.WriteString(" -> (")
	for i, r := range m.results {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(&b, r, names, false)
	}
	b.WriteString(")")
	if len(m.dims)+len(m.ranges)+len(m.rts) == 0 && len(m.constraints) == 0 {
		return b
	}
	b.WriteString(sep + "domain:" + afterDomain)
	first := true
	item := func() {
		if !first {
			b.WriteString(sep)
		}
		first = false
	}
	for _, vs := range [...]struct {
		vars  []Variable
		names []string
	}{{m.dims, names.Dims}, {m.ranges, names.Symbols}, {m.rts, names.Runtime}} {
		for i, v := range vs.vars {
			item()
			b.WriteString(vs.names[i])
			b.WriteString(" in ")
			writeInterval(&b, v.Bounds)
		}
	}
	if len(m.constraints) > 0 {
		cons := make([]string, len(m.constraints))
		for i, c := range m.constraints {
			cons[i] = c.Expr.Format(names) + " in " + c.Bounds.String()
		}
		slices.Sort(cons)
		for _, c := range cons {
			item()
			b.WriteString(c)
		}
	}
	return b
}

// writeInterval writes i as Interval.String does.
func writeInterval(b *textBuf, i Interval) {
	out := append(*b, '[')
	out = strconv.AppendInt(out, i.Lower, 10)
	out = append(out, ", "...)
	out = strconv.AppendInt(out, i.Upper, 10)
	*b = append(out, ']')
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
	if len(vars) == 0 {
		return nil
	}
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.Name
		if out[i] == "" {
			out[i] = defaultName(prefix, i)
		}
	}
	return out
}

// defaultNames are the names d0..d15, s0..s15 and rt0..rt15, which most
// maps use, made once.
var defaultNames = func() map[string][]string {
	out := map[string][]string{}
	for _, p := range []string{"d", "s", "rt"} {
		for i := range 16 {
			out[p] = append(out[p], p+strconv.Itoa(i))
		}
	}
	return out
}()

func defaultName(prefix string, i int) string {
	if names := defaultNames[prefix]; i < len(names) {
		return names[i]
	}
	return prefix + strconv.Itoa(i)
}
