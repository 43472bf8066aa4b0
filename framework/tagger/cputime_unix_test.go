//go:build unix

package tagger_test

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user plus system CPU time, which the
// benchmark reports beside wall time: on a shared, busy machine it is the
// steadier figure.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
