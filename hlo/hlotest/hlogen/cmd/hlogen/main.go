// Command hlogen writes a synthetic module of one of hlogen's shapes to
// standard output, for timing hlo-opt on it as a fresh process:
//
//	go run ./hlo/hlotest/hlogen/cmd/hlogen -shape unrolled -scale 16 > /tmp/unrolled.hlo
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

func main() {
	shape := flag.String("shape", "unrolled", "module shape: unrolled, computations, nested-whiles or wide-tuples")
	scale := flag.Int("scale", 1, "scale of the shape (the benchmarks run 1, 4 and 16)")
	flag.Parse()
	for _, s := range hlogen.Shapes {
		if s.Name == *shape {
			if _, err := os.Stdout.Write(s.Gen(*scale)); err != nil {
				fmt.Fprintln(os.Stderr, "hlogen:", err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "hlogen: unknown shape %q\n", *shape)
	os.Exit(2)
}
