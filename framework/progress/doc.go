// Package progress shows the progress of long work — feature extraction,
// training epochs and iterations, tagging a big file — on a terminal: one
// status line, redrawn in place at most ten times a second, with the count,
// the rate and, when the total is known, the time left.
//
// A nil *Meter and a nil *Task do nothing, so library code reports progress
// unconditionally and only the command decides, from whether stderr is a
// terminal, to show it. Logs keep going to the same terminal through
// Meter.Writer, which lifts the status line before each log line and puts
// it back after, and stay structured (one JSON object per line) when
// stderr is not a terminal, where no Meter is made.
package progress
