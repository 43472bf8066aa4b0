// Package model is the self-contained model file: the linear model's
// weights together with everything needed to use them on new text (label
// set and scheme, corpus format, feature templates, attribute vocabulary)
// and the provenance of how it was made.
//
// The file is a small binary container: a magic string and format
// version, a JSON header, length-prefixed arrays, and a SHA-256 trailer
// over everything before it. Reading verifies the trailer before decoding
// anything, and every length is checked against the bytes that remain, so
// a truncated or corrupted file is a clear error, never a panic or a giant
// allocation. Writing goes to a temporary file that is renamed into place.
package model
