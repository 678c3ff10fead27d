package layoutassign

// Classification of the transposes and reshapes the assignment made free
// or costly.

import (
	"github.com/hlo-opt/hlo-opt/hlo"
)

// classify sorts transposes and reshapes into free and costly ones.
func (a *assigner) classify(res *Assignment) {
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if len(in.Operands) != 1 {
				continue
			}
			op := in.Operands[0].Shape
			switch in.Opcode {
			case hlo.OpTranspose:
				if IsBitcastTranspose(op, in.Shape, in.Typed.Dimensions) {
					res.FreeTransposes = append(res.FreeTransposes, in.Name)
				} else {
					res.CostlyTransposes = append(res.CostlyTransposes, in.Name)
				}
			case hlo.OpReshape:
				if IsBitcastReshape(op, in.Shape) {
					res.FreeReshapes = append(res.FreeReshapes, in.Name)
				} else {
					res.CostlyReshapes = append(res.CostlyReshapes, in.Name)
				}
			}
		}
	}
}
