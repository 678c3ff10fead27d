package hlo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

type attrKind uint8

const (
	attrRaw     attrKind = iota // kept verbatim only
	attrTyped                   // kept verbatim and decoded into TypedAttrs
	attrCompRef                 // names computations; resolved into Called
	attrCtrl                    // control-predecessors
)

// CallAttrs are the instruction attributes that name called computations,
// in the order XLA prints them.
var CallAttrs = []string{
	"to_apply", "calls", "condition", "body", "select", "scatter",
	"branch_computations", "true_computation", "false_computation",
	"called_computations",
}

// attrNames maps every attribute name of attrKinds to itself, so that a
// parsed attribute keeps this copy of its name rather than the text's.
var attrNames = func() map[string]string {
	m := make(map[string]string, len(attrKinds))
	for n := range attrKinds {
		m[n] = n
	}
	return m
}()

// attrKinds lists every instruction attribute name of XLA's text format.
var attrKinds = func() map[string]attrKind {
	m := map[string]attrKind{}
	for _, n := range CallAttrs {
		m[n] = attrCompRef
	}
	m["control-predecessors"] = attrCtrl
	for _, n := range []string{
		"dimensions", "slice", "padding", "window", "lhs_batch_dims", "rhs_batch_dims",
		"lhs_contracting_dims", "rhs_contracting_dims", "dim_labels", "feature_group_count",
		"batch_group_count", "offset_dims", "collapsed_slice_dims", "start_index_map",
		"index_vector_dim", "operand_batching_dims", "start_indices_batching_dims",
		"slice_sizes", "indices_are_sorted", "update_window_dims", "inserted_window_dims",
		"scatter_dims_to_operand_dims", "input_batching_dims", "scatter_indices_batching_dims",
		"unique_indices", "dynamic_slice_sizes", "kind", "index", "direction",
		"iota_dimension", "replica_groups",
	} {
		m[n] = attrTyped
	}
	for _, n := range []string{
		// generic
		"metadata", "backend_config", "sharding", "frontend_attributes", "statistics",
		"origin", "original_value", "result_accuracy", "operand_side_metadata",
		// collectives
		"channel_id", "constrain_layout", "use_global_device_ids", "split_dimension",
		"source_target_pairs", "is_host_transfer", "collective_device_list", "mode",
		"has_dynamic_root", "shifts",
		// dot / convolution
		"precision_config", "operand_precision", "algorithm", "sparsity",
		"lhs_ragged_dims", "rhs_group_dims", "lhs_scale", "rhs_scale", "conv_kind",
		"convolution_kind", "sparsity_config", "block_scaling_config",
		// fusion / custom call
		"output_to_operand_aliasing", "custom_call_target", "operand_layout_constraints",
		"custom_call_has_side_effect", "literal", "custom_call_schedule", "schedule",
		"api_version", "padding_type",
		// misc opcodes
		"parameter_replication", "infeed_config", "outfeed_config", "outfeed_shape",
		"type", "exponent_bits", "mantissa_bits", "distribution", "is_stable", "epsilon",
		"feature_index", "left_side", "lower", "unit_diagonal", "transpose_a", "fft_type",
		"fft_length", "domain", "cross_program_prefetch_index", "is_cross_program_prefetch",
		"async_execution_thread", "async_group_id", "async_wrapped_opcode", "k", "largest",
		"num_carries", "is_associative", "is_reverse", "reduction_kind", "deduplicated",
		"rng_algorithm", "is_composite", "layout", "order", "inferred_dimension", "delta",
	} {
		m[n] = attrRaw
	}
	return m
}()

