// Package rundir owns a run directory as a whole: where a run writes
// while it works, when its results replace the previous run's, and what it
// refuses to touch.
//
// A run never writes into its directory DIR directly. Open makes a partial
// folder beside it (.NAME.trellis-partial, locked for the run's lifetime so
// a second run into DIR refuses rather than interleaving), the run writes
// there, and Commit replaces DIR's previous run with it in one rename
// (an atomic exchange where the system has one). DIR therefore always
// holds exactly one complete run, never a mix of two.
//
// Every committed run carries a marker, DIR/.trellis-run, listing the
// files and folders the run wrote. DIR may be replaced only when all it
// holds is listed there (or when it is empty); anything else is the
// user's, and Open and Commit refuse with a ForeignError unless Force sets
// the folder aside (renamed beside DIR, never deleted).
//
// An interrupted run with something to resume from (training checkpoints)
// keeps its partial folder; Open with Resume continues in it. A fresh run
// into DIR discards it, being the only one that may: its marker proves
// trellis wrote it.
//
// The package also owns what a run directory holds: the typed Manifest,
// Metrics and Comparison (manifest.json, metrics.json, comparisons.json),
// the per-token evaluation files and the paths of models and predictions.
// `run` writes them and `report`, `compare` and `reproduce` read them back
// with the same types.
package rundir
