package xladump_test

import (
	"fmt"
	"os"

	"github.com/hlo-opt/hlo-opt/hlo/xladump"
)

// Example lists the optimized modules of a dump directory and reads the
// memory-usage report beside the first.
func Example() {
	ms, err := xladump.Find("../../testdata/dumps/tpu-v5e")
	if err != nil {
		panic(err)
	}
	for _, m := range ms {
		fmt.Println(m.Name)
	}
	text, err := os.ReadFile(ms[0].MemoryUsageReport)
	if err != nil {
		panic(err)
	}
	spaces, err := xladump.ParseMemoryUsageReport(string(text))
	if err != nil {
		panic(err)
	}
	for _, s := range spaces {
		fmt.Printf("%s (S(%d)): %d bytes\n", s.Name, s.Color, s.Bytes)
	}
	// Output:
	// module_0000.jit_transformer_fwd.cl_1014260217
	// module_0018.jit_transformer_fwd.cl_1014260217
	// default (S(0)): 1896448 bytes
	// vmem (S(1)): 1639424 bytes
	// smem (S(2)): 8 bytes
}