// decodeTyped fills in.Typed from the verbatim value of attribute name; s
// scans exactly the value.
func decodeTyped(s *scanner, in *Instruction, name string) {
	t := in.Typed
	switch name {
	case "dimensions":
		t.Dimensions = s.intList()
	case "dynamic_slice_sizes":
		t.DynamicSliceSizes = s.intList()
	case "slice":
		t.Slice = s.sliceDims()
	case "padding":
		if in.Opcode != OpPad {
			return
		}
		t.Padding = s.padDims()
	case "window":
		t.Window = s.window()
	case "lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims":
		if t.Dot == nil {
			t.Dot = &DotDims{}
		}
		v := s.intList()
		switch name {
		case "lhs_batch_dims":
			t.Dot.LhsBatch = v
		case "rhs_batch_dims":
			t.Dot.RhsBatch = v
		case "lhs_contracting_dims":
			t.Dot.LhsContracting = v
		default:
			t.Dot.RhsContracting = v
		}
	case "dim_labels":
		t.Conv = s.convDims()
	case "feature_group_count":
		t.FeatureGroupCount = s.positiveInt(name)
	case "batch_group_count":
		t.BatchGroupCount = s.positiveInt(name)
	case "kind":
		t.FusionKind = s.keepStr(s.word(name))
	case "direction":
		t.Direction = s.keepStr(s.word(name))
	case "index":
		t.TupleIndex, _ = s.scanInt("tuple index")
	case "iota_dimension":
		t.IotaDimension, _ = s.scanInt("iota dimension")
	case "replica_groups":
		t.ReplicaGroups = s.replicaGroups()
	default:
		decodeGatherScatter(s, in, name)
	}
	if s.err == nil {
		s.expectEnd(name)
	}
}

func decodeGatherScatter(s *scanner, in *Instruction, name string) {
	t := in.Typed
	var field any
	switch in.Opcode {
	case OpGather:
		if t.Gather == nil {
			t.Gather = &GatherDims{}
		}
		field = t.Gather.field(name)
	case OpScatter:
		if t.Scatter == nil {
			t.Scatter = &ScatterDims{}
		}
		field = t.Scatter.field(name)
	}
	switch f := field.(type) {
	case *[]int64:
		*f = s.intList()
	case *int64:
		*f, _ = s.scanInt(name)
	case *bool:
		*f = s.boolean(name)
	default:
		s.off = s.end // the attribute means something else here; kept verbatim
	}
}

// field returns the field of g that attribute name sets (a *[]int64,
// *int64 or *bool), nil for another name.
func (g *GatherDims) field(name string) any {
	return map[string]any{
		"offset_dims":                 &g.OffsetDims,
		"collapsed_slice_dims":        &g.CollapsedSliceDims,
		"start_index_map":             &g.StartIndexMap,
		"index_vector_dim":            &g.IndexVectorDim,
		"operand_batching_dims":       &g.OperandBatchingDims,
		"start_indices_batching_dims": &g.StartIndicesBatchingDims,
		"slice_sizes":                 &g.SliceSizes,
		"indices_are_sorted":          &g.IndicesAreSorted,
	}[name]
}

// field returns the field of c that attribute name sets, as
// [GatherDims.field].
func (c *ScatterDims) field(name string) any {
	return map[string]any{
		"update_window_dims":            &c.UpdateWindowDims,
		"inserted_window_dims":          &c.InsertedWindowDims,
		"scatter_dims_to_operand_dims":  &c.ScatterDimsToOperandDims,
		"index_vector_dim":              &c.IndexVectorDim,
		"input_batching_dims":           &c.InputBatchingDims,
		"scatter_indices_batching_dims": &c.ScatterIndicesBatchingDims,
		"indices_are_sorted":            &c.IndicesAreSorted,
		"unique_indices":                &c.UniqueIndices,
	}[name]
}

// intList parses "{1,2,3}" (or "{}").
func (s *scanner) intList() []int64 {
	return braceList(s, func() (int64, bool) { return s.scanInt("integer") })
}

// braceList parses "{e, e, ...}" or "{}", each e with elem; nil after an
// error.
func braceList[T any](s *scanner, elem func() (T, bool)) []T {
	if !s.expect('{') {
		return nil
	}
	if s.accept('}') {
		return []T{}
	}
	return listTo(s, '}', elem)
}

// listTo parses "e, e, ...", at least one e, each with elem, and the
// closing byte after them; nil after an error.
func listTo[T any](s *scanner, closing byte, elem func() (T, bool)) []T {
	var out []T
	for {
		v, ok := elem()
		if !ok {
			return nil
		}
		out = append(out, v)
		if !s.accept(',') {
			break
		}
	}
	if !s.expect(closing) {
		return nil
	}
	return out
}

func (s *scanner) positiveInt(what string) int64 {
	s.skipSpace()
	p := s.pos()
	v, ok := s.scanInt(what)
	if ok && v < 1 {
		s.errorAt(p, "expected positive "+what+", found "+strconv.FormatInt(v, 10))
	}
	return v
}

