package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string
		pos  []string
	}{
		{[]string{"a.hlo"}, "-", []string{"a.hlo"}},
		{[]string{"a.hlo", "-o", "x"}, "x", []string{"a.hlo"}},
		{[]string{"-o", "x", "a.hlo"}, "x", []string{"a.hlo"}},
		{[]string{"a.hlo", "-o", "x", "b"}, "x", []string{"a.hlo", "b"}},
		{[]string{"-", "-o=y"}, "y", []string{"-"}},
		{[]string{"--", "-o", "z"}, "-", []string{"-o", "z"}},
		{[]string{"a", "--", "-o"}, "-", []string{"a", "-o"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		out := fs.String("o", "-", "")
		pos, err := parseInterspersed(fs, tc.args)
		require.NoError(t, err, tc.args)
		assert.Equal(t, tc.pos, pos, tc.args)
		assert.Equal(t, tc.out, *out, tc.args)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, err := parseInterspersed(fs, []string{"a.hlo", "--nope"})
	assert.Error(t, err)
}
