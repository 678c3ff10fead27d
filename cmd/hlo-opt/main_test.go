package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// hloOpt runs the command in-process and returns stdout, stderr and the
// exit code.
func hloOpt(t testing.TB, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

// txtar is the small subset of golang.org/x/tools/txtar that goldens use:
// sections introduced by "-- NAME --" lines.
type txtar struct {
	names    []string
	sections map[string]string
}

func parseTxtar(data string) *txtar {
	a := &txtar{sections: map[string]string{}}
	cur := ""
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			cur = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			a.names = append(a.names, cur)
			a.sections[cur] = ""
			continue
		}
		if cur != "" {
			a.sections[cur] += line
		}
	}
	return a
}

func (a *txtar) format() string {
	var b strings.Builder
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		s := a.sections[n]
		b.WriteString(s)
		if s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
