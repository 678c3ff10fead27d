package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the CPU profile that --cpuprofile asks for and
// returns the function that ends the profiling at exit: it stops the CPU
// profile and writes the heap profile that --memprofile asks for (after a
// collection, as `go test -memprofile` does: its alloc_space and
// alloc_objects samples are the whole run's allocations, its inuse ones
// what was live at exit). Either file is created before the run, so that
// a path that cannot be written fails at once.
func startProfiles(o *options) (stop func() error, err error) {
	var cpu, mem *os.File
	if o.cpuprofile != "" {
		if cpu, err = os.Create(o.cpuprofile); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			return nil, errors.Join(fmt.Errorf("--cpuprofile: %w", err), cpu.Close())
		}
	}
	if o.memprofile != "" {
		if mem, err = os.Create(o.memprofile); err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
				err = errors.Join(err, cpu.Close())
			}
			return nil, err
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if mem != nil {
			runtime.GC()
			errs = append(errs, pprof.WriteHeapProfile(mem), mem.Close())
		}
		return errors.Join(errs...)
	}, nil
}
