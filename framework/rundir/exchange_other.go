//go:build !linux

package rundir

import "errors"

// exchange is not available: the caller falls back to two renames.
func exchange(a, b string) error { return errors.New("no atomic exchange on this system") }
