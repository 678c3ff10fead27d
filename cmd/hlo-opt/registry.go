package main

import (
	"fmt"
	"io"
	"os"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/indexing"
	"github.com/hlo-opt/hlo-opt/passes"
)

// allPasses is every pass hlo-opt offers, one line per pass, kept sorted by
// name. A new pass package adds its pass value here (and nothing else in
// this command changes): its result's reporters make it appear in the
// text and JSON output.
func allPasses(costCfg cost.Config) []*passes.Pass {
	cp := cost.NewPasses(costCfg)
	return []*passes.Pass{
		// keep-sorted start
		cp.Coalescing,
		cp.Cost,
		indexing.Pass,
		passes.Stats,
		cp.Utilization,
		passes.Verify,
		// keep-sorted end
	}
}

// newRegistry validates the table; main reports a broken table as an
// internal error.
func newRegistry() (*passes.Registry, error) {
	return passes.NewRegistry(allPasses(cost.DefaultConfig())...)
}

// newRegistryFor builds the registry with the cost passes configured by
// --device and --coalescing.
func newRegistryFor(o *options) (*passes.Registry, error) {
	cfg := cost.DefaultConfig()
	if o.device != "" {
		d, err := cost.LookupDevice(o.device, func(p string) (io.ReadCloser, error) { return os.Open(p) })
		if err != nil {
			return nil, err
		}
		cfg.Device = d
	}
	switch o.coalescing {
	case "", "indexing":
	case "heuristic":
		cfg.Mode, cfg.CostMode = cost.Heuristic, cost.Heuristic
	default:
		return nil, fmt.Errorf("--coalescing=%s: want heuristic or indexing", o.coalescing)
	}
	return passes.NewRegistry(allPasses(cfg)...)
}
