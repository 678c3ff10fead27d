package main

import (
	"flag"
	"io"
	"os"
)

// parseInterspersed parses args with fs, allowing flags after positional
// arguments ("hlo-opt mod.hlo -o out.hlo"), as users of XLA's hlo-opt
// expect; the flag package alone stops at the first positional argument.
// A "--" ends flag parsing; everything after it is positional. It returns
// the positional arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" terminator if it saw one: then every
		// remaining argument is positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// helpOutput is where a flag set's usage goes: stdout when args ask for it
// (-h, -help or --help before any "--"), as a user piping it to less
// expects, and stderr after a usage error.
func helpOutput(env *Env, args []string) io.Writer {
	for _, a := range args {
		switch a {
		case "--":
			return env.Stderr
		case "-h", "-help", "--help", "--h":
			return env.Stdout
		}
	}
	return env.Stderr
}

// isTerminal tells whether f is an *os.File on a character device (a
// terminal); any other reader or writer is not one.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
