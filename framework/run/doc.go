// Package run carries out an experiment spec: read and encode the corpora
// once, train every learner on the shared encoding, tag the test corpus
// with each saved model through the same tagger users run, evaluate, and
// write the run directory (manifest, metrics, models, predictions, report).
package run
