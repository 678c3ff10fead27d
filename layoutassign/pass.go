package layoutassign

import (
	"reflect"

	"github.com/hlo-opt/hlo-opt/passes"
)

// ConfigKey is the key of the layout passes' Options in
// passes.Options.Config (hlo-opt's --target, --device and --relayout).
const ConfigKey = "layout"

// AssignPass is the "layout-assign" pass: it gives every array a layout
// (see Assign) with the Options the pipeline's Config holds under
// ConfigKey (the TPU target without one). Its result is the *Assignment.
// Every analysis that reads layouts requires it: the layout pass's
// memory report and the cost passes.
var AssignPass = &passes.Pass{
	Name:       "layout-assign",
	Doc:        "assign array layouts (TPU tiling) where the module states none",
	ResultType: reflect.TypeFor[*Assignment](),
	Transform:  true,
	Run:        assign,
}

// Pass is the "layout" pass: the memory report (see AnalyzeMemory) of the
// module as AssignPass laid it out. Its result is a *Result.
var Pass = &passes.Pass{
	Name:       "layout",
	Doc:        "padded memory and peak of every array as laid out (TPU tiling)",
	Requires:   []*passes.Pass{AssignPass},
	ResultType: reflect.TypeFor[*Result](),
	Run:        report,
}

// optionsOf returns the Options the pipeline holds under ConfigKey, the
// TPU target without them, with u's logger when they name none.
func optionsOf(u *passes.Unit) Options {
	o, ok := u.Config(ConfigKey).(Options)
	if !ok {
		o = Options{Target: TPU()}
	}
	if o.Logger == nil {
		o.Logger = u.Logger
	}
	return o
}

func assign(u *passes.Unit) (any, error) {
	as, err := Assign(u.Module, optionsOf(u))
	if err != nil {
		return nil, err
	}
	if as.Changed {
		u.SetChanged()
	}
	return as, nil
}

func report(u *passes.Unit) (any, error) {
	o := optionsOf(u)
	mr, err := analyzeMemory(u.Module, o.Target, o.Summary)
	if err != nil {
		return nil, err
	}
	return &Result{Assignment: u.ResultOf(AssignPass).(*Assignment), Memory: mr, Relayout: o.Relayout}, nil
}
