//go:build !amd64

package linear

// useAVX does nothing off amd64: only the portable kernels exist.
func useAVX(bool) {}

// useAVX512 does nothing off amd64, and reports that only one kernel runs.
func useAVX512(bool) bool { return false }
