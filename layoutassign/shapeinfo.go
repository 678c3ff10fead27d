package layoutassign

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// MaxLinearIndices bounds the arrays whose every linear index
// DescribeShape lists, MaxSVGElements those WriteSVG draws, and MaxSVGWidth
// the width of its drawing in pixels.
const (
	MaxLinearIndices = 1 << 20
	MaxSVGElements   = 4096
	MaxSVGWidth      = 1200
)

// svgCells is the number of cells a row of WriteSVG's panels holds.
const svgCells = 24

// ShapeInfo describes one array shape on a target: the layout the rules
// choose (or the stated one), its element count and sizes, and optionally
// linear indices. It is the JSON of "hlo-opt shape-info".
type ShapeInfo struct {
	Shape         string  `json:"shape"`
	Target        string  `json:"target"`
	Elements      int64   `json:"elements"`
	Bytes         int64   `json:"bytes"`
	UnpaddedBytes int64   `json:"unpadded_bytes"`
	Expansion     float64 `json:"expansion"`
	Rule          string  `json:"rule"`
	// Physical is the untiled physical shape (major to minor) and Tiled
	// the shape whose row-major order is the memory order.
	Physical []int64 `json:"physical"`
	Tiled    []int64 `json:"tiled"`
	// PaddedElements is the number of element slots with padding.
	PaddedElements int64 `json:"padded_elements"`
	// LinearIndex is the memory position of ShapeInfoOptions.Index.
	LinearIndex *int64 `json:"linear_index,omitempty"`
	// LinearIndices lists every element's memory position, in row-major
	// order of the logical index.
	LinearIndices []int64          `json:"linear_indices,omitempty"`
	Suggestions   []SuggestionJSON `json:"suggestions,omitempty"`
}

// ShapeInfoOptions select the optional parts of a ShapeInfo.
type ShapeInfoOptions struct {
	// Index, if not nil, asks for the linear index of this element.
	Index []int64
	// AllIndices asks for every element's linear index.
	AllIndices bool
}

// LayoutShape returns the shape as the layout pass lays it out on t: the
// default major-to-minor order when no layout is given, and the target's
// tiles unless the layout states some (the layout's minor_to_major and
// memory space are kept). A layout in a memory space other than the
// default is taken as stated: only XLA's memory-space assignment, after
// layout assignment, writes one, and the layouts it writes are complete
// (u32[]{:S(2)}, an SMEM scalar, is 4 bytes, untiled, as the memory
// report and XLA's buffer assignment size it).
func LayoutShape(s hlo.Shape, t Target) hlo.Shape {
	if s.IsTuple() {
		out := s.Clone()
		for i := range out.Tuple {
			out.Tuple[i] = LayoutShape(out.Tuple[i], t)
		}
		return out
	}
	if !s.IsArray() {
		return s
	}
	if s.Layout == nil {
		return layoutFor(s.Clone(), hlo.DefaultMinorToMajor(s.Rank()), t)
	}
	if len(s.Layout.Tiles) > 0 || s.Layout.MemorySpace != 0 {
		return s.Clone()
	}
	return withRuleTiles(s.Clone(), t)
}

