package main

import (
	"context"
	"io"
	"maps"
	"slices"
)

// Env is the process environment a command runs in; tests supply buffers.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// subcommand is one verb of hlo-opt besides the default pipeline run
// ("hlo-opt shape-info ...").
type subcommand struct {
	// Synopsis is the one-line usage shown by "hlo-opt -h".
	Synopsis string
	// Run runs the verb with the arguments after its name and returns the
	// exit code (0 ok, 1 failure, 2 usage).
	Run func(ctx context.Context, env *Env, args []string) int
}

// subcommands are filled by register, called from the init function of the
// file that implements each verb (one file per verb, e.g. shapeinfo.go).
var subcommands = map[string]subcommand{}

// register adds a verb; a duplicate name is a programming error.
func register(name string, sc subcommand) {
	if _, dup := subcommands[name]; dup {
		panic("hlo-opt: subcommand registered twice: " + name)
	}
	subcommands[name] = sc
}

func subcommandNames() []string { return slices.Sorted(maps.Keys(subcommands)) }
