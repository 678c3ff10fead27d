package hlo

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sync/errgroup"
)

// PrintOptions selects the text form the printer writes.
type PrintOptions struct {
	// Short selects XLA's short parsable form: names without '%', operands
	// without shapes, no metadata, and computations without signatures.
	// Unlike XLA it keeps backend_config and control-predecessors, so that
	// nothing an analysis reads is lost.
	Short bool
	// ElideLargeConstants prints array constants of more than 10 elements
	// as "{...}", as XLA does by default. By default constants are printed
	// in full, so that nothing is lost.
	ElideLargeConstants bool
	// Classic prints operands with their shapes and every implicit
	// get-tuple-element as an instruction of its own (the long spelling of
	// "%t#k", see Instruction.Implicit), as XLA printed until 2025,
	// whatever the module's Spelling. Parsing that text gives the same
	// graph with the same names.
	Classic bool
	// Jobs bounds the goroutines that print a large module's computations
	// at once; <= 0 means runtime.GOMAXPROCS(0), 1 prints in the calling
	// goroutine. The text is the same for any Jobs.
	Jobs int
}

// String prints the module in XLA's canonical text form (see Print).
func (m *Module) String() string {
	return string(m.AppendText(nil, PrintOptions{}))
}

// AppendText appends the text Print writes to dst, in the calling
// goroutine whatever opts.Jobs, and returns the extended buffer: for a
// caller that keeps the text, it saves Print's copy into a writer.
func (m *Module) AppendText(dst []byte, opts PrintOptions) []byte {
	p := newPrinter(m, opts, slices.Grow(dst, m.textSize()))
	p.module(m)
	return p.buf
}

// Print writes the module in the form of XLA's HloModule::ToString():
// the header, then every computation in text order with its signature
// "%name (p: f32[2]) -> f32[2] {", ENTRY and ROOT marked, names with '%',
// operands with their shapes, "/*index=N*/" every fifth operand and tuple
// element, and attributes in XLA's order (opcode-specific ones first, then
// called computations, sharding, frontend_attributes, control-predecessors,
// statistics, origin, metadata, backend_config). Printing the parse of
// printed text gives the same bytes.
//
// Large modules are printed by opts.Jobs workers into a few reused
// buffers, each holding a run of consecutive computations, written in
// order.
func (m *Module) Print(w io.Writer, opts PrintOptions) error {
	p := newPrinter(m, opts, nil)
	p.header(m)
	if _, err := w.Write(p.buf); err != nil {
		return err
	}
	batches := printBatches(m)
	jobs := jobsOrDefault(opts.Jobs)
	if len(batches) < 2 || jobs < 2 {
		buf := p.buf[:0]
		for _, b := range batches {
			p := newPrinter(m, opts, m.sized(buf, m.Computations[b[0]:b[1]]))
			p.computations(m.Computations[b[0]:b[1]], b[0] > 0)
			if _, err := w.Write(p.buf); err != nil {
				return err
			}
			buf = p.buf
		}
		return nil
	}
	// Workers print batch i into slot i; the writer takes the slots in
	// order and hands each buffer back for reuse. At most window batches
	// are printed ahead of the writer.
	window := 2 * jobs
	type slot struct {
		buf  []byte
		done chan struct{}
	}
	slots := make([]slot, len(batches))
	for i := range slots {
		slots[i].done = make(chan struct{})
	}
	free := make(chan []byte, window)
	for range window {
		free <- nil
	}
	stop := make(chan struct{})
	dispatched := make(chan struct{})
	var g errgroup.Group
	g.SetLimit(jobs)
	go func() {
		defer close(dispatched)
		for i, b := range batches {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			g.Go(func() error {
				p := newPrinter(m, opts, m.sized(buf, m.Computations[b[0]:b[1]]))
				p.computations(m.Computations[b[0]:b[1]], b[0] > 0)
				slots[i].buf = p.buf
				close(slots[i].done)
				return nil
			})
		}
	}()
	var err error
	for i := range slots {
		<-slots[i].done
		if _, err = w.Write(slots[i].buf); err != nil {
			break
		}
		free <- slots[i].buf
		slots[i].buf = nil
	}
	close(stop)
	<-dispatched
	_ = g.Wait()
	return err
}

// printBatch is the instruction count of one run of computations printed
// into one buffer.
const printBatch = 4096

