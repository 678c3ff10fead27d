package main

import "flag"

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
