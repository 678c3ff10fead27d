package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
	"golang.org/x/sync/errgroup"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memdiff"
	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

func init() {
	register("diff", subcommand{
		Synopsis: "diff [--device=D] [--format=text|json|html] [-o FILE] [--fail-over=PCT] A B  (two modules or two dump directories)",
		Run:      runDiff,
	})
}

// runDiff compares two compiles of a program, two module files or the
// modules of two dump directories paired by program: what changed in
// memory and in the cost estimate, as text, JSON or HTML. With
// --fail-over=PCT it exits 1 when a pair's peak or time grows by more than
// PCT percent, for a model's CI.
func runDiff(ctx context.Context, env *Env, args []string) int {
	var o options
	fs := flag.NewFlagSet("hlo-opt diff", flag.ContinueOnError)
	fs.SetOutput(helpOutput(env, args))
	fs.StringVar(&o.device, "device", "", "the device both are modelled on (as hlo-opt --device)")
	fs.StringVar(&o.target, "target", "", "target of the layout pass (as hlo-opt --target)")
	fs.StringVar(&o.format, "format", "text", "output `format`: text, json or html")
	fs.StringVar(&o.output, "o", "-", "write output to `file` (- is stdout)")
	fs.IntVar(&o.jobs, "jobs", 0, "modules analysed at once (default GOMAXPROCS)")
	fs.BoolVar(&o.allowTrunc, "allow-truncated", false, "accept texts that end inside a computation")
	failOver := fs.Float64("fail-over", -1, "exit 1 when the peak or the estimated time of B exceeds A's by more than `PCT` percent")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: hlo-opt %s\n\nCompares two compiles of a program (two modules, or the modules of two dump\ndirectories paired by program name): XLA's peak and the HBM peak, each\nallocation class, the buffers that grew or appeared, the estimated time and\nthe kernels added, removed or slower (--passes=layout,cost on both).\n\nFlags:\n", subcommands["diff"].Synopsis)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "hlo-opt diff: "+format+"\n", a...)
		return 2
	}
	switch {
	case len(pos) != 2:
		return usage("want two inputs A and B, got %d", len(pos))
	case o.format != "text" && o.format != "json" && o.format != "html":
		return usage("--format=%s: want text, json or html", o.format)
	case isDir(pos[0]) != isDir(pos[1]):
		return usage("%s and %s: want two module files or two dump directories", pos[0], pos[1])
	}
	o.verify, o.logLevel, o.logFormat, o.print = true, zapcore.WarnLevel, "console", "full"
	ps := []*passes.Pass{layoutassign.Pass, cost.CostPass}
	cfg, err := newPassConfig(&o, ps)
	if err != nil {
		return usage("%v", err)
	}
	rep, err := diffInputs(ctx, env, &o, ps, cfg, pos[0], pos[1])
	if err != nil {
		printError(env.Stderr, err)
		return 1
	}
	err = writeStreamed(env, o.output, false, func(w io.Writer) error {
		switch o.format {
		case "json":
			return rep.WriteJSON(w)
		case "html":
			return rep.WriteHTML(w)
		}
		return rep.WriteText(w)
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "hlo-opt diff: %v\n", err)
		return 1
	}
	if *failOver >= 0 && rep.Over(*failOver) {
		fmt.Fprintf(env.Stderr, "hlo-opt diff: the peak or the estimated time grew by more than %g%%\n", *failOver)
		return 1
	}
	return 0
}

// diffInput is one module to analyse: its name in the report, its file
// and its dump entry (Path only for a lone file).
type diffInput struct {
	name string
	mod  xladump.Module
}

