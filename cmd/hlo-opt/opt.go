package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/sync/errgroup"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memview"
	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/hlo-opt/hlo-opt/passes/render"
)

type options struct {
	passes        string
	listPasses    bool
	version       bool
	format        string
	emit          string
	timing        bool
	dumpDir       string
	logLevel      zapcore.Level
	logFormat     string
	jobs          int
	verify        bool
	output        string
	split         bool
	print         string
	elide         bool
	computation   string
	expandFusions bool
	maxNodes      int
	progress      bool
	progressTerm  bool // set when stderr is a terminal
	device        string
	coalescing    string
	target        string
	keepLayouts   bool
	relayout      bool
	allowTrunc    bool
	entry         string
	cpuprofile    string
	memprofile    string
}

func newFlagSet(env *Env, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("hlo-opt", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.StringVar(&o.passes, "passes", "", "comma-separated `list` of passes to run, in order (see --list-passes)")
	fs.BoolVar(&o.listPasses, "list-passes", false, "print the name and doc of each pass and exit")
	fs.BoolVar(&o.version, "version", false, "print the version and the XLA whose HLO text hlo-opt follows, and exit")
	fs.StringVar(&o.format, "format", "text", "output `format`: text, json, dot, or html (the Memory Viewer page of the layout pass, with the cost passes' fusion table when they ran)")
	fs.StringVar(&o.emit, "emit", "", "what to print: module, report or both (default: module without --passes, report with)")
	fs.BoolVar(&o.timing, "timing", false, "print the wall time of the parse, each pass, the output and the whole on stderr")
	fs.StringVar(&o.dumpDir, "dump-dir", "", "write the module after each pass as `dir`/NN-pass.hlo")
	o.logLevel = zapcore.WarnLevel
	fs.Var(&o.logLevel, "log-level", "log `level`: debug, info, warn, error")
	fs.StringVar(&o.logFormat, "log-format", "console", "log format: console or json")
	fs.IntVar(&o.jobs, "jobs", 0, "goroutines at work at once in parsing, the passes, printing and rendering (default GOMAXPROCS)")
	fs.BoolVar(&o.verify, "verify", true, "verify the input before the first pass (an invalid input is reported as such) and the module after each pass that changed it")
	fs.StringVar(&o.output, "o", "-", "write output to `file` (- is stdout): a regular file is replaced atomically keeping its mode, a symlink's target is written, a device or fifo written through; nothing is written when the run fails")
	fs.BoolVar(&o.split, "split-input-file", false, "handle each '// -----' chunk of the input as its own module")
	fs.StringVar(&o.print, "print", "full", "module text form: full (spelled as the input was), classic (operand shapes, a get-tuple-element for each %t#k) or short")
	fs.BoolVar(&o.elide, "elide-large-constants", false, "print constants of more than 10 elements as {...}")
	fs.StringVar(&o.computation, "computation", "", "with --format=dot: draw this computation's instruction graph")
	fs.BoolVar(&o.expandFusions, "expand-fusions", false, "with --format=dot --computation: draw each fusion's computation as a cluster linked to the fusion")
	fs.IntVar(&o.maxNodes, "max-nodes", graph.DefaultMaxNodes, "with --format=dot --computation: draw at most `N` instructions, those nearest the root (negative: all)")
	fs.BoolVar(&o.progress, "progress", true, "show a progress line on stderr when it is a terminal")
	fs.StringVar(&o.device, "device", "", "the device every pass models: tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e, h100, h200, a100 or a JSON device `file`; the layout target follows its kind and the memory report checks its HBM capacity (default: h100 for the cost passes, the tpu target without capacity for the layout pass; cost passes alone lay out for a gpu)")
	fs.StringVar(&o.target, "target", "", "target of the layout pass and backend of the xla-cost pass: tpu, tpu-v4, tpu-v6e, tpu-pred4 (4-byte PRED), gpu or cpu (default: the --device's kind, else tpu; xla-cost infers the backend from the module)")
	fs.BoolVar(&o.keepLayouts, "keep-layouts", false, "layout pass: keep every layout stated in the module (the default; kept for scripts)")
	fs.BoolVar(&o.relayout, "relayout", false, "layout pass: assign every layout anew, keeping only the entry signature and layout constraints (by default every stated layout is kept)")
	fs.BoolVar(&o.allowTrunc, "allow-truncated", false, "accept a text that ends inside a computation (a truncated dump): keep the complete computations and say what was dropped")
	fs.StringVar(&o.entry, "entry", "", "treat the computation `name` as the entry (default: the one marked ENTRY, else the last one)")
	fs.StringVar(&o.coalescing, "coalescing", "indexing", "analysis of the coalescing pass: indexing or heuristic (the cost pass derates reads by the heuristic in either case, as XLA's GPU performance model does)")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to `file` (runtime/pprof; read it with go tool pprof)")
	fs.StringVar(&o.memprofile, "memprofile", "", "write a heap profile to `file` at exit (runtime/pprof; -sample_index=alloc_space shows where the run allocated)")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: hlo-opt [flags] [FILE|-|DIR]\n")
		for _, name := range subcommandNames() {
			fmt.Fprintf(w, "       hlo-opt %s\n", subcommands[name].Synopsis)
		}
		fmt.Fprintf(w, "\nParses an HLO module, runs the passes named by --passes and prints the module\nand/or the passes' reports. Without FILE, reads standard input when it is not a\nterminal. A DIR (XLA_FLAGS=--xla_dump_to=DIR) gets a summary of its optimized\nmodules (--passes=layout,cost by default; --format=html -o OUTDIR writes an index\nand a page per module). Exit status: 0 ok, 1 failure, 2 usage.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// Main runs hlo-opt with the given arguments and returns the exit code.
func Main(ctx context.Context, args []string, env *Env) (code int) {
	if len(args) > 0 {
		if sc, ok := subcommands[args[0]]; ok {
			return sc.Run(ctx, env, args[1:])
		}
	}
	var o options
	fs := newFlagSet(env, &o)
	fs.SetOutput(helpOutput(env, args))
	args, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	reg, err := newRegistry()
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: internal error: %v\n", err)
		return 1
	}
	if o.version {
		printVersion(env.Stdout)
		return 0
	}
	if o.listPasses {
		width := 0
		for _, p := range reg.Passes() {
			width = max(width, len(p.Name))
		}
		for _, p := range reg.Passes() {
			fmt.Fprintf(env.Stdout, "%-*s %s\n", width, p.Name, p.Doc)
		}
		return 0
	}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "hlo-opt: "+format+"\n", args...)
		fmt.Fprintf(env.Stderr, "run 'hlo-opt -h' for usage\n")
		return 2
	}
	if len(args) == 0 && env.Stdin != nil && !isTerminal(env.Stdin) {
		args = []string{"-"} // as XLA's hlo-opt: no file, a pipe or a redirect
	}
	if p := flagProblem(&o, args); p != "" {
		return usage("%s", p)
	}
	dir := isDir(args[0])
	if dir && o.passes == "" {
		o.passes = dirPasses
	}
	ps, err := reg.Parse(o.passes)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	if p := passesProblem(&o, ps); p != "" {
		return usage("%s", p)
	}
	cfg, err := newPassConfig(&o, ps)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", err)
		return 2
	}
	o.progressTerm = o.progress && isTerminal(env.Stderr)
	stopProfiles, err := startProfiles(&o)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	defer func() {
		if err := stopProfiles(); err != nil {
			fmt.Fprintf(env.Stderr, "hlo-opt: profile: %v\n", err)
			code = max(code, 1)
		}
	}()
	if dir {
		if p := dirProblem(&o, ps); p != "" {
			return usage("%s", p)
		}
		return runDir(ctx, env, &o, ps, cfg, args[0])
	}

	filename := args[0]
	name := filename
	if name == "-" {
		name = "<stdin>"
	}
	logger := newLogger(env.Stderr, o.logLevel, o.logFormat)
	defer func() { _ = logger.Sync() }()
	prog := newProgress(env.Stderr, o.progressTerm)
	d := &driver{o: &o, env: env, passes: ps, logger: logger, filename: name, prog: prog, config: cfg.config()}
	if o.split {
		return d.runSplit(ctx, filename)
	}
	src, err := readInput(env, filename)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	return d.runOne(ctx, chunk{src: src})
}

