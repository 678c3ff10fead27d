package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/indexing"
)

// "hlo-opt simplify-map" reads indexing maps from stdin, one per line in
// XLA's one-line form, and prints each simplified map on its own line, in
// order. A line that does not parse prints
// "error: <stdin>:LINE:COL: expected X, found Y" in its place (the other
// lines are still simplified) and the exit status is then 1. A blank line
// prints a blank line.
func init() {
	register("simplify-map", subcommand{
		Synopsis: "simplify-map < MAPS  (one indexing map per line; prints each simplified)",
		Run:      runSimplifyMap,
	})
}

func runSimplifyMap(_ context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			fmt.Fprintln(env.Stderr, "usage: hlo-opt simplify-map < MAPS\n\nReads one indexing map per line, e.g.\n  (d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]\nand prints each simplified map on its own line.")
			return 0
		}
		fmt.Fprintf(env.Stderr, "hlo-opt simplify-map: expected no arguments (maps come on stdin), found %q\n", args[0])
		return 2
	}
	sc := bufio.NewScanner(env.Stdin)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	code := 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			fmt.Fprintln(out, "")
			continue
		}
		s, err := indexing.SimplifyLine(line)
		if err != nil {
			code = 1
			var pe *indexing.ParseError
			if errors.As(err, &pe) {
				fmt.Fprintf(out, "error: <stdin>:%d:%d: %s\n", n, pe.Col, pe.Msg)
			} else {
				fmt.Fprintf(out, "error: <stdin>:%d: %v\n", n, err)
			}
			continue
		}
		fmt.Fprintln(out, s)
	}
	if err := sc.Err(); err != nil {
		out.Flush()
		fmt.Fprintf(env.Stderr, "hlo-opt simplify-map: reading stdin: %v\n", err)
		return 1
	}
	return code
}