func (s *scanner) word(what string) string {
	w := s.scanIdent()
	if w == "" {
		s.expected(what)
	}
	return w
}

func (s *scanner) boolean(what string) bool {
	s.skipSpace()
	switch peekWord(s) {
	case "true":
		s.off += 4
		return true
	case "false":
		s.off += 5
		return false
	}
	s.expected("true or false for " + what)
	return false
}

// sliceDims parses "{[0:2], [1:5:2]}".
func (s *scanner) sliceDims() []SliceDim { return braceList(s, s.sliceDim) }

// sliceDim parses "[0:2]" or "[1:5:2]".
func (s *scanner) sliceDim() (SliceDim, bool) {
	d := SliceDim{Stride: 1}
	var ok bool
	if !s.expect('[') {
		return d, false
	}
	if d.Start, ok = s.scanInt("slice start"); !ok || !s.expect(':') {
		return d, false
	}
	if d.Limit, ok = s.scanInt("slice limit"); !ok {
		return d, false
	}
	if s.accept(':') {
		if d.Stride, ok = s.scanInt("slice stride"); !ok {
			return d, false
		}
	}
	return d, s.expect(']')
}

// padDims parses "0_1x2_3_1": low_high[_interior] per dimension.
func (s *scanner) padDims() []PadDim {
	out := []PadDim{}
	for {
		var d PadDim
		var ok bool
		if d.Low, ok = s.scanInt("padding low"); !ok || !s.expect('_') {
			return nil
		}
		if d.High, ok = s.scanInt("padding high"); !ok {
			return nil
		}
		if s.peek() == '_' {
			s.off++
			if d.Interior, ok = s.scanInt("padding interior"); !ok {
				return nil
			}
		}
		out = append(out, d)
		if s.peek() != 'x' {
			return out
		}
		s.off++
	}
}

// paddingText is a pad's padding as XLA prints it: low_high per
// dimension, with _interior on every one when any has interior padding.
func paddingText(dims []PadDim) string {
	interior := false
	for _, d := range dims {
		interior = interior || d.Interior != 0
	}
	var b strings.Builder
	for i, d := range dims {
		if i > 0 {
			b.WriteByte('x')
		}
		b.WriteString(strconv.FormatInt(d.Low, 10) + "_" + strconv.FormatInt(d.High, 10))
		if interior {
			b.WriteString("_" + strconv.FormatInt(d.Interior, 10))
		}
	}
	return b.String()
}

// xList parses "3x3x1".
func (s *scanner) xList(what string) []int64 {
	var out []int64
	for {
		v, ok := s.scanInt(what)
		if !ok {
			return nil
		}
		out = append(out, v)
		if s.peek() != 'x' {
			return out
		}
		s.off++
	}
}

// windowLists are the window fields that hold an x-separated list of
// integers, with what errors call each; window keeps them by position.
var windowLists = [...]struct{ key, what string }{
	{"size", "window size"},
	{"stride", "window stride"},
	{"lhs_dilate", "lhs dilation"},
	{"rhs_dilate", "rhs dilation"},
	{"rhs_reversal", "rhs reversal"},
}

// windowPad is the position of the pad field among a window's fields,
// after windowLists'.
const windowPad = len(windowLists)