// runSplit runs each '// -----' chunk of the input file (- is stdin) as a
// module of its own (runChunks) and writes their outputs joined, once
// every chunk has succeeded.
func (d *driver) runSplit(ctx context.Context, file string) int {
	in, err := openInput(d.env, file)
	if err != nil {
		fmt.Fprintf(d.env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	defer in.Close()
	outs, code := d.runChunks(ctx, in)
	if code != 0 {
		return code
	}
	all := joinOutputs(d.o, outs)
	d.prog.stage("writing the output", all.size())
	err = writeOutput(d.env, d.o.output, all)
	d.prog.done()
	if err != nil {
		fmt.Fprintf(d.env.Stderr, "hlo-opt: %v\n", err)
		return 1
	}
	return 0
}

// chunkRun is what one chunk of --split-input-file gave: its output, or
// the error that stopped it, and its --timing lines.
type chunkRun struct {
	out    *blocks
	err    error
	timing bytes.Buffer
}

// runChunks reads the chunks of --split-input-file from in and runs each
// as soon as it is read, up to --jobs of them side by side with one job
// each (a chunk alone in the input gets every job), while the rest is
// read; it returns their outputs in chunk order. Each chunk's --timing
// lines are held and written after the run, chunk after chunk, each
// before the chunk's error; a failed chunk does not stop the others, so
// that every error is reported, and makes the exit status 1.
func (d *driver) runChunks(ctx context.Context, in io.Reader) ([]*blocks, int) {
	var runs []*chunkRun
	var g errgroup.Group
	g.SetLimit(d.o.jobCount())
	readErr := hlo.ReadChunks(in, func(c hlo.Chunk, last bool) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := len(runs)
		one := *d.o
		if idx > 0 || !last {
			one.jobs = 1
		} else {
			idx = -1 // the input's only module
		}
		r := &chunkRun{}
		runs = append(runs, r)
		ch := chunk{src: c.Src, line: c.Line - 1}
		g.Go(func() error {
			cd := *d
			cd.o = &one
			cd.env = &Env{Stdin: d.env.Stdin, Stdout: d.env.Stdout, Stderr: &r.timing}
			src := ch
			ch = chunk{} // the text is garbage once parsed
			r.out, r.err = cd.runChunk(ctx, idx, src)
			return nil
		})
		return nil
	})
	_ = g.Wait() // a chunk's failure is in its run
	stderr := d.env.Stderr
	outs := make([]*blocks, 0, len(runs))
	code := 0
	for _, r := range runs {
		_, _ = r.timing.WriteTo(stderr)
		if r.err == nil {
			outs = append(outs, r.out)
			continue
		}
		if ctx.Err() != nil {
			break
		}
		printError(stderr, r.err)
		code = 1
	}
	if err := ctx.Err(); err != nil {
		readErr = err
	}
	if readErr != nil {
		fmt.Fprintf(stderr, "hlo-opt: %v\n", readErr)
		return nil, 1
	}
	return outs, code
}

// runOne runs the passes on the input's one module and writes the output
// as it is rendered, a computation at a time, rather than holding it
// (a report can be larger than the module): the passes have finished
// before the first byte is written, so a failing pass writes nothing, and
// -o replaces its file only once the whole output is in (see writeFile).
// Only a failure while writing can leave part of the output on stdout.
func (d *driver) runOne(ctx context.Context, ch chunk) int {
	start := time.Now()
	a, err := d.analyse(ctx, -1, ch, start, d.spools())
	if err == nil {
		// A module printed alone keeps its last newlines (see joinOutputs).
		keepEnd := d.o.format == "text" && d.o.emit == "module"
		err = writeStreamed(d.env, d.o.output, keepEnd, func(w io.Writer) error {
			return d.timedRender(w, a, start)
		})
		err = errors.Join(err, a.close())
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		printError(d.env.Stderr, err)
		return 1
	}
	return 0
}

// flagProblem says what is wrong with the flags and the arguments, ""
// when nothing is.
func flagProblem(o *options, args []string) string {
	switch {
	case len(args) != 1:
		return fmt.Sprintf("want exactly one input file (or -), got %d arguments", len(args))
	case o.format != "text" && o.format != "json" && o.format != "dot" && o.format != "html":
		return fmt.Sprintf("--format=%s: want text, json, dot or html", o.format)
	case o.emit != "" && o.emit != "module" && o.emit != "report" && o.emit != "both":
		return fmt.Sprintf("--emit=%s: want module, report or both", o.emit)
	case o.print != "full" && o.print != "short" && o.print != "classic":
		return fmt.Sprintf("--print=%s: want full, classic or short", o.print)
	case o.logFormat != "console" && o.logFormat != "json":
		return fmt.Sprintf("--log-format=%s: want console or json", o.logFormat)
	case o.computation != "" && o.format != "dot":
		return "--computation needs --format=dot"
	case o.relayout && o.keepLayouts:
		return "--relayout and --keep-layouts exclude each other"
	}
	return ""
}

// passesProblem settles --emit's default from the passes ps and says what
// the flags ask that ps cannot give, "" when nothing.
func passesProblem(o *options, ps []*passes.Pass) string {
	if o.emit == "" {
		o.emit = "module"
		if len(ps) > 0 {
			o.emit = "report"
		}
	}
	if o.emit != "module" && len(ps) == 0 && o.format != "dot" {
		return fmt.Sprintf("--emit=%s needs --passes", o.emit)
	}
	if o.format == "html" && !slices.ContainsFunc(ps, func(p *passes.Pass) bool { return p.Name == "layout" }) {
		return "--format=html draws the layout pass's memory report: add layout to --passes"
	}
	return ""
}

// joinOutputs joins the outputs of the chunks, their blocks without
// copies: a JSON array of --split-input-file's JSON documents, else the
// texts as XLA's hlo-opt joins them. A module printed alone keeps its last
// newlines (today's XLA ends its text with a blank line): hlo-opt FILE
// reproduces FILE.
func joinOutputs(o *options, outs []*blocks) *blocks {
	var all blocks
	add := func(s string) { all.bs = append(all.bs, []byte(s)) }
	keepEnd := len(outs) == 1 && !o.split && o.format == "text" && o.emit == "module"
	for _, out := range outs {
		if !keepEnd {
			out.trimNewlines()
		}
	}
	array := o.format == "json" && o.split
	sep := hlo.OutputSeparator
	if array {
		sep = ",\n"
		add("[\n")
	}
	for i, out := range outs {
		if i > 0 {
			add(sep)
		}
		all.bs = append(all.bs, out.bs...)
	}
	switch {
	case array:
		add("\n]\n")
	case !all.empty() && !keepEnd:
		add("\n")
	}
	return &all
}

// printError prints an error one line per problem, each prefixed with
// "hlo-opt: " unless it is a positioned parse error.
func printError(w io.Writer, err error) {
	var pl hlo.ErrorList
	if errors.As(err, &pl) {
		for _, e := range pl {
			fmt.Fprintln(w, e)
		}
		return
	}
	var buf bytes.Buffer
	passes.PrintErrors(&buf, err)
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		fmt.Fprintf(w, "hlo-opt: %s\n", line)
	}
}

