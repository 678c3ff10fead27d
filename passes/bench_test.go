package passes_test

import (
	"context"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// BenchmarkPipeline runs verify and stats over the largest multi-computation
// corpus module with 1 and 2 jobs; compare the ns/op of the two.
func BenchmarkPipeline(b *testing.B) {
	hlotest.BenchJobs(b, func(jobs int) (func(*hlo.Module) error, error) {
		pl, err := passes.NewPipeline([]*passes.Pass{passes.Verify, passes.Stats}, passes.Options{Jobs: jobs})
		return func(m *hlo.Module) error {
			_, err := pl.Run(context.Background(), m)
			return err
		}, err
	})
}
