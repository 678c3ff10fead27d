package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/indexing"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// passConfig holds the passes' settings: the cost passes' device and
// coalescing mode, the layout pass's target. They reach the passes through
// the pipeline's Options.Config (see config).
type passConfig struct {
	cost   cost.Config
	layout layoutassign.Options
	// xla is the xla-cost pass's backend; zero lets the pass infer it.
	xla cost.XLATarget
}

func defaultPassConfig() passConfig {
	return passConfig{cost: cost.DefaultConfig(), layout: layoutassign.Options{Target: layoutassign.TPU()}}
}

// costOnly reports whether ps holds a GPU cost pass and not the layout
// passes: without --device such a run lays out for the cost passes'
// default GPU, not for the layout pass's default TPU.
func costOnly(ps []*passes.Pass) bool {
	if slices.Contains(ps, layoutassign.Pass) || slices.Contains(ps, layoutassign.AssignPass) {
		return false
	}
	return slices.ContainsFunc(append(cost.All(), cost.KernelsPass, cost.XLACostPass), func(p *passes.Pass) bool { return slices.Contains(ps, p) })
}

// config is cfg as passes.Options.Config.
func (cfg passConfig) config() map[string]any {
	return map[string]any{cost.ConfigKey: cfg.cost, layoutassign.ConfigKey: cfg.layout, cost.XLACostConfigKey: cfg.xla}
}

// allPasses is every pass hlo-opt offers, one line per pass, kept sorted by
// name. A new pass package adds its pass value here (and nothing else in
// this command changes): its result's reporters make it appear in the
// text and JSON output.
func allPasses() []*passes.Pass {
	return []*passes.Pass{
		// keep-sorted start
		cost.CoalescingPass,
		cost.CostPass,
		cost.KernelsPass,
		cost.UtilizationPass,
		cost.XLACostPass,
		indexing.Pass,
		layoutassign.AssignPass,
		layoutassign.Pass,
		passes.Stats,
		passes.Verify,
		// keep-sorted end
	}
}

// newRegistry validates the table; main reports a broken table as an
// internal error.
func newRegistry() (*passes.Registry, error) {
	return passes.NewRegistry(allPasses()...)
}

// newPassConfig is the passes' settings that --device, --coalescing,
// --target and --relayout give. The device is every pass's: the cost
// passes model it, the layout pass takes its kind as the target (unless
// --target names one) and its HBM capacity for the verdict.
func newPassConfig(o *options, ps []*passes.Pass) (passConfig, error) {
	cfg := defaultPassConfig()
	if o.device != "" {
		d, err := cost.LookupDevice(o.device, func(p string) (io.ReadCloser, error) { return os.Open(p) })
		if err != nil {
			return passConfig{}, err
		}
		cfg.cost.Device = d
		cfg.layout.Target = d.LayoutTarget()
		cfg.xla = d.XLATarget()
	} else if costOnly(ps) {
		// The cost passes lay out missing layouts first
		// (layoutassign.AssignPass) for the device they model.
		cfg.layout.Target = layoutassign.GPU()
	}
	switch o.coalescing {
	case "", "indexing":
	case "heuristic":
		cfg.cost.Mode, cfg.cost.CostMode = cost.Heuristic, cost.Heuristic
	default:
		return passConfig{}, fmt.Errorf("--coalescing=%s: want heuristic or indexing", o.coalescing)
	}
	if o.target != "" {
		t, err := layoutassign.ParseTarget(o.target)
		if err != nil {
			return passConfig{}, fmt.Errorf("--target=%s: %w", o.target, err)
		}
		t.Device, t.HBMBytes = cfg.layout.Target.Device, cfg.layout.Target.HBMBytes
		t.VMEMBytes, t.SMEMBytes = cfg.layout.Target.VMEMBytes, cfg.layout.Target.SMEMBytes
		cfg.layout.Target = t
		x, err := cost.ParseXLATarget(o.target)
		if err != nil {
			return passConfig{}, fmt.Errorf("--target=%s: %w", o.target, err)
		}
		if x.Backend != cfg.xla.Backend || x.Device != "" {
			cfg.xla = x
		}
	}
	cfg.layout.Relayout = o.relayout
	return cfg, nil
}