// DescribeShape answers "hlo-opt shape-info" for an array shape.
func DescribeShape(s hlo.Shape, t Target, opts ShapeInfoOptions) (*ShapeInfo, error) {
	if !s.IsArray() {
		return nil, fmt.Errorf("expected an array shape, found %s", s.StringNoLayout())
	}
	sh := LayoutShape(s, t)
	ts, err := hlo.Tiled(sh)
	if err != nil {
		return nil, err
	}
	c, err := costOf(&sh, t)
	if err != nil {
		return nil, err
	}
	info := &ShapeInfo{Shape: sh.String(), Target: t.String(), Elements: sh.ElementCount(), Bytes: c.Bytes,
		UnpaddedBytes: c.Unpadded, Expansion: round3(c.Expansion), Rule: c.Rule.Name, Physical: ts.Physical,
		Tiled: ts.Final, PaddedElements: ts.PaddedElements}
	if opts.Index != nil {
		li, err := ts.LinearIndex(opts.Index)
		if err != nil {
			return nil, err
		}
		info.LinearIndex = &li
	}
	if opts.AllIndices {
		if info.Elements > MaxLinearIndices {
			return nil, fmt.Errorf("%s has %d elements; --linear-indices lists at most %d", sh.StringNoLayout(), info.Elements, MaxLinearIndices)
		}
		info.LinearIndices = make([]int64, 0, info.Elements)
		err := eachIndex(sh.Dims, func(idx []int64) error {
			li, err := ts.LinearIndex(idx)
			info.LinearIndices = append(info.LinearIndices, li)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	for _, sg := range Suggest(sh, t) {
		info.Suggestions = append(info.Suggestions, SuggestionJSON{Problem: sg.Problem, Change: sg.Change,
			Shape: sg.Shape.String(), Before: sg.Before, After: sg.After})
	}
	return info, nil
}

// eachIndex calls f with every index of dims in row-major order.
func eachIndex(dims []int64, f func([]int64) error) error {
	for _, d := range dims {
		if d == 0 {
			return nil
		}
	}
	idx := make([]int64, len(dims))
	for {
		if err := f(idx); err != nil {
			return err
		}
		k := len(dims) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// tileColors are the fill colours of successive first-level tiles.
var tileColors = []string{"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
	"#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3"}

// WriteSVG draws a small array's memory order as tiled-layout.md's figures
// do: on the left the logical element grid (rows are the indices of all
// but the last dim), each cell coloured by its first-level tile and
// labelled with its linear index; on the right memory, one row per
// first-level tile, each slot labelled with the logical index it holds and
// padding slots hatched. Second-level tiles are outlined in red.
func WriteSVG(w io.Writer, s hlo.Shape, t Target) error {
	sh := LayoutShape(s, t)
	ts, err := hlo.Tiled(sh)
	if err != nil {
		return err
	}
	n := sh.ElementCount()
	if n > MaxSVGElements || ts.PaddedElements > 4*MaxSVGElements {
		return fmt.Errorf("%s is too large to draw (%d elements, %d with padding; at most %d)",
			sh.StringNoLayout(), n, ts.PaddedElements, MaxSVGElements)
	}
	// First-level tile of each element and its size in elements.
	tileOf := func([]int64) int64 { return 0 }
	rowLen := int64(1)
	if len(ts.Dims) > 0 {
		rowLen = ts.Final[len(ts.Final)-1]
	}
	groupLen := int64(0)
	if len(ts.Steps) > 0 {
		first := sh.Clone()
		first.Layout.Tiles = sh.Layout.Tiles[:1]
		fts, err := hlo.Tiled(first)
		if err != nil {
			return err
		}
		k := len(fts.Steps[0].Sizes)
		rowLen = 1
		for _, v := range fts.Steps[0].Sizes {
			rowLen *= v
		}
		tileOf = func(idx []int64) int64 {
			p, _ := fts.PhysicalIndex(idx)
			var id int64
			for i := 0; i < len(p)-k; i++ {
				id = id*fts.Final[i] + p[i]
			}
			return id
		}
		if len(ts.Steps) > 1 {
			groupLen = 1
			for _, v := range ts.Steps[len(ts.Steps)-1].Sizes {
				groupLen *= v
			}
		}
	}
	// Both panels wrap at svgCells cells a row (a memory row at 16 when
	// the tile row is a multiple of 16, so rows stay tile-aligned), which
	// keeps the drawing under MaxSVGWidth for any shape.
	switch {
	case rowLen > 16 && rowLen%16 == 0:
		rowLen = 16
	case rowLen > svgCells:
		rowLen = svgCells
	}
	cols := int64(1)
	if sh.Rank() > 0 {
		cols = sh.Dims[sh.Rank()-1]
	}
	rows := int64(1)
	if cols > 0 {
		rows = n / cols
	}
	// Memory slot contents.
	slot := make([]string, ts.PaddedElements)
	slotTile := make([]int64, ts.PaddedElements)
	type cell struct {
		idx        []int64
		li, tileID int64
	}
	var cells []cell
	err = eachIndex(sh.Dims, func(idx []int64) error {
		li, err := ts.LinearIndex(idx)
		if err != nil {
			return err
		}
		c := cell{idx: append([]int64(nil), idx...), li: li, tileID: tileOf(idx)}
		cells = append(cells, c)
		if li >= 0 && li < int64(len(slot)) {
			slot[li] = joinInts(idx)
			slotTile[li] = c.tileID
		}
		return nil
	})
	if err != nil {
		return err
	}
	const cw, ch, top = 44, 26, 50
	lc := min(max(cols, 1), svgCells) // visual columns of the logical panel
	wrap := (cols + lc - 1) / lc      // visual rows per logical row
	if cols == 0 {
		wrap = 1
	}
	memRows := (ts.PaddedElements + rowLen - 1) / rowLen
	title := fmt.Sprintf("%s — %s, %d elements in %d slots (%.2fx)", sh.String(), t.String(), n, ts.PaddedElements,
		expansion(ts.PaddedElements, n))
	memLabel := fmt.Sprintf("memory order, %d slots per row (cell: logical index)", rowLen)
	memTop := int64(top) + rows*wrap*ch + 40
	width := min(MaxSVGWidth, max(60+int64(cw)*max(lc, rowLen)+20, 20+8*int64(len(title))))
	height := memTop + memRows*ch + 40
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" font-size="11">`+"\n", width, height)
	fmt.Fprintf(bw, `<defs><pattern id="pad" width="6" height="6" patternUnits="userSpaceOnUse"><path d="M0,6 L6,0" stroke="#999" stroke-width="1"/></pattern></defs>`+"\n")
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(bw, `<text x="10" y="18" font-size="13">%s</text>`+"\n", html.EscapeString(title))
	fmt.Fprintf(bw, `<text x="10" y="38">logical index (cell: linear index)</text>`+"\n")
	fmt.Fprintf(bw, `<text x="10" y="%d">%s</text>`+"\n", memTop-12, memLabel)
	for i, c := range cells {
		r, col := int64(i)/cols, int64(i)%cols
		x, y := 60+(col%lc)*cw, int64(top)+(r*wrap+col/lc)*ch
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#333"/>`, x, y, cw, ch, tileColors[c.tileID%int64(len(tileColors))])
		fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", x+cw/2, y+ch/2+4, c.li)
		if col == 0 {
			label := "(" + joinInts(c.idx[:len(c.idx)-min(1, len(c.idx))]) + ")"
			fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="end" fill="#666">%s</text>`+"\n", x-4, y+ch/2+4, label)
		}
	}
	const mx = 60
	for li := int64(0); li < ts.PaddedElements; li++ {
		r, col := li/rowLen, li%rowLen
		x, y := mx+col*cw, memTop+r*ch
		fill := "url(#pad)"
		text := "pad"
		if slot[li] != "" {
			fill, text = tileColors[slotTile[li]%int64(len(tileColors))], slot[li]
		}
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#333"/>`, x, y, cw, ch, fill)
		fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle" font-size="9">%s</text>`+"\n", x+cw/2, y+ch/2+3, text)
		if col == 0 {
			fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="end" fill="#666">%d</text>`+"\n", x-4, y+ch/2+4, li)
		}
	}
	if groupLen > 1 && groupLen <= rowLen {
		for li := int64(0); li < ts.PaddedElements; li += groupLen {
			r, col := li/rowLen, li%rowLen
			fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="red" stroke-width="2"/>`+"\n",
				mx+col*cw+1, memTop+r*ch+1, groupLen*cw-2, ch-2)
		}
	}
	fmt.Fprintf(bw, `<text x="10" y="%d" fill="#666">%s</text>`+"\n", height-12,
		html.EscapeString("physical "+fmtDims(ts.Physical)+" tiled "+fmtDims(ts.Final)))
	fmt.Fprintln(bw, `</svg>`)
	return bw.Flush()
}

func fmtDims(d []int64) string { return "[" + strings.ReplaceAll(joinInts(d), ",", ", ") + "]" }
