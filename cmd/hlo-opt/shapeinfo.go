package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

func init() {
	register("shape-info", subcommand{
		Synopsis: "shape-info SHAPE [--target=tpu|tpu-pred4|gpu|cpu] [--index i,j,...] [--linear-indices] [--svg FILE]",
		Run:      runShapeInfo,
	})
}

// runShapeInfo prints, as JSON, what the layout pass's rules make of one
// shape: the chosen layout (when the shape states no tiles), element count,
// padded and unpadded bytes, expansion, rule and padding suggestions; with
// --index the linear index of one element, with --linear-indices every
// element's, and with --svg a drawing of its memory order.
func runShapeInfo(_ context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("hlo-opt shape-info", flag.ContinueOnError)
	fs.SetOutput(helpOutput(env, args))
	target := fs.String("target", "tpu", "`target` whose tiling rules apply: tpu, tpu-pred4, gpu or cpu")
	index := fs.String("index", "", "print the linear index of the element at `i,j,...`")
	all := fs.Bool("linear-indices", false, "print every element's linear index, in row-major order of the logical index")
	svg := fs.String("svg", "", "draw the array's memory order into `file` (small arrays only)")
	format := fs.String("format", "auto", "output `format`: text, json, or auto (text on a terminal, JSON otherwise)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: hlo-opt %s\n\nFlags:\n", subcommands["shape-info"].Synopsis)
		fs.PrintDefaults()
	}
	// The shape may come before or after the flags.
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "hlo-opt shape-info: "+format+"\n", a...)
		return 2
	}
	if len(positional) != 1 {
		return usage("want exactly one SHAPE argument, got %d", len(positional))
	}
	switch *format {
	case "auto":
		*format = "json"
		if isTerminal(env.Stdout) {
			*format = "text"
		}
	case "text", "json":
	default:
		return usage("--format=%s: want text, json or auto", *format)
	}
	t, err := layoutassign.ParseTarget(*target)
	if err != nil {
		return usage("--target: %v", err)
	}
	shape, err := hlo.ParseShape(positional[0])
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt shape-info: %v\n", err)
		return 1
	}
	var opts layoutassign.ShapeInfoOptions
	opts.AllIndices = *all
	if *index != "" {
		for _, f := range strings.Split(*index, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return usage("--index=%s: expected integers separated by commas", *index)
			}
			opts.Index = append(opts.Index, v)
		}
	}
	info, err := layoutassign.DescribeShape(shape, t, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt shape-info: %v\n", err)
		return 1
	}
	if *svg != "" {
		var b strings.Builder
		if err := layoutassign.WriteSVG(&b, shape, t); err != nil {
			fmt.Fprintf(env.Stderr, "hlo-opt shape-info: %v\n", err)
			return 1
		}
		if err := writeOutput(env, *svg, &blocks{bs: [][]byte{[]byte(b.String())}}); err != nil {
			fmt.Fprintf(env.Stderr, "hlo-opt shape-info: %v\n", err)
			return 1
		}
	}
	if *format == "text" {
		writeShapeInfoText(env.Stdout, info)
		return 0
	}
	out, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt shape-info: %v\n", err)
		return 1
	}
	fmt.Fprintf(env.Stdout, "%s\n", out)
	return 0
}

// writeShapeInfoText prints info for a person: the laid-out shape, sizes
// in XLA's notation, the tiled shape, the asked linear indices and the
// suggestions.
func writeShapeInfoText(w io.Writer, info *layoutassign.ShapeInfo) {
	fmt.Fprintf(w, "%s on %s\n", info.Shape, info.Target)
	fmt.Fprintf(w, "  elements      %d\n", info.Elements)
	fmt.Fprintf(w, "  size          %s (%d bytes), unpadded %s, %.1fx expansion\n",
		passes.FormatBytes(info.Bytes), info.Bytes, passes.FormatBytes(info.UnpaddedBytes), info.Expansion)
	fmt.Fprintf(w, "  rule          %s\n", info.Rule)
	fmt.Fprintf(w, "  physical      %s (major to minor)\n", dims(info.Physical))
	fmt.Fprintf(w, "  tiled         %s (row-major order is memory order), %d element slots\n", dims(info.Tiled), info.PaddedElements)
	if info.LinearIndex != nil {
		fmt.Fprintf(w, "  linear index  %d\n", *info.LinearIndex)
	}
	if len(info.LinearIndices) > 0 {
		fmt.Fprintf(w, "  linear indices (row-major logical order) %v\n", info.LinearIndices)
	}
	for i, sg := range info.Suggestions {
		if i == 0 {
			fmt.Fprintf(w, "Suggestions:\n")
		}
		fmt.Fprintf(w, "  %d. %s: %s\n     %s, %s -> %s\n", i+1, sg.Problem, sg.Change, sg.Shape,
			passes.FormatBytes(sg.Before), passes.FormatBytes(sg.After))
	}
}

func dims(d []int64) string {
	parts := make([]string, len(d))
	for i, v := range d {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
