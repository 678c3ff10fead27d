package main

import "github.com/hlo-opt/hlo-opt/passes"

// allPasses is every pass hlo-opt offers, one line per pass, kept sorted by
// name. A new pass package adds its pass value here (and nothing else in
// this command changes): its result's reporters make it appear in the
// text and JSON output.
func allPasses() []*passes.Pass {
	return []*passes.Pass{
		// keep-sorted start
		passes.Stats,
		passes.Verify,
		// keep-sorted end
	}
}

// newRegistry validates the table; main reports a broken table as an
// internal error.
func newRegistry() (*passes.Registry, error) { return passes.NewRegistry(allPasses()...) }