type driver struct {
	o        *options
	env      *Env
	passes   []*passes.Pass
	logger   *zap.Logger
	filename string
	prog     *progress
	config   map[string]any // the passes' settings (passConfig.config)
}

// jobCount is --jobs, GOMAXPROCS when it is 0 (the default).
func (o *options) jobCount() int {
	if o.jobs <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.jobs
}

func (d *driver) printOpts() hlo.PrintOptions {
	return hlo.PrintOptions{Short: d.o.print == "short", Classic: d.o.print == "classic", ElideLargeConstants: d.o.elide, Jobs: d.o.jobs}
}

func (d *driver) moduleText(m *hlo.Module) (string, error) {
	var b strings.Builder
	if err := m.Print(&b, d.printOpts()); err != nil {
		return "", err
	}
	return b.String(), nil
}

// parse parses a chunk as --allow-truncated and --entry ask.
func (d *driver) parse(ch chunk) (*hlo.Module, error) {
	// Positions in errors are those of the file.
	opts := hlo.ParseOptions{AllowTruncated: d.o.allowTrunc, Jobs: d.o.jobs}
	m, err := opts.ParseChunk(d.filename, hlo.Chunk{Src: ch.src, Line: ch.line + 1})
	if err != nil {
		return nil, err
	}
	if d.o.entry != "" {
		if err := m.SetEntry(d.o.entry); err != nil {
			return nil, fmt.Errorf("%s: --entry: %w", d.filename, err)
		}
	}
	return m, nil
}

