// Package memview renders hlo-opt's offline Memory Viewer: one
// self-contained HTML page (no network, scripts, styles or fonts from
// elsewhere; SVG drawn in Go; a little plain JavaScript for sorting and
// hover) with what XProf's Memory Viewer shows for a profiled program,
// computed from the module before anything runs: the memory each space
// holds against program order with the peak and the device's capacity,
// the allocations live at the peak, the arrays whose padding costs most,
// the fusions' cost estimates when the cost passes ran, and whether the
// program fits.
//
// It sits above the analyses (it reads layoutassign's memory report and
// cost's estimates), under the command that writes it, so that nothing
// under passes/ imports an analysis.
package memview
