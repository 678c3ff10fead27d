package hlogen_test

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

// A module of about 4 kB: fused computations called in a chain.
func ExampleModule() {
	text := string(hlogen.Module(4 << 10))
	fmt.Println(strings.SplitN(text, ",", 2)[0])
	fmt.Println(strings.Count(text, "%fused_computation.") > 1)
	// Output:
	// HloModule jit_train_step
	// true
}
