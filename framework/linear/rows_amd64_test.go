package linear

import "golang.org/x/sys/cpu"

// useAVX switches the row kernels to AVX (when the processor has it) or
// to the portable loops, for tests that compare the two.
func useAVX(on bool) { hasAVX, hasAVX512 = on && cpu.X86.HasAVX, on && cpu.X86.HasAVX512F }

// useAVX512 switches addRows between AVX-512 (when the processor has it)
// and AVX, and reports whether both run here.
func useAVX512(on bool) bool {
	hasAVX512 = on && cpu.X86.HasAVX512F
	return cpu.X86.HasAVX512F && hasAVX
}