// printBatches cuts the computations into runs [lo, hi) of about
// printBatch instructions.
func printBatches(m *Module) [][2]int {
	var out [][2]int
	lo, n := 0, 0
	for i, c := range m.Computations {
		n += len(c.Instructions)
		if n >= printBatch || i == len(m.Computations)-1 {
			out = append(out, [2]int{lo, i + 1})
			lo, n = i+1, 0
		}
	}
	return out
}

// sized returns buf emptied, or a new buffer when buf is unlikely to hold
// the text of cs, computations of m, without growing (see batchSize).
func (m *Module) sized(buf []byte, cs []*Computation) []byte {
	if n := m.batchSize(cs); cap(buf) < n {
		return make([]byte, 0, n)
	}
	return buf[:0]
}

// batchSize is about the size of the text of cs, computations of m: their
// share, by instructions, of the module's (textSize), so that the text of
// a computation as long as the unrolled training step's (21 MB at 16x,
// 360 bytes an instruction) is not copied as it outgrows a guess.
func (m *Module) batchSize(cs []*Computation) int {
	if m.textLen == 0 {
		return textSize(cs)
	}
	n, all := 0, 0
	for _, c := range cs {
		n += len(c.Instructions)
	}
	for _, c := range m.Computations {
		all += len(c.Instructions)
	}
	if all == 0 {
		return textSize(cs)
	}
	return int(int64(m.textSize())*int64(n)/int64(all)) + 4096
}

// textSize is about the size of the text of cs: 256 bytes per
// instruction.
func textSize(cs []*Computation) int {
	n := 256
	for _, c := range cs {
		n += 256 * len(c.Instructions)
	}
	return n
}

// textSize is about the size of the module's text: that of the text it
// was parsed from, with room to spare, or else textSize's guess (256 bytes
// an instruction: mobilenet_v2's text, held as printed, took a quarter
// more room than it needs, and the unrolled training step's grew).
func (m *Module) textSize() int {
	if m.textLen > 0 {
		return m.textLen + m.textLen/32 + 4096
	}
	return textSize(m.Computations)
}

// computations prints cs, each preceded by a blank line when sep or when it
// is not the first.
func (p *printer) computations(cs []*Computation, sep bool) {
	for i, c := range cs {
		if i > 0 || sep {
			p.byte('\n')
		}
		p.computation(c)
	}
}

// String prints the computation as it appears in a module, with operand
// shapes.
func (c *Computation) String() string {
	p := printer{operandShapes: true}
	p.computation(c)
	return string(p.buf)
}

// String prints the instruction as one line of XLA text without ROOT,
// with operand shapes: "%add.1 = f32[2]{0} add(f32[2]{0} %x, f32[2]{0} %y)".
func (in *Instruction) String() string {
	p := printer{operandShapes: true}
	p.instruction(in)
	return string(p.buf)
}

type printer struct {
	buf  []byte
	opts PrintOptions
	// operandShapes prints each operand's shape before its name.
	operandShapes bool
	// folded are the implicit get-tuple-elements of the computation being
	// printed that are written as "%t#k" operands, not as instructions.
	folded map[*Instruction]bool
	// last is the computation after which the text ends with a blank
	// line (Module.BlankEnd), or nil.
	last *Computation
	// cur is the computation being printed; with operandShapes, shapeText
	// holds where the text of the shape of each of its instructions (by
	// Index) starts and ends in buf once printed, as an operand's shape is
	// the same text.
	cur       *Computation
	shapeText [][2]int
	// shapes are array shapes printed lately and where their text starts
	// and ends in buf, by their parts (see shape).
	shapes [64]printedShape
}

// printedShape is an array shape printed at buf[at[0]:at[1]], by what its
// text is made of: a shape with the same element type and the same
// dimension, dynamic and layout storage prints the same text. (The
// parser gives every shape written alike the same storage.)
type printedShape struct {
	dims   *int64
	rank   int
	dyn    *bool
	layout *Layout
	typ    PrimitiveType
	at     [2]int
}

// newPrinter returns a printer of m's text (its spelling and opts) that
// appends to buf.
func newPrinter(m *Module, opts PrintOptions, buf []byte) printer {
	p := printer{buf: buf, opts: opts}
	p.operandShapes = !opts.Short && (opts.Classic || m.Spelling == SpellingClassic)
	if m.BlankEnd && len(m.Computations) > 0 {
		p.last = m.Computations[len(m.Computations)-1]
	}
	return p
}

