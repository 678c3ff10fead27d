package hlotest

import "flag"

// Update is the -update flag of every hlo-opt test binary: with it, golden
// tests rewrite their expected files instead of comparing. It lives here,
// registered once in each test binary that imports hlotest, so that
// "go test ./... -update" (make golden) is accepted by every package, those
// without golden files included.
var Update = flag.Bool("update", false, "update golden files")