func (d *driver) runChunk(ctx context.Context, idx int, ch chunk) (*blocks, error) {
	start := time.Now()
	// The output is held until every chunk succeeded: reports written
	// to a spool as the passes end would be held as well, after a trip
	// through a file (5% more CPU time and 15 MB more peak RSS on the 120
	// mobilenet_v2 modules with stats,indexing,cost).
	a, err := d.analyse(ctx, idx, ch, start, false)
	if err != nil {
		return nil, err
	}
	var out blocks
	if err := d.timedRender(&out, a, start); err != nil {
		return nil, err
	}
	return &out, nil
}

// analysis is what analyse gives: the module, the passes' results and,
// when it was asked to spool, the spool of their text reports.
type analysis struct {
	m     *hlo.Module
	res   *passes.Results
	spool *render.Spool
	// spooling is the time spent writing reports to the spool, part
	// of the output's in --timing.
	spooling time.Duration
}

// close releases the spool, if any.
func (a *analysis) close() error {
	if a.spool == nil {
		return nil
	}
	return a.spool.Close()
}

// spoolMemory is the size of the text reports that a spool keeps in
// memory before it moves them to a temporary file.
var spoolMemory = 1 << 20

// spools reports whether the output holds the passes' text reports, which
// a run of one module then writes to a spool as each pass finishes (see
// passes.Options.Finished), so that the passes' results are not all live
// at once.
func (d *driver) spools() bool {
	return d.o.format == "text" && d.o.emit != "module" && len(d.passes) > 0
}

