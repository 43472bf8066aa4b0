// Package fileio writes files whole or not at all, and checksums them.
//
// Everything trellis writes that a user keeps — models, the files of a run
// directory, checkpoints — goes through Create (or WriteFile, built on it):
// the bytes go to a temporary file beside the destination, which is synced
// and renamed into place only on Commit, so a crash or an error never
// leaves half a file under the real name. SHA256File is the one file hasher
// (data provenance, plugin pins).
package fileio
