package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/hlo-opt/hlo-opt/cmd/internal/xladiff"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("xla-diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("hlo-opt", "", "the hlo-opt `command` to run (make build writes bin/hlo-opt)")
	results := fs.String("results", "", "write every compile's outcomes as JSON to `file`")
	jobs := fs.Int("jobs", 2, "compiles compared at once")
	quiet := fs.Bool("q", false, "print no table")
	layouts := fs.Bool("layouts", false, "compare only the TPU layouts (one hlo-opt run a compile; -results lists every array that differs)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *bin == "" || fs.NArg() == 0 || *jobs < 1 {
		fmt.Fprintln(stderr, "usage: xla-diff -hlo-opt BIN [-results FILE] [-jobs N] [-q] [-layouts] DIR...")
		return 2
	}
	compare := xladiff.Compare
	if *layouts {
		compare = xladiff.CompareLayouts
	}
	rs, err := compareAll(ctx, compare, execRunner(*bin), fs.Args(), *jobs)
	if err != nil {
		fmt.Fprintf(stderr, "xla-diff: %v\n", err)
		return 1
	}
	if *results != "" {
		out, err := json.MarshalIndent(rs, "", " ")
		if err == nil {
			err = os.WriteFile(*results, append(out, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "xla-diff: %v\n", err)
			return 1
		}
	}
	if !*quiet {
		t := xladiff.NewTally()
		for _, r := range rs {
			t.Add(r)
		}
		if err := t.WriteTable(stdout); err != nil {
			fmt.Fprintf(stderr, "xla-diff: %v\n", err)
			return 1
		}
	}
	return 0
}

// compareFunc compares one compile (xladiff.Compare, CompareLayouts).
type compareFunc func(ctx context.Context, dir string, b xladiff.Backend, run xladiff.Runner) (*xladiff.Result, error)

// compareAll compares the compiles in dirs, at most jobs at once; the
// results are in the order of dirs.
func compareAll(ctx context.Context, compare compareFunc, run xladiff.Runner, dirs []string, jobs int) ([]*xladiff.Result, error) {
	rs := make([]*xladiff.Result, len(dirs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i, dir := range dirs {
		g.Go(func() error {
			b, err := xladiff.LookupBackend(filepath.Base(filepath.Clean(dir)))
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			r, err := compare(ctx, dir, b, run)
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			rs[i] = r
			return nil
		})
	}
	return rs, g.Wait()
}

// execRunner runs the hlo-opt binary at bin.
func execRunner(bin string) xladiff.Runner {
	return func(ctx context.Context, args []string) ([]byte, []byte, int) {
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return out.Bytes(), errOut.Bytes(), exit.ExitCode()
		case err != nil:
			return out.Bytes(), []byte(err.Error()), -1
		}
		return out.Bytes(), errOut.Bytes(), 0
	}
}