// analyse parses a chunk, the idx'th of --split-input-file's (-1 for a
// module alone), and runs the passes on it; start is when the parse began
// (for --timing). With spool, the requested passes' text reports go to a
// spool as their results are final, and the run drops the results; a
// failed run closes the spool, whose reports are never written.
func (d *driver) analyse(ctx context.Context, idx int, ch chunk, start time.Time, spool bool) (*analysis, error) {
	o := d.o
	d.prog.stage("parsing "+d.filename, len(ch.src))
	m, err := d.parse(ch)
	d.prog.done()
	if err != nil {
		return nil, err
	}
	if o.timing {
		fmt.Fprintf(d.env.Stderr, "hlo-opt: timing: parse %s\n", time.Since(start).Round(time.Microsecond))
	}
	dumpDir := o.dumpDir
	if dumpDir != "" && idx >= 0 {
		dumpDir = filepath.Join(dumpDir, fmt.Sprintf("chunk%d", idx))
	}
	if dumpDir != "" {
		if err := os.MkdirAll(dumpDir, 0o755); err != nil {
			return nil, err
		}
		if err := d.dump(filepath.Join(dumpDir, "00-input.hlo"), m); err != nil {
			return nil, err
		}
	}
	a := &analysis{m: m, res: &passes.Results{Module: m}}
	if spool {
		a.spool = render.NewSpool(m, "", spoolMemory)
	}
	if len(d.passes) > 0 {
		// A chunk of --split-input-file renders its results as the text
		// reports of a spool would.
		textOnly := spool || idx >= 0 && d.spools()
		if err := d.runPasses(ctx, a, dumpDir, textOnly); err != nil {
			_ = a.close()
			return nil, err
		}
	}
	return a, nil
}

