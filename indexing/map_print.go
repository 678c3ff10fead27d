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
// print after the variables, sorted by their text. A replica id map
// (ReplicaID) follows as ", replica id: " and its text.
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
	vn := m.names()
	names := &vn
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
	if m.replica != nil {
		// XLA's OperandIndexing::ToString: "replica id:" and the map.
		b.WriteString(sep + "replica id:" + afterDomain)
		b = textBuf(m.replica.appendFormat(b, sep, afterDomain))
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
func (m *IndexingMap) names() VarNames {
	return VarNames{
		Dims:    varNames(m.dims, 0),
		Symbols: varNames(m.ranges, 1),
		Runtime: varNames(m.rts, 2),
	}
}

// varNames returns the names of vars, of the kind'th of the prefixes d, s
// and rt: a slice of defaultNames when none has a name of its own (most
// maps), shared and never written.
func varNames(vars []Variable, kind int) []string {
	if len(vars) == 0 {
		return nil
	}
	named := slices.ContainsFunc(vars, func(v Variable) bool { return v.Name != "" })
	if defaults := defaultNames[kind]; !named && len(vars) <= len(defaults) {
		return defaults[:len(vars):len(vars)]
	}
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = v.Name
		if out[i] == "" {
			out[i] = defaultName(varPrefixes[kind], i)
		}
	}
	return out
}

// varPrefixes are the prefixes of the default names of dimension, range
// and runtime variables.
var varPrefixes = [3]string{"d", "s", "rt"}

// defaultNames are the names d0..d15, s0..s15 and rt0..rt15, which most
// maps use, made once.
var defaultNames = func() (out [3][]string) {
	for k, p := range varPrefixes {
		for i := range 16 {
			out[k] = append(out[k], p+strconv.Itoa(i))
		}
	}
	return out
}()

func defaultName(prefix string, i int) string {
	k := slices.Index(varPrefixes[:], prefix)
	if names := defaultNames[k]; i < len(names) {
		return names[i]
	}
	return prefix + strconv.Itoa(i)
}