// window parses "{size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1}".
func (s *scanner) window() []WindowDim {
	if !s.expect('{') {
		return nil
	}
	var lists [len(windowLists)][]int64 // by field
	var pads []PadDim
	var seen [windowPad + 1]bool
	n := -1
	for !s.accept('}') {
		s.skipSpace()
		p := s.pos()
		key := s.scanIdent()
		if key == "" {
			s.expected("window field (size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal)")
			return nil
		}
		field := windowPad
		for i, f := range windowLists {
			if f.key == key {
				field = i
			}
		}
		known := field < windowPad || key == "pad"
		if known && seen[field] {
			s.errorAt(p, "expected unique window field, found duplicate "+strconv.Quote(key))
			return nil
		}
		seen[field] = known
		if !s.expect('=') {
			return nil
		}
		var l int
		switch {
		case !known:
			s.errorAt(p, "expected window field (size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal), found "+strconv.Quote(key))
			return nil
		case field < windowPad:
			lists[field] = s.xList(windowLists[field].what)
			l = len(lists[field])
		default:
			start := s.off
			pads = s.padDims()
			l = len(pads)
			for _, d := range strings.Split(s.src[start:s.off], "x") {
				if s.err == nil && strings.Count(d, "_") != 1 {
					s.errorAt(p, "expects padding_low and padding_high separated by '_', found "+strconv.Quote(d)+" in window pad")
				}
			}
		}
		if s.err != nil {
			return nil
		}
		if n >= 0 && l != n {
			s.errorAt(p, "expected "+strconv.Itoa(n)+" window dimensions, found "+strconv.Itoa(l)+" in "+key)
			return nil
		}
		n = l
	}
	size, stride, lhs, rhs, rev := lists[0], lists[1], lists[2], lists[3], lists[4]
	out := make([]WindowDim, max(n, 0))
	for i := range out {
		d := WindowDim{Stride: 1, BaseDilation: 1, WindowDilation: 1}
		if size != nil {
			d.Size = size[i]
		}
		if stride != nil {
			d.Stride = stride[i]
		}
		if lhs != nil {
			d.BaseDilation = lhs[i]
		}
		if rhs != nil {
			d.WindowDilation = rhs[i]
		}
		if rev != nil {
			d.Reversal = rev[i] != 0
		}
		if pads != nil {
			d.PadLow, d.PadHigh = pads[i].Low, pads[i].High
		}
		out[i] = d
	}
	return out
}

// convDims decodes dim_labels such as "b01f_01io->b01f": input, kernel
// and output labels, each a batch (b, i) and a feature (f, o) dimension
// and the spatial dimensions by number; '?' marks a dimension left unknown
// (custom calls), which stays -1.
func (s *scanner) convDims() *ConvDims {
	s.skipSpace()
	p := s.pos()
	start := s.off
	for s.off < s.end && (isLetter(s.src[s.off]) || isDigit(s.src[s.off]) || strings.IndexByte("_->?", s.src[s.off]) >= 0) {
		s.off++
	}
	labels := s.src[start:s.off]
	in, ker, out, ok := splitDimLabels(labels)
	if !ok {
		s.errorAt(p, "expected dim_labels like b01f_01io->b01f, found "+strconv.Quote(labels))
		return nil
	}
	c := &ConvDims{Labels: s.keepStr(labels)}
	parts := [...]struct {
		what, str string
		a, b      byte
		pa, pb    *int64
		spatial   *[]int64
	}{
		{"lhs", in, 'b', 'f', &c.InputBatch, &c.InputFeature, &c.InputSpatial},
		{"rhs", ker, 'i', 'o', &c.KernelInputFeature, &c.KernelOutputFeature, &c.KernelSpatial},
		{"output", out, 'b', 'f', &c.OutputBatch, &c.OutputFeature, &c.OutputSpatial},
	}
	for _, d := range parts {
		if msg := decodeDimLabels(d.str, d.what, d.a, d.b, d.pa, d.pb, d.spatial); msg != "" {
			s.errorAt(p, "expected dim_labels like b01f_01io->b01f, found "+strconv.Quote(labels)+" ("+msg+")")
			return nil
		}
	}
	if ni, nk, no := len(c.InputSpatial), len(c.KernelSpatial), len(c.OutputSpatial); ni != nk || ni != no {
		s.errorAt(p, fmt.Sprintf("expected dim_labels like b01f_01io->b01f, found %q (input, kernel, and output must have same number of spatial dimensions, but got %d, %d, %d)", labels, ni, nk, no))
		return nil
	}
	return c
}

// splitDimLabels cuts "b01f_01io->b01f" into its input, kernel and output
// labels, each at least two long.
func splitDimLabels(labels string) (in, ker, out string, ok bool) {
	in, rest, ok1 := strings.Cut(labels, "_")
	ker, out, ok2 := strings.Cut(rest, "->")
	return in, ker, out, ok1 && ok2 && len(in) >= 2 && len(ker) >= 2 && len(out) >= 2
}