// runPasses runs the passes on a.m, their results into a.res (and their
// reports into a.spool when it is set), writing --timing lines and the
// modules --dump-dir asks for as they go. With textOnly, the results
// serve the text reports alone: the cost and layout passes keep only what
// their reports print (cost.Config.Summary, layoutassign.Options.Summary).
func (d *driver) runPasses(ctx context.Context, a *analysis, dumpDir string, textOnly bool) error {
	o := d.o
	prog := d.prog
	prog.restart()
	config := d.config
	if textOnly {
		config = maps.Clone(config)
		if c, ok := config[cost.ConfigKey].(cost.Config); ok {
			c.Summary = true
			config[cost.ConfigKey] = c
		}
		if l, ok := config[layoutassign.ConfigKey].(layoutassign.Options); ok {
			l.Summary = true
			config[layoutassign.ConfigKey] = l
		}
	}
	opts := passes.Options{
		Config: config,
		Jobs:   o.jobs, Logger: d.logger, NoVerify: !o.verify, Progress: prog.update,
		AfterPass: func(e passes.PassEvent) error {
			if o.timing {
				fmt.Fprintf(d.env.Stderr, "hlo-opt: timing: pass %s %s\n", e.Pass.Name, e.Elapsed.Round(time.Microsecond))
				if e.Verified > 0 {
					fmt.Fprintf(d.env.Stderr, "hlo-opt: timing: verify after %s %s\n", e.Pass.Name, e.Verified.Round(time.Microsecond))
				}
			}
			if dumpDir != "" {
				return d.dump(filepath.Join(dumpDir, fmt.Sprintf("%02d-%s.hlo", e.Seq, e.Pass.Name)), e.Module)
			}
			return nil
		},
	}
	if a.spool != nil {
		opts.Finished = func(p *passes.Pass, v any) error {
			t := time.Now()
			err := a.spool.Add(p, v)
			a.spooling += time.Since(t)
			return err
		}
	}
	pl, err := passes.NewPipeline(d.passes, opts)
	if err != nil {
		return err
	}
	a.res, err = pl.Run(ctx, a.m)
	prog.done()
	return err
}

// timedRender renders the output of the analysis a into w, with its time
// (the spooling of the reports included) and the whole's since start
// under --timing.
func (d *driver) timedRender(w io.Writer, a *analysis, start time.Time) error {
	rendering := time.Now()
	if err := d.render(w, a); err != nil {
		return err
	}
	if d.o.timing {
		fmt.Fprintf(d.env.Stderr, "hlo-opt: timing: output %s\n", (time.Since(rendering) + a.spooling).Round(time.Microsecond))
		fmt.Fprintf(d.env.Stderr, "hlo-opt: timing: total %s\n", time.Since(start).Round(time.Microsecond))
	}
	return nil
}

// render writes the output --format and --emit ask for: the module, the
// passes' reports or both.
func (d *driver) render(w io.Writer, a *analysis) error {
	o, m, res := d.o, a.m, a.res
	var err error
	switch o.format {
	case "dot":
		if err := d.renderDOT(w, m, res); err != nil {
			return err
		}
	case "html":
		if err := d.writePage(w, res); err != nil {
			return err
		}
	case "json":
		jo := render.JSONOptions{Indent: "  ", NoReports: o.emit == "module"}
		if o.emit != "report" {
			if jo.ModuleText, err = d.moduleText(m); err != nil {
				return err
			}
		}
		if err := render.WriteJSON(w, res, jo); err != nil {
			return err
		}
	default:
		if o.emit != "report" {
			if m.Truncated != nil {
				// The truncation note (ModuleNotes puts it first).
				if _, err := io.WriteString(w, "// "+passes.ModuleNotes(m)[0]+"\n"); err != nil {
					return err
				}
			}
			if b, ok := w.(*blocks); ok && o.jobs == 1 { // a held output takes the text as a block, uncopied
				b.adopt(m.AppendText(nil, d.printOpts()))
			} else if err := m.Print(w, d.printOpts()); err != nil {
				return err
			}
		}
		if o.emit == "both" {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if o.emit != "module" {
			if a.spool != nil {
				err = a.spool.WriteText(w, res)
			} else {
				err = render.WriteText(w, res)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *driver) dump(path string, m *hlo.Module) error {
	text, err := d.moduleText(m)
	if err != nil {
		return err
	}
	return writeFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

func newLogger(w io.Writer, level zapcore.Level, format string) *zap.Logger {
	cfg := zap.NewProductionEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder
	if format == "json" {
		enc = zapcore.NewJSONEncoder(cfg)
	} else {
		cfg.EncodeLevel = zapcore.CapitalLevelEncoder
		enc = zapcore.NewConsoleEncoder(cfg)
	}
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), level)).Named("hlo-opt")
}

// writePage renders the Memory Viewer page of res (see pageInput).
func (d *driver) writePage(w io.Writer, res *passes.Results) error {
	return memview.Write(w, pageInput(d.filename, res))
}
