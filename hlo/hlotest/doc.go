// Package hlotest provides utilities for tests and benchmarks of hlo-opt
// packages, as net/http/httptest does for HTTP code.
//
// Corpus: the shared corpus of real HLO modules lives at ../shared/corpus
// next to the repository root (the directory holding go.mod). RepoRoot and
// FindCorpus locate them from a test's working directory; CorpusDir,
// CorpusFiles and CorpusModules skip the test with "corpus ../shared/corpus
// not found" when the corpus is absent. LargestCorpusFile and
// LargestCorpusFileWithFusions pick the modules benchmarks measure, and
// ReadModule and ParseModules read and parse a file, failing the test on
// error.
//
// Golden files: Update is the shared -update flag, so that
// "go test ./... -update" works in every package.
//
// IR: Builder makes modules in Go for tests that need IR the HLO text cannot
// express (cycles, operands from another computation, users before their
// operands, unresolved callees); LoopsModule and CallsModule are ready-made
// modules for call-graph and pipeline tests.
//
// The package imports no project package but hlo, so that the tests of
// every other package can use it; hlo's own tests can use it only from the
// external test package hlo_test.
package hlotest