// diffInputs analyses both sides and pairs their modules.
func diffInputs(ctx context.Context, env *Env, o *options, ps []*passes.Pass, cfg passConfig, a, b string) (*memdiff.Report, error) {
	rep := &memdiff.Report{A: a, B: b}
	var as, bs []diffInput
	if isDir(a) {
		var err error
		if as, err = dumpInputs(a); err != nil {
			return nil, err
		}
		if bs, err = dumpInputs(b); err != nil {
			return nil, err
		}
	} else {
		as = []diffInput{{filepath.Base(a), xladump.Module{Name: filepath.Base(a), Path: a}}}
		bs = []diffInput{{filepath.Base(b), xladump.Module{Name: filepath.Base(b), Path: b}}}
	}
	all := append(append([]diffInput{}, as...), bs...)
	sides := make([]memdiff.Side, len(all))
	jobs := o.jobCount()
	one := *o
	one.jobs = 1
	logger := newLogger(env.Stderr, o.logLevel, o.logFormat)
	defer func() { _ = logger.Sync() }()
	var g errgroup.Group
	g.SetLimit(jobs)
	for i, in := range all {
		g.Go(func() error {
			d := &driver{o: &one, env: env, passes: ps, logger: logger, filename: in.mod.Path, prog: newProgress(env.Stderr, false),
				config: cfg.forDumped(o, in.mod).config()}
			s, err := d.side(ctx, in)
			sides[i] = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sa, sb := sides[:len(as)], sides[len(as):]
	pairs, onlyA, onlyB := pairByProgram(as, bs)
	for _, p := range pairs {
		rep.Pairs = append(rep.Pairs, memdiff.Compare(sa[p[0]], sb[p[1]]))
	}
	for _, i := range onlyA {
		rep.OnlyA = append(rep.OnlyA, as[i].name)
	}
	for _, i := range onlyB {
		rep.OnlyB = append(rep.OnlyB, bs[i].name)
	}
	return rep, nil
}

// side reads and analyses one module.
func (d *driver) side(ctx context.Context, in diffInput) (memdiff.Side, error) {
	src, err := os.ReadFile(in.mod.Path)
	if err != nil {
		return memdiff.Side{}, err
	}
	a, err := d.analyse(ctx, -1, chunk{src: src}, time.Now(), false)
	if err != nil {
		return memdiff.Side{}, err
	}
	pi := pageInput(in.mod.Path, a.res)
	s := memdiff.Side{Name: in.name, Memory: pi.Memory}
	if pi.Cost != nil {
		s.Estimate = pi.Cost.Estimate()
	}
	return s, nil
}

// dumpInputs lists the after-optimizations modules of a dump directory.
func dumpInputs(dir string) ([]diffInput, error) {
	mods, err := xladump.Find(dir)
	if err != nil {
		return nil, err
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("%s: no after-optimizations module (*after_optimizations.txt)", dir)
	}
	out := make([]diffInput, len(mods))
	for i, m := range mods {
		out[i] = diffInput{m.Name, m}
	}
	return out, nil
}

var moduleNumber = regexp.MustCompile(`^module_\d+\.`)

// program is the program a dump's module is of: its name without XLA's
// module number and what follows the program's name
// ("module_0042.jit_train_step.cl_1014260217" -> "jit_train_step").
func program(name string) string {
	p := moduleNumber.ReplaceAllString(name, "")
	if i := strings.IndexByte(p, '.'); i > 0 {
		p = p[:i]
	}
	return p
}

// pairByProgram pairs the modules of two sides: lone files with each
// other; a dump's modules by program, in order within a program (the k-th
// compile of jit_f in A with the k-th in B). It returns the pairs and the
// modules of one side only.
func pairByProgram(as, bs []diffInput) (pairs [][2]int, onlyA, onlyB []int) {
	if len(as) == 1 && len(bs) == 1 {
		return [][2]int{{0, 0}}, nil, nil
	}
	used := make([]bool, len(bs))
	for i, a := range as {
		found := false
		for j, b := range bs {
			if !used[j] && program(a.name) == program(b.name) {
				used[j], found = true, true
				pairs = append(pairs, [2]int{i, j})
				break
			}
		}
		if !found {
			onlyA = append(onlyA, i)
		}
	}
	for j := range bs {
		if !used[j] {
			onlyB = append(onlyB, j)
		}
	}
	return pairs, onlyA, onlyB
}
