package hlo

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

// TestJobs checks that ParseOptions.Jobs and PrintOptions.Jobs change
// nothing but how many goroutines work: a text large enough to be parsed
// and printed in parallel gives the same module text for 1, 2 and the
// default number of jobs, and AppendText appends what Print writes.
func TestJobs(t *testing.T) {
	src := hlogen.Module(parallelThreshold * 8)
	var want []byte
	for _, jobs := range []int{1, 2, 0} {
		m, err := ParseOptions{Jobs: jobs}.ParseFile("gen.hlo", src)
		require.NoError(t, err, "jobs %d", jobs)
		require.Greater(t, len(printBatches(m)), 1, "printed in several batches")
		var b bytes.Buffer
		require.NoError(t, m.Print(&b, PrintOptions{Jobs: jobs}))
		assert.True(t, bytes.Equal(b.Bytes(), m.AppendText(nil, PrintOptions{Jobs: jobs})), "jobs %d: AppendText differs from Print", jobs)
		if want == nil {
			want = b.Bytes()
			continue
		}
		assert.True(t, bytes.Equal(want, b.Bytes()), "jobs %d prints other bytes", jobs)
	}
}