func (p *printer) str(s string) { p.buf = append(p.buf, s...) }
func (p *printer) byte(c byte)  { p.buf = append(p.buf, c) }

// int appends v in decimal; a digit, as most dimensions of layouts are, is
// appended without a call.
func (p *printer) int(v int64) {
	if uint64(v) < 10 {
		p.buf = append(p.buf, byte('0'+v))
		return
	}
	p.buf = strconv.AppendInt(p.buf, v, 10)
}

func (p *printer) module(m *Module) {
	p.header(m)
	for i, c := range m.Computations {
		if i > 0 {
			p.byte('\n')
		}
		p.computation(c)
	}
}

func (p *printer) header(m *Module) {
	p.str("HloModule ")
	if needsPercent(m.Name) {
		p.byte('%')
	}
	p.str(m.Name)
	entryLayout := p.opts.Short && m.Entry != nil
	if _, ok := m.Attr("entry_computation_layout"); ok {
		entryLayout = false
	}
	for _, a := range m.Attrs {
		if entryLayout && !headerBeforeEntryLayout[a.Name] {
			p.entryComputationLayout(m.Entry)
			entryLayout = false
		}
		p.str(", ")
		p.str(a.Name)
		p.byte('=')
		p.str(a.Value)
		if a.Name == "origin_recovery_table" && strings.Contains(a.Value, "\n") {
			p.byte('\n') // XLA ends its one-entry-per-line table with a newline
		}
	}
	if entryLayout {
		p.entryComputationLayout(m.Entry)
	}
	p.str("\n\n")
	for _, t := range m.Tables {
		p.str(t.Name)
		p.byte('\n')
		for _, e := range t.Entries {
			p.int(e.ID)
			p.byte(' ')
			p.str(e.Value)
			p.byte('\n')
		}
		p.byte('\n')
	}
	if len(m.Tables) > 0 {
		p.byte('\n')
	}
}

// headerBeforeEntryLayout are the module attributes XLA prints before
// entry_computation_layout.
var headerBeforeEntryLayout = map[string]bool{
	"is_scheduled": true, "input_output_alias": true, "buffer_donor": true, "alias_passthrough_params": true,
}

// entryComputationLayout prints ", entry_computation_layout={...}" for
// the entry computation c, as XLA's short form does for a module whose
// text gave none: the shapes of its parameters and root, with layouts.
func (p *printer) entryComputationLayout(c *Computation) {
	p.str(", entry_computation_layout={(")
	for i, prm := range c.Params {
		if i > 0 {
			p.str(", ")
		}
		if prm != nil {
			p.shape(&prm.Shape, true)
		}
	}
	p.str(")->")
	if c.Root != nil {
		p.shape(&c.Root.Shape, true)
	}
	p.byte('}')
}

func (p *printer) name(n string) {
	if !p.opts.Short || needsPercent(n) {
		p.byte('%')
	}
	p.str(n)
}

// needsPercent reports whether a name must keep its '%' to parse back:
// names that do not start with a letter or '_', and keywords.
func needsPercent(n string) bool {
	return n == "" || !isLetter(n[0]) || n == "ENTRY" || n == "ROOT" || n == "HloModule"
}

func (p *printer) computation(c *Computation) {
	if c.IsEntry {
		p.str("ENTRY ")
	}
	p.name(c.Name)
	if !p.opts.Short {
		p.str(" (")
		for i, prm := range c.Params {
			if i > 0 {
				p.str(", ")
			}
			if prm == nil {
				p.str("_: ()")
				continue
			}
			p.str(prm.Name)
			p.str(": ")
			p.shape(&prm.Shape, false)
		}
		p.str(") -> ")
		if c.Root != nil {
			p.shape(&c.Root.Shape, false)
		} else {
			p.str("()")
		}
	}
	p.str(" {\n")
	p.cur = c
	if p.operandShapes {
		p.shapeText = slices.Grow(p.shapeText[:0], len(c.Instructions))[:len(c.Instructions)]
		clear(p.shapeText)
	}
	p.foldTupleElements(c)
	for _, in := range c.Instructions {
		if p.folded[in] {
			continue
		}
		p.str("  ")
		if in == c.Root {
			p.str("ROOT ")
		}
		p.instruction(in)
		p.byte('\n')
	}
	p.byte('}')
	for _, a := range c.Attrs {
		p.str(", ")
		p.str(a.Name)
		p.byte('=')
		p.str(a.Value)
	}
	p.byte('\n')
	if c == p.last {
		p.byte('\n')
	}
}

