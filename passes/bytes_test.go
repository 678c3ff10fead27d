package passes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFormatBytes checks XLA's byte notation, with figures XLA printed
// for these byte counts (testdata/groundtruth/*/h100-measured/*/
// memory-usage-report.txt: 3932172 bytes is "3.75MiB", 524288 "512.0KiB")
// and its documented example (12345678 is "11.77MiB").
func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0B", 4: "4B", 1023: "1023B", 1024: "1.0KiB", 1536: "1.5KiB", 39629: "38.7KiB",
		524288: "512.0KiB", 1<<20 - 1: "1024.0KiB", 1 << 20: "1.00MiB", 3932172: "3.75MiB",
		12345678: "11.77MiB", 1095216660: "1.02GiB", 16 << 30: "16.00GiB", -2048: "-2.0KiB",
		// Whole divisions, then printf's rounding: 2 GiB - 1 is 2047 MiB.
		2<<30 - 1: "2.00GiB",
	} {
		assert.Equal(t, want, FormatBytes(n), "%d", n)
	}
}
