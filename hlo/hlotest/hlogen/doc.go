// Package hlogen writes synthetic HLO module texts of any size, for the
// benchmarks and scale tests of every package (hlo's own included: it
// imports nothing of this module, so hlo's internal tests may use it).
package hlogen
