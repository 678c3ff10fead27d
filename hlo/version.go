package hlo

// XLAVersion names the XLA whose HLO text this package reads and prints:
// the text the pinned jax/jaxlib 0.12.0.1, libtpu 0.0.52 and
// jax-cuda13-plugin 0.12.0.1 dump (jaxlib built from jax git dc4af684),
// checked against the dumps in testdata/xla-today, with the constructs of
// XLA's HLO parser, lexer and printer surveyed at openxla/xla 02f6793e
// (hlo/SYNTAX.md). Older XLA text keeps parsing. Text from a newer XLA may
// use a construct this version does not know: the parser then names it in
// a positioned error that mentions this version.
const XLAVersion = "jaxlib 0.12.0.1 / libtpu 0.0.52 / jax-cuda13-plugin 0.12.0.1"

// XLASurveyCommit is the openxla/xla commit whose HLO parser, lexer and
// printer hlo/SYNTAX.md surveys. The XLA inside jaxlib 0.12.0.1 is newer
// (it prints "%t#k" and order=, which that commit does not know); its
// additions were found in its dumps and by parsing with it.
const XLASurveyCommit = "02f6793e8730963492d3ef0ba6ea7fe28a97e69b"

// newerXLA is the note errors about unknown opcodes and attributes carry.
const newerXLA = " (not in XLA's HLO text as of jaxlib 0.12.0.1: hlo-opt --version)"
