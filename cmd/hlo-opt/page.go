package main

import (
	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memview"
	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// pageInput is what the Memory Viewer page of file shows of the passes'
// results res: the layout pass's memory report and, when they ran, the
// cost pass's estimates and the xla-cost pass's figures.
func pageInput(file string, res *passes.Results) memview.Input {
	in := memview.Input{File: file, Module: res.Module}
	for _, p := range res.Passes {
		v, _ := res.Of(p)
		switch r := v.(type) {
		case *layoutassign.Result:
			in.Memory, in.Relayout = r.Memory, r.Relayout
		case *cost.CostResult:
			in.Cost = r
		case *cost.XLACostResult:
			in.XLACost = r
		}
	}
	return in
}
