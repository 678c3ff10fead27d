package xladiff_test

import (
	"os"

	"github.com/hlo-opt/hlo-opt/cmd/internal/xladiff"
)

// A Tally sums what Compare returns per backend and figure; WriteTable
// prints the agreement table and, per criterion of the issue, whether it
// holds.
func ExampleTally_WriteTable() {
	t := xladiff.NewTally()
	t.Add(&xladiff.Result{Backend: "h100", Outcomes: []xladiff.Outcome{
		{Figure: xladiff.Parse, Agree: true},
		{Figure: xladiff.PeakExact, Agree: true, XLA: 1628, Ours: 1628},
		{Figure: xladiff.Sizes, Agree: true, Count: 12, Equal: 12},
	}})
	t.Add(&xladiff.Result{Backend: "h100", Outcomes: []xladiff.Outcome{
		{Figure: xladiff.Parse, Agree: true},
		{Figure: xladiff.PeakExact, Agree: false, XLA: 1628, Ours: 2012},
		{Figure: xladiff.Sizes, Agree: true, Count: 7, Equal: 7},
	}})
	_ = t.WriteTable(os.Stdout)
	// Output:
	// | figure | h100 | all |
	// |---|---|---|
	// | compiles | 2 | 2 |
	// | parse | 2/2 (100.0%) | 2/2 (100.0%) |
	// | verify | - | - |
	// | round trip | - | - |
	// | arguments | - | - |
	// | outputs | - | - |
	// | aliased | - | - |
	// | temporaries | - | - |
	// | peak exact | 1/2 (50.0%) | 1/2 (50.0%) |
	// | peak within 5% | - | - |
	// | buffer sizes | 19/19 (100.0%) | 19/19 (100.0%) |
	// | allocation classes | - | - |
	// | TPU layouts | - | - |
	// | xla-cost flops | - | - |
	//
	// Buffer sizes count values, allocation classes the six classes, TPU layouts arrays; the other rows count compiles.
	//
	// - parse on >= 100.0%: holds
	// - verify on >= 100.0%: not compared
	// - round trip on >= 100.0%: not compared
	// - arguments on >= 100.0%: not compared
	// - outputs on >= 100.0%: not compared
	// - aliased on >= 100.0%: not compared
	// - peak exact on >= 95.0%: fails on h100
	// - peak within 5% on >= 99.0%: not compared
	// - buffer sizes on >= 100.0%: holds
	// - TPU layouts on >= 97.0%: not compared
	// - xla-cost flops on >= 95.0%: not compared
}
