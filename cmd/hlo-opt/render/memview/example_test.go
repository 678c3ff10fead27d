package memview_test

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memview"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// Example writes the page of a small module's memory report on a TPU with
// 16 GiB of HBM and prints its verdict.
func Example() {
	m, err := hlo.Parse([]byte(`HloModule tiny, is_scheduled=true

ENTRY main {
  p = f32[8,100]{1,0} parameter(0)
  e = f32[8,100]{1,0} exponential(p)
  ROOT n = f32[8,100]{1,0} negate(e)
}
`))
	if err != nil {
		panic(err)
	}
	t := layoutassign.TPU()
	t.Device, t.HBMBytes = "tpu-v5e", 16<<30
	if _, err := layoutassign.Assign(m, layoutassign.Options{Target: t, Relayout: true}); err != nil {
		panic(err)
	}
	mr, err := layoutassign.AnalyzeMemory(m, t)
	if err != nil {
		panic(err)
	}
	var page bytes.Buffer
	if err := memview.Write(&page, memview.Input{File: "tiny.hlo", Memory: mr}); err != nil {
		panic(err)
	}
	verdict := regexp.MustCompile(`<div id="verdict"[^>]*>([^<]*)</div>`).FindSubmatch(page.Bytes())
	fmt.Println(string(verdict[1]))
	// Output:
	// Fits: 12.0KiB of 16.00GiB HBM (0.00%) on tpu-v5e.
}
