package main

import (
	"fmt"
	"io"
	"os"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/indexing"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// passConfig holds the options that configure pass values: the cost
// passes' device and coalescing mode, the layout pass's target.
type passConfig struct {
	cost   cost.Config
	layout layoutassign.Options
}

func defaultPassConfig() passConfig {
	return passConfig{cost: cost.DefaultConfig(), layout: layoutassign.Options{Target: layoutassign.TPU()}}
}

// allPasses is every pass hlo-opt offers, one line per pass, kept sorted by
// name. A new pass package adds its pass value here (and nothing else in
// this command changes): its result's reporters make it appear in the
// text and JSON output.
func allPasses(cfg passConfig) []*passes.Pass {
	cp := cost.NewPasses(cfg.cost)
	return []*passes.Pass{
		// keep-sorted start
		cp.Coalescing,
		cp.Cost,
		indexing.Pass,
		layoutassign.NewPass(cfg.layout),
		passes.Stats,
		cp.Utilization,
		passes.Verify,
		// keep-sorted end
	}
}

// newRegistry validates the table with default options; main reports a
// broken table as an internal error.
func newRegistry() (*passes.Registry, error) {
	return passes.NewRegistry(allPasses(defaultPassConfig())...)
}

// newRegistryFor builds the registry with the passes configured by
// --device, --coalescing, --target and --relayout. The device is every
// pass's: the cost passes model it, the layout pass takes its kind as the
// target (unless --target names one) and its HBM capacity for the
// verdict.
func newRegistryFor(o *options) (*passes.Registry, error) {
	cfg := defaultPassConfig()
	if o.device != "" {
		d, err := cost.LookupDevice(o.device, func(p string) (io.ReadCloser, error) { return os.Open(p) })
		if err != nil {
			return nil, err
		}
		cfg.cost.Device = d
		cfg.layout.Target = layoutassign.TPU()
		if d.IsGPU() {
			cfg.layout.Target = layoutassign.GPU()
		}
		cfg.layout.Target.Device, cfg.layout.Target.HBMBytes = d.Name, d.MemoryBytes
	}
	switch o.coalescing {
	case "", "indexing":
	case "heuristic":
		cfg.cost.Mode, cfg.cost.CostMode = cost.Heuristic, cost.Heuristic
	default:
		return nil, fmt.Errorf("--coalescing=%s: want heuristic or indexing", o.coalescing)
	}
	if o.target != "" {
		t, err := layoutassign.ParseTarget(o.target)
		if err != nil {
			return nil, fmt.Errorf("--target=%s: %w", o.target, err)
		}
		t.Device, t.HBMBytes = cfg.layout.Target.Device, cfg.layout.Target.HBMBytes
		cfg.layout.Target = t
	}
	cfg.layout.Relayout = o.relayout
	return passes.NewRegistry(allPasses(cfg)...)
}