func (p *printer) instruction(in *Instruction) {
	p.name(in.Name)
	p.str(" = ")
	start := len(p.buf)
	p.shape(&in.Shape, true)
	if i, ok := p.printedHere(in); ok {
		p.shapeText[i] = [2]int{start, len(p.buf)}
	}
	p.byte(' ')
	p.str(string(in.Opcode))
	p.byte('(')
	switch {
	case in.Opcode == OpParameter:
		p.int(int64(in.ParameterNumber))
	case in.Opcode == OpConstant:
		if p.opts.ElideLargeConstants && in.Shape.IsArray() && in.Shape.ElementCount() > 10 {
			p.str("{...}")
		} else {
			p.str(in.Literal)
		}
	default:
		for i, o := range in.Operands {
			if i > 0 {
				p.str(", ")
				if !p.opts.Short && i%5 == 0 {
					p.str("/*index=")
					p.int(int64(i))
					p.str("*/")
				}
			}
			if p.operandShapes {
				p.operandShape(o)
				p.byte(' ')
			}
			p.operand(o)
		}
	}
	p.byte(')')
	p.attributes(in)
}

// printedHere returns the index of in in shapeText when in belongs to
// the computation being printed.
func (p *printer) printedHere(in *Instruction) (int, bool) {
	i := in.Index
	ok := in.Parent == p.cur && i >= 0 && i < len(p.shapeText) && p.cur.Instructions[i] == in
	return i, ok
}

// operandShape prints the shape of operand o: a copy of the text printed
// for o's own shape when o came before in the same computation.
func (p *printer) operandShape(o *Instruction) {
	if i, ok := p.printedHere(o); ok {
		if t := p.shapeText[i]; t[1] > 0 {
			p.buf = append(p.buf, p.buf[t[0]:t[1]]...)
			return
		}
	}
	p.shape(&o.Shape, true)
}

// attribute ranks: XLA prints opcode-specific attributes first, then these.
const (
	rankOpcode = iota
	rankCalls
	rankComposite // is_composite: XLA prints it after to_apply
	rankSharding
	rankFrontend
	rankControl
	rankStatistics
	rankOrigin
	rankMetadata
	rankBackend
)

// attrRank returns where XLA prints attribute name: its rank and, among
// the called computations, its place in CallAttrs (a switch and a short
// scan: this runs for every attribute printed).
func attrRank(name string) (rank, sub int) {
	switch name {
	case "metadata":
		return rankMetadata, 0
	case "backend_config":
		return rankBackend, 0
	case "sharding":
		return rankSharding, 0
	case "frontend_attributes":
		return rankFrontend, 0
	case "is_composite":
		return rankComposite, 0
	case "statistics":
		return rankStatistics, 0
	case "origin", "original_value":
		return rankOrigin, 0
	}
	if i := slices.Index(CallAttrs, name); i >= 0 {
		return rankCalls, i
	}
	return rankOpcode, 0
}

// inPrintOrder reports whether in's attributes are printed as they are,
// in their order: none calls a computation or is dropped, and XLA's order
// keeps them where they are (so the text XLA printed is read back).
func (p *printer) inPrintOrder(in *Instruction) bool {
	if len(in.ControlPredecessors) > 0 {
		return false
	}
	last := rankOpcode
	for _, a := range in.Attrs {
		rank := rankMetadata // most instructions have metadata alone
		if a.Name != "metadata" {
			rank, _ = attrRank(a.Name)
		}
		if rank < last || rank == rankCalls || p.opts.Short && rank == rankMetadata {
			return false
		}
		last = rank
	}
	return true
}

// countNames counts the computation names in a verbatim call attribute value.
func countNames(v string) int {
	if v == "" || v[0] != '{' {
		return 1
	}
	if len(v) <= 2 {
		return 0
	}
	n := 1
	for i := 0; i < len(v); i++ {
		if v[i] == ',' {
			n++
		}
	}
	return n
}

