package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// --format=dot with the layout and cost passes: each box gets its bytes
// (the layout report's) and its kernel's time (the cost report's), and the
// slowest kernel the darkest fill; without passes the boxes are plain. An
// unknown --computation lists the module's computations.
func TestDOTAnnotatedByPasses(t *testing.T) {
	f := hlotest.TestdataPath(t, "layout", "tpu_train_step.hlo")
	plain, errOut, code := hloOpt(t, "", "--format=dot", "--computation=body", f)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, plain, "µs")
	assert.NotContains(t, plain, "fillcolor=\"#")
	dot, errOut, code := hloOpt(t, "", "--passes=layout,cost", "--device=tpu-v5e", "--format=dot", "--computation=body", f)
	require.Equal(t, 0, code, errOut)
	js, errOut, code := hloOpt(t, "", "--passes=layout,cost", "--device=tpu-v5e", "--format=json", f)
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Computations []struct {
			Name         string `json:"name"`
			Instructions []struct {
				Name   string `json:"name"`
				Layout *struct {
					Bytes int64 `json:"bytes"`
				} `json:"layout"`
				Cost *struct {
					TimeUS float64 `json:"time_us"`
				} `json:"cost"`
			} `json:"instructions"`
		} `json:"computations"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &rep))
	slowest, most := "", 0.0
	for _, c := range rep.Computations {
		if c.Name != "body" {
			continue
		}
		for _, in := range c.Instructions {
			want := ""
			if in.Layout != nil {
				want = passes.FormatBytes(in.Layout.Bytes)
			}
			if in.Cost != nil {
				want += fmt.Sprintf(", %.3g µs", in.Cost.TimeUS)
				if in.Cost.TimeUS > most {
					slowest, most = in.Name, in.Cost.TimeUS
				}
			}
			assert.Regexp(t, regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(in.Name)+` \[(\n\s+)?label="[^"]*\\n`+regexp.QuoteMeta(strings.TrimPrefix(want, ", "))+`"`), dot, in.Name)
		}
	}
	require.NotEmpty(t, slowest)
	block := regexp.MustCompile(`(?s)\n  ` + regexp.QuoteMeta(slowest) + ` \[\n.*?\n  \];`).FindString(dot)
	assert.Contains(t, block, `fillcolor="#a50f15"`, "the slowest kernel is the darkest")

	cg, errOut, code := hloOpt(t, "", "--passes=layout,cost", "--device=tpu-v5e", "--format=dot", f)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, cg, "kernels)")

	_, errOut, code = hloOpt(t, "", "--format=dot", "--computation=nope", f)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `no computation "nope"; the module has main (entry), add, grad_fusion, accumulate, body, cond, momentum, update, loss_fusion`)
}
