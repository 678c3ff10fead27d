package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// printVersion prints hlo-opt's version (the module version, or the VCS
// revision of a build from a checkout) and the XLA whose HLO text it reads.
func printVersion(w io.Writer) {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && v == "(devel)" {
				v += " " + s.Value
			}
		}
	}
	fmt.Fprintf(w, "hlo-opt %s\nHLO text: XLA as in %s; syntax surveyed at openxla/xla %s (hlo/SYNTAX.md)\n", v, hlo.XLAVersion, hlo.XLASurveyCommit[:12])
}