func (p *printer) attributes(in *Instruction) {
	if p.inPrintOrder(in) {
		for _, a := range in.Attrs {
			p.str(", ")
			p.str(a.Name)
			p.byte('=')
			p.str(a.Value)
		}
		return
	}
	type item struct {
		rank, sub, idx int
		calledLo       int // first index into in.Called, or -1
	}
	var stack [16]item
	items := stack[:0]
	called := 0
	for i, a := range in.Attrs {
		it := item{idx: i, calledLo: -1}
		it.rank, it.sub = attrRank(a.Name)
		if it.rank == rankCalls {
			it.calledLo = called
			called += countNames(a.Value)
		}
		if p.opts.Short && it.rank == rankMetadata {
			continue
		}
		items = append(items, it)
	}
	if len(in.ControlPredecessors) > 0 {
		items = append(items, item{rank: rankControl, idx: -1, calledLo: -1})
	}
	// Insertion sort: stable, few items.
	for i := 1; i < len(items); i++ {
		for j := i; j > 0; j-- {
			a, b := items[j-1], items[j]
			if a.rank < b.rank || a.rank == b.rank && a.sub <= b.sub {
				break
			}
			items[j-1], items[j] = b, a
		}
	}
	useCalled := called == len(in.Called)
	for _, it := range items {
		p.str(", ")
		if it.idx < 0 {
			p.str("control-predecessors={")
			for i, c := range in.ControlPredecessors {
				if i > 0 {
					p.str(", ")
				}
				p.name(c.Name)
			}
			p.byte('}')
			continue
		}
		a := in.Attrs[it.idx]
		p.str(a.Name)
		p.byte('=')
		if it.calledLo < 0 {
			p.str(a.Value)
			continue
		}
		n := countNames(a.Value)
		braced := a.Value != "" && a.Value[0] == '{'
		if braced {
			p.byte('{')
		}
		if useCalled {
			for k := 0; k < n; k++ {
				if k > 0 {
					p.str(", ")
				}
				p.name(in.Called[it.calledLo+k].Name)
			}
		} else {
			p.calledNames(a.Value)
		}
		if braced {
			p.byte('}')
		}
	}
}

// calledNames prints the names of a verbatim call attribute value.
func (p *printer) calledNames(v string) {
	if len(v) > 0 && v[0] == '{' {
		v = v[1 : len(v)-1]
	}
	first := true
	for len(v) > 0 {
		i := 0
		for i < len(v) && v[i] != ',' {
			i++
		}
		n := v[:i]
		for len(n) > 0 && n[0] == ' ' {
			n = n[1:]
		}
		if !first {
			p.str(", ")
		}
		first = false
		p.name(n)
		if i == len(v) {
			break
		}
		v = v[i+1:]
	}
}

// shape appends a shape exactly as Shape.String (withLayout) or
// Shape.StringNoLayout prints it.
func (p *printer) shape(s *Shape, withLayout bool) {
	if s.Buffer {
		a := *s
		a.Buffer = false
		p.str("b(")
		p.shape(&a, withLayout)
		p.byte(')')
		return
	}
	if s.IsTuple() {
		p.byte('(')
		for i := range s.Tuple {
			if i > 0 {
				p.str(", ")
				if i%5 == 0 {
					p.str("/*index=")
					p.int(int64(i))
					p.str("*/")
				}
			}
			p.shape(&s.Tuple[i], withLayout)
		}
		p.byte(')')
		return
	}
	if withLayout {
		dims, dyn := unsafe.SliceData(s.Dims), unsafe.SliceData(s.Dynamic)
		h := uintptr(unsafe.Pointer(dims))>>3 ^ uintptr(unsafe.Pointer(s.Layout))>>4 ^ uintptr(s.Type)
		slot := &p.shapes[h%uintptr(len(p.shapes))]
		if slot.at[1] > 0 && slot.dims == dims && slot.rank == len(s.Dims) && slot.dyn == dyn && slot.layout == s.Layout && slot.typ == s.Type {
			p.buf = append(p.buf, p.buf[slot.at[0]:slot.at[1]]...)
			return
		}
		start := len(p.buf)
		p.arrayShape(s, true)
		*slot = printedShape{dims: dims, rank: len(s.Dims), dyn: dyn, layout: s.Layout, typ: s.Type, at: [2]int{start, len(p.buf)}}
		return
	}
	p.arrayShape(s, false)
}

