package passes

import (
	"fmt"
	"math"
)

// FormatBytes prints a byte count as XLA does in every report
// (tsl::strings::HumanReadableNumBytes): "512B", "38.7KiB", "1.02GiB".
// Below 1 KiB the bytes; else the count is divided by 1024 (whole
// divisions) until it is below 1 MiB of the unit, and printed in the next
// unit with one decimal for KiB and two for the others.
func FormatBytes(n int64) string {
	if n == math.MinInt64 {
		return "-8E"
	}
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	if n < 1024 {
		return fmt.Sprintf("%s%dB", sign, n)
	}
	const units = "KMGTPE"
	u := 0
	for n >= 1024*1024 {
		n /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%s%.1fKiB", sign, float64(n)/1024)
	}
	return fmt.Sprintf("%s%.2f%ciB", sign, float64(n)/1024, units[u])
}
