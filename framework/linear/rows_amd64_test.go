package linear

import "golang.org/x/sys/cpu"

// useAVX switches the row kernels to AVX (when the processor has it) or
// to the portable loops, for tests that compare the two.
func useAVX(on bool) { hasAVX = on && cpu.X86.HasAVX }
