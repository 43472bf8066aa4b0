//go:build !amd64

package linear

// useAVX does nothing off amd64: only the portable kernels exist.
func useAVX(bool) {}