// decodeDimLabels sets the positions of the labels a and b and of the
// spatial digits in str (the labels of one operand, what), as XLA reads
// them: each label at most once, '?' skipped, every character that is not
// a, b or '?' a spatial dimension numbered below len(str). It returns what
// is wrong, in XLA's words, or "".
func decodeDimLabels(str, what string, a, b byte, pa, pb *int64, spatial *[]int64) string {
	*pa, *pb = -1, -1
	var seen [256]bool
	n := 0
	for i := 0; i < len(str); i++ {
		ch := str[i]
		if ch == '?' {
			continue
		}
		if seen[ch] {
			return "expects unique " + what + " dimension numbers, but sees " + str
		}
		seen[ch] = true
		if ch != a && ch != b {
			n++
		}
	}
	sp := make([]int64, n)
	for i := range sp {
		sp[i] = -1
	}
	for i := 0; i < len(str); i++ {
		switch ch := str[i]; {
		case ch == '?':
		case ch == a:
			*pa = int64(i)
		case ch == b:
			*pb = int64(i)
		case isDigit(ch) && int(ch-'0') < len(str) && int(ch-'0') < n:
			sp[ch-'0'] = int64(i)
		default:
			return fmt.Sprintf("expects [0-%d%c%c?] in %s dimension numbers", len(str)-1, a, b, what)
		}
	}
	*spatial = sp
	return ""
}

// replicaGroups parses "{{0,1},{2,3}}", "{}" or the iota form
// "[G,S]<=[N...]" with an optional transpose "T(perm)", which it expands.
func (s *scanner) replicaGroups() [][]int64 {
	s.skipSpace()
	if s.peek() == '[' {
		return s.iotaReplicaGroups()
	}
	return braceList(s, func() ([]int64, bool) {
		g := s.intList()
		return g, s.err == nil
	})
}

// bracketInts parses "[n, n, ...]", at least one non-negative integer.
func (s *scanner) bracketInts(what string) []int64 {
	if !s.expect('[') {
		return nil
	}
	return listTo(s, ']', func() (int64, bool) {
		v, ok := s.scanInt(what)
		if ok && v < 0 {
			s.expected("non-negative " + what)
			return 0, false
		}
		return v, ok
	})
}

