package layoutassign

import (
	"reflect"

	"github.com/hlo-opt/hlo-opt/passes"
)

// Pass is the "layout" pass on the TPU target: it assigns every array's
// layout (see Assign) and computes the memory report (see AnalyzeMemory).
// NewPass configures another target, device or --relayout.
var Pass = NewPass(Options{Target: TPU()})

// NewPass returns the "layout" pass with the given options (hlo-opt's
// --target, --device and --relayout). Its result is a *Result.
func NewPass(opts Options) *passes.Pass {
	return &passes.Pass{
		Name:       "layout",
		Doc:        "assign array layouts (TPU tiling) and report padded memory and peak",
		ResultType: reflect.TypeFor[*Result](),
		Transform:  true,
		Run: func(u *passes.Unit) (any, error) {
			o := opts
			if o.Logger == nil {
				o.Logger = u.Logger
			}
			as, err := Assign(u.Module, o)
			if err != nil {
				return nil, err
			}
			if as.Changed {
				u.SetChanged()
			}
			mr, err := AnalyzeMemory(u.Module, o.Target)
			if err != nil {
				return nil, err
			}
			return &Result{Assignment: as, Memory: mr, Relayout: o.Relayout}, nil
		},
	}
}
