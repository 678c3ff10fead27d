package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/dumpdir"
	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memview"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// dirPasses are the passes of a dump directory's summary when --passes
// names none: the memory report and the time estimate.
const dirPasses = "layout,cost"

// isDir reports whether the input names a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// dirProblem says what the flags ask that a dump directory's summary
// cannot give, "" when nothing.
func dirProblem(o *options, ps []*passes.Pass) string {
	switch {
	case !slices.Contains(ps, layoutassign.Pass):
		return "a dump directory's summary is the layout pass's memory report: add layout to --passes"
	case o.format == "dot":
		return "--format=dot draws one module: give its file, not a dump directory"
	case o.format == "html" && (o.output == "" || o.output == "-"):
		return "--format=html with a dump directory writes an index and a page per module: give -o OUTDIR"
	case o.split:
		return "--split-input-file splits one file, not a dump directory"
	case o.dumpDir != "":
		return "--dump-dir dumps one module's passes, not a dump directory's"
	}
	return ""
}

// forDumped is cfg for module m of a dump directory: unless --device or
// --target name one, the layout target is the platform XLA's file name
// gives (a CPU's or a GPU's module is laid out and sized as such, not with
// the TPU's tiles).
func (cfg passConfig) forDumped(o *options, m xladump.Module) passConfig {
	if o.device != "" || o.target != "" {
		return cfg
	}
	switch m.Platform() {
	case "cpu":
		cfg.layout.Target = layoutassign.CPU()
	case "gpu":
		cfg.layout.Target = layoutassign.GPU()
	}
	return cfg
}

// dirModule is one module of a dump directory once analysed.
type dirModule struct {
	summary dumpdir.Summary
	page    memview.Input
	err     error
}

// runDir analyses the after-optimizations modules of the dump directory
// dir, --jobs at a time, each with the passes ps, and writes their summary
// (--format=text or json, to -o or stdout) or, with --format=html, the
// index page and one page per module into the directory -o names. A
// module that fails is reported on stderr and in the summary, and the
// others go on; the exit status is then 1.
func runDir(ctx context.Context, env *Env, o *options, ps []*passes.Pass, cfg passConfig, dir string) int {
	mods, err := xladump.Find(dir)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	if len(mods) == 0 {
		fmt.Fprintf(env.Stderr, "hlo-opt: %s: no after-optimizations module (*after_optimizations.txt): dump with XLA_FLAGS=\"--xla_dump_to=%s --xla_dump_hlo_as_text\"\n", dir, dir)
		return 1
	}
	logger := newLogger(env.Stderr, o.logLevel, o.logFormat)
	defer func() { _ = logger.Sync() }()
	// Modules run side by side, each on one goroutine: the jobs budget is
	// the directory's.
	one := *o
	one.jobs = 1
	jobs := o.jobCount()
	out := make([]dirModule, len(mods))
	var g errgroup.Group
	g.SetLimit(jobs)
	for i, m := range mods {
		g.Go(func() error {
			d := &driver{o: &one, env: env, passes: ps, logger: logger, filename: m.Path, prog: newProgress(env.Stderr, false),
				config: cfg.forDumped(o, m).config()}
			out[i] = d.analyseDumped(ctx, m)
			return nil
		})
	}
	_ = g.Wait() // a module's failure is in its slot
	if ctx.Err() != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", ctx.Err())
		return 1
	}
	code := 0
	ss := make([]dumpdir.Summary, len(out))
	for i, r := range out {
		if r.err != nil {
			printError(env.Stderr, r.err)
			code = 1
		}
		ss[i] = r.summary
	}
	if err := writeDir(env, o, dir, out, ss); err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	return code
}

// analyseDumped parses a module of a dump directory, runs the passes and
// sets its figures beside XLA's files.
func (d *driver) analyseDumped(ctx context.Context, m xladump.Module) dirModule {
	in := dumpdir.Input{Module: m.Name, File: m.Path}
	src, err := os.ReadFile(m.Path)
	if err != nil {
		in.Err = err
		return dirModule{summary: dumpdir.Summarize(in), err: err}
	}
	a, err := d.analyse(ctx, -1, chunk{src: src}, time.Now(), false)
	if err != nil {
		in.Err = err
		return dirModule{summary: dumpdir.Summarize(in), err: err}
	}
	r := dirModule{page: pageInput(m.Path, a.res)}
	in.Memory = r.page.Memory
	if r.page.Cost != nil {
		in.Estimate = r.page.Cost.Estimate()
	}
	in.Buffers, in.Usage, err = readXLAFiles(m)
	if err != nil {
		// XLA's files are the comparison's, not the module's: say so and
		// go on without them.
		fmt.Fprintf(d.env.Stderr, "hlo-opt: %v (no comparison with XLA)\n", err)
	}
	r.summary = dumpdir.Summarize(in)
	return r
}

// readXLAFiles reads the buffer assignment and memory-usage report XLA
// wrote beside a module (nil for a file it did not write).
func readXLAFiles(m xladump.Module) (*xladump.BufferAssignment, []xladump.Space, error) {
	ba, err := readParsed(m.BufferAssignment, xladump.ParseBufferAssignment)
	if err != nil {
		return nil, nil, err
	}
	usage, err := readParsed(m.MemoryUsageReport, xladump.ParseMemoryUsageReport)
	if err != nil {
		return nil, nil, err
	}
	return ba, usage, nil
}

// readParsed reads the file at path and parses it; the zero T when path
// is "", an error naming path when either fails.
func readParsed[T any](path string, parse func(string) (T, error)) (T, error) {
	var zero T
	if path == "" {
		return zero, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	v, err := parse(string(text))
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// writeDir writes the summary as --format asks: the index and a page per
// module into the directory -o names, or the text or JSON summary to -o.
func writeDir(env *Env, o *options, dir string, out []dirModule, ss []dumpdir.Summary) error {
	if o.format != "html" {
		return writeStreamed(env, o.output, false, func(w io.Writer) error {
			if o.format == "json" {
				return dumpdir.WriteJSON(w, dir, ss)
			}
			return dumpdir.WriteText(w, dir, ss)
		})
	}
	if err := os.MkdirAll(o.output, 0o755); err != nil {
		return err
	}
	for i, r := range out {
		if r.err != nil {
			continue
		}
		ss[i].Page = ss[i].Module + ".html"
		if err := writeFile(filepath.Join(o.output, ss[i].Page), func(w io.Writer) error { return memview.Write(w, r.page) }); err != nil {
			return err
		}
	}
	return writeFile(filepath.Join(o.output, "index.html"), func(w io.Writer) error { return dumpdir.WriteIndex(w, dir, ss) })
}