func (s *scanner) iotaReplicaGroups() [][]int64 {
	p := s.pos()
	groupDims, reshape, perm := s.iotaGroupsText()
	if s.err != nil {
		return nil
	}
	total, ok := product(reshape)
	if !ok {
		s.errorAt(p, "expected at most 2^20 devices in replica_groups, found more")
		return nil
	}
	if gtotal, ok := product(groupDims); len(groupDims) != 2 || !ok || gtotal != total {
		s.errorAt(p, "expected [groups,size]<=[dims] with as many devices on both sides, found "+strconv.Quote(s.src[p.Col-1+s.lineStart:s.off]))
		return nil
	}
	if perm == nil {
		for i := range reshape {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != len(reshape) {
		s.errorAt(p, "expected a transpose of "+strconv.Itoa(len(reshape))+" dimensions, found "+strconv.Itoa(len(perm)))
		return nil
	}
	var seen uint64
	for _, d := range perm {
		if d < 0 || d >= int64(len(reshape)) || d >= 64 || seen&(1<<uint(d)) != 0 {
			s.errorAt(p, "expected a permutation in T(...), found "+strconv.FormatInt(d, 10))
			return nil
		}
		seen |= 1 << uint(d)
	}
	return cutGroups(transposedIota(reshape, perm), groupDims[1])
}

// iotaGroupsText reads "[groups,size]<=[dims]" and an optional "T(perm)".
func (s *scanner) iotaGroupsText() (groupDims, reshape, perm []int64) {
	groupDims = s.bracketInts("replica group dimension")
	if s.err != nil {
		return nil, nil, nil
	}
	s.skipSpace()
	if s.peek() != '<' || s.peekAt(1) != '=' {
		s.expected("'<='")
		return nil, nil, nil
	}
	s.off += 2
	reshape = s.bracketInts("iota dimension")
	if s.err != nil {
		return nil, nil, nil
	}
	s.skipSpace()
	if s.peek() != 'T' {
		return groupDims, reshape, nil
	}
	s.off++
	if !s.expect('(') {
		return nil, nil, nil
	}
	for {
		v, ok := s.scanInt("transpose dimension")
		if !ok {
			return nil, nil, nil
		}
		perm = append(perm, v)
		if !s.accept(',') {
			break
		}
	}
	if !s.expect(')') {
		return nil, nil, nil
	}
	return groupDims, reshape, perm
}

// product multiplies dims; false when the product passes 2^20 devices.
func product(dims []int64) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		if d != 0 && n > (1<<20)/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// transposedIota lists 0..prod(dims)-1 laid out row-major in dims, read in
// the order of the axes perm: the devices of an iota device list reshaped
// to dims and transposed by perm.
func transposedIota(dims, perm []int64) []int64 {
	rank := len(dims)
	strides := make([]int64, rank)
	st := int64(1)
	for i := rank - 1; i >= 0; i-- {
		strides[i] = st
		st *= dims[i]
	}
	flat := make([]int64, 0, st)
	idx := make([]int64, rank)
	for k := int64(0); k < st; k++ {
		v := int64(0)
		for i := range idx {
			v += idx[i] * strides[perm[i]]
		}
		flat = append(flat, v)
		for i := rank - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < dims[perm[i]] {
				break
			}
			idx[i] = 0
		}
	}
	return flat
}

// cutGroups cuts flat into consecutive groups of size n.
func cutGroups(flat []int64, n int64) [][]int64 {
	if n <= 0 {
		return nil
	}
	out := make([][]int64, 0, int64(len(flat))/n)
	for i := int64(0); i+n <= int64(len(flat)); i += n {
		out = append(out, flat[i:i+n:i+n])
	}
	return out
}

// meshReplicaGroups expands "mesh['x'=2,'y'=4] {'y'}": devices are numbered
// row-major over the mesh axes; each group holds the devices that differ
// only along the listed axes, the first listed axis major. It returns nil
// for forms it does not know (the verbatim value is kept).
func meshReplicaGroups(v string) [][]int64 {
	names, sizes, groupAxes, ok := meshText(v)
	if !ok {
		return nil
	}
	if _, ok := product(sizes); !ok {
		return nil
	}
	// Enumerate the axes outside the groups first, then the group's axes.
	inGroup := make([]bool, len(names))
	for _, a := range groupAxes {
		inGroup[a] = true
	}
	var order []int64
	for i := range names {
		if !inGroup[i] {
			order = append(order, int64(i))
		}
	}
	groupSize := int64(1)
	for _, a := range groupAxes {
		order = append(order, int64(a))
		groupSize *= sizes[a]
	}
	return cutGroups(transposedIota(sizes, order), groupSize)
}

// devicesPerGroup is the size of the groups of a mesh replica group
// list: that of its groups (1 for a mesh that groups no axis), 1 for a
// maximal mesh (one device), -1 for a form meshReplicaGroups does not know.
func devicesPerGroup(v string, groups [][]int64) int {
	switch {
	case strings.HasPrefix(v, "maximal_mesh"):
		return 1
	case groups == nil:
		return -1
	case len(groups) == 0:
		return 0
	}
	return len(groups[0])
}

// meshText reads "mesh['x'=2,'y'=4] {'y'}": the axis names and sizes and
// the indices of the grouped axes.
func meshText(v string) (names []string, sizes []int64, groupAxes []int, ok bool) {
	s := newScanner("", v, 0, len(v), 1, 0)
	s.off = len("mesh")
	if !s.accept('[') {
		return nil, nil, nil, false
	}
	for !s.accept(']') {
		n := s.quotedName()
		if n == "" || !s.accept('=') {
			return nil, nil, nil, false
		}
		sz, ok := s.scanInt("mesh axis size")
		if !ok || sz < 1 || sz > 1<<20 {
			return nil, nil, nil, false
		}
		names = append(names, n)
		sizes = append(sizes, sz)
		s.accept(',')
	}
	if s.accept('{') {
		for !s.accept('}') {
			idx := slices.Index(names, s.quotedName())
			if idx < 0 {
				return nil, nil, nil, false
			}
			groupAxes = append(groupAxes, idx)
			s.accept(',')
		}
	}
	s.skipSpace()
	return names, sizes, groupAxes, s.atEOF() && s.err == nil
}

// quotedName reads a 'name' in single quotes, or returns "".
func (s *scanner) quotedName() string {
	s.skipSpace()
	if s.peek() != '\'' {
		return ""
	}
	i := s.off + 1
	for i < s.end && s.src[i] != '\'' {
		i++
	}
	if i >= s.end {
		return ""
	}
	n := s.src[s.off+1 : i]
	s.off = i + 1
	return n
}
