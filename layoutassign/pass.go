package layoutassign

import (
	"reflect"

	"github.com/hlo-opt/hlo-opt/passes"
)

// ConfigKey is the key of the layout pass's Options in
// passes.Options.Config (hlo-opt's --target, --device and --relayout).
const ConfigKey = "layout"

// Pass is the "layout" pass: it assigns every array's layout (see Assign)
// and computes the memory report (see AnalyzeMemory), with the Options the
// pipeline's Config holds under ConfigKey (the TPU target without one).
// Its result is a *Result.
var Pass = &passes.Pass{
	Name:       "layout",
	Doc:        "assign array layouts (TPU tiling) and report padded memory and peak",
	ResultType: reflect.TypeFor[*Result](),
	Transform:  true,
	Run:        run,
}

func run(u *passes.Unit) (any, error) {
	o, ok := u.Config(ConfigKey).(Options)
	if !ok {
		o = Options{Target: TPU()}
	}
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
}