// arrayShape prints an array (token, opaque) shape s.
func (p *printer) arrayShape(s *Shape, withLayout bool) {
	p.str(s.Type.String())
	p.byte('[')
	for i, d := range s.Dims {
		if i > 0 {
			p.byte(',')
		}
		switch {
		case d == UnboundedDim:
			p.byte('?')
		case s.IsDynamicDim(i):
			p.str("<=")
			p.int(d)
		default:
			p.int(d)
		}
	}
	p.byte(']')
	if !withLayout || !s.IsArray() {
		return
	}
	if s.Layout == nil {
		if n := len(s.Dims); n > 0 {
			p.byte('{')
			for i := n - 1; i >= 0; i-- {
				p.int(int64(i))
				if i > 0 {
					p.byte(',')
				}
			}
			p.byte('}')
		}
		return
	}
	if len(s.Dims) == 0 && s.Layout.isPlain() {
		return
	}
	p.layout(s.Layout)
}

// tile appends a tile: "(8,128)", a combined dimension as "*".
func (p *printer) tile(t Tile) {
	p.byte('(')
	for i, d := range t {
		if i > 0 {
			p.byte(',')
		}
		if d == CombinedDim {
			p.byte('*')
		} else {
			p.int(d)
		}
	}
	p.byte(')')
}

// layout appends a layout as XLA prints it; Layout.String uses it.
func (p *printer) layout(l *Layout) {
	p.byte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			p.byte(',')
		}
		p.int(d)
	}
	if l.isPlain() {
		p.byte('}')
		return
	}
	p.byte(':')
	if l.DimLevelTypes != "" {
		p.str("D(")
		p.str(l.DimLevelTypes)
		p.byte(')')
	}
	if len(l.Tiles) > 0 {
		p.byte('T')
		for _, t := range l.Tiles {
			p.tile(t)
		}
	}
	if l.TailPaddingAlignment > 1 {
		p.str("L(")
		p.int(l.TailPaddingAlignment)
		p.byte(')')
	}
	if l.IndexType != Invalid {
		p.str("#(")
		p.str(l.IndexType.String())
		p.byte(')')
	}
	if l.PointerType != Invalid {
		p.str("*(")
		p.str(l.PointerType.String())
		p.byte(')')
	}
	if l.ElementSizeBits != 0 {
		p.str("E(")
		p.int(l.ElementSizeBits)
		p.byte(')')
	}
	if l.MemorySpace != 0 {
		p.str("S(")
		p.int(l.MemorySpace)
		p.byte(')')
	}
	p.str(l.SplitConfigs)
	if l.PhysicalShape != nil {
		p.str("P(")
		p.shape(l.PhysicalShape, true)
		p.byte(')')
	}
	if l.DynamicShapeMetadataPrefixBytes != 0 {
		p.str("M(")
		p.int(l.DynamicShapeMetadataPrefixBytes)
		p.byte(')')
	}
	p.byte('}')
}

// foldTupleElements finds the implicit get-tuple-elements of c to print as
// "%t#k" operands: those with a user that can still be spelled that way.
func (p *printer) foldTupleElements(c *Computation) {
	clear(p.folded)
	if p.opts.Classic || !slices.ContainsFunc(c.Instructions, func(in *Instruction) bool { return in.Implicit }) {
		return
	}
	if p.folded == nil {
		p.folded = map[*Instruction]bool{}
	}
	for _, in := range c.Instructions {
		for _, o := range in.Operands {
			if o.Implicit && o != c.Root && !p.folded[o] && spelledAsElement(o, c) {
				p.folded[o] = true
			}
		}
	}
}

// spelledAsElement reports whether gte, an implicit get-tuple-element of
// c, is still exactly what "%t#k" reads back as: element k of a tuple of c,
// with that element's shape and layout and nothing but index=k.
func spelledAsElement(gte *Instruction, c *Computation) bool {
	if gte.Opcode != OpGetTupleElement || gte.Parent != c || len(gte.Operands) != 1 || len(gte.Called) != 0 || len(gte.ControlPredecessors) != 0 {
		return false
	}
	t, k := gte.Operands[0], gte.Typed.TupleIndex
	if t.Parent != c || !t.Shape.IsTuple() || k < 0 || k >= int64(len(t.Shape.Tuple)) {
		return false
	}
	if len(gte.Attrs) != 1 || gte.Attrs[0].Name != "index" || gte.Attrs[0].Value != strconv.FormatInt(k, 10) {
		return false
	}
	return gte.Shape.Equal(t.Shape.Tuple[k])
}

// operand prints a reference to o: its name, or "t#k" when o is a folded
// get-tuple-element.
func (p *printer) operand(o *Instruction) {
	if !p.folded[o] {
		p.name(o.Name)
		return
	}
	p.operand(o.Operands[0])
	p.byte('#')
	p.int(o.Typed.TupleIndex)
}
