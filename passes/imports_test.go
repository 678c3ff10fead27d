package passes_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportsPointDown checks that the framework (everything under
// passes/, tests aside) imports no analysis and nothing of the command:
// the arrows of the code point one way, hlo <- graph <- passes <-
// {layoutassign, indexing, cost} <- cmd/hlo-opt.
func TestImportsPointDown(t *testing.T) {
	above := []string{"layoutassign", "indexing", "cost", "cmd"}
	const module = "github.com/hlo-opt/hlo-opt/"
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		files++
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			require.NoError(t, err)
			for _, a := range above {
				assert.False(t, p == module+a || strings.HasPrefix(p, module+a+"/"), "passes/%s imports %s", path, p)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 5, "the walk found the framework's files")
}
