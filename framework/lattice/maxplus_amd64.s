//go:build amd64

#include "textflag.h"

DATA mpconst<>+0(SB)/8, $0.0
DATA mpconst<>+8(SB)/8, $1.0
DATA mpconst<>+16(SB)/8, $2.0
DATA mpconst<>+24(SB)/8, $3.0
DATA mpconst<>+32(SB)/8, $4.0
DATA mpconst<>+40(SB)/8, $0xFFF0000000000000
GLOBL mpconst<>(SB), RODATA, $48

// func maxPlusAVX(prev, tr []float64) (best float64, arg int)
// The Viterbi step's scan for one label, four predecessors at a time:
// best = max over p of prev[p]+tr[p] (the sum computed as the scalar loop
// does), arg = the lowest p reaching it; -Inf and 0 when no sum beats
// -Inf. Each lane keeps its own best and lowest p with a strict >, and
// the lanes are merged preferring the higher score, then the lower p, so
// the result is the scalar loop's. len(tr) >= len(prev).
// SI prev, DX tr, CX len(prev), R8 len rounded down to 4, AX p,
// Y0 lane bests, Y1 lane args (as floats), Y2 the lanes' p, Y3 4.
TEXT ·maxPlusAVX(SB), NOSPLIT, $0-64
	MOVQ         prev_base+0(FP), SI
	MOVQ         prev_len+8(FP), CX
	MOVQ         tr_base+24(FP), DX
	MOVQ         CX, R8
	ANDQ         $-4, R8
	VBROADCASTSD mpconst<>+40(SB), Y0
	VXORPD       Y1, Y1, Y1
	VMOVUPD      mpconst<>+0(SB), Y2
	VBROADCASTSD mpconst<>+32(SB), Y3
	XORQ         AX, AX

block:
	CMPQ      AX, R8
	JGE       merge
	VMOVUPD   (SI)(AX*8), Y4
	VADDPD    (DX)(AX*8), Y4, Y4
	VCMPPD    $0x1E, Y0, Y4, Y5 // v > best (false for NaN)
	VBLENDVPD Y5, Y4, Y0, Y0
	VBLENDVPD Y5, Y2, Y1, Y1
	VADDPD    Y3, Y2, Y2
	ADDQ      $4, AX
	JMP       block

merge:
	// Lanes (0,1) against (2,3), then 0 against 1: take the other lane
	// when its best is greater, or equal with a lower p.
	VEXTRACTF128 $1, Y0, X4
	VEXTRACTF128 $1, Y1, X5
	VCMPPD       $0x1E, X0, X4, X6 // other > this
	VCMPPD       $0x00, X0, X4, X7 // other == this
	VCMPPD       $0x11, X1, X5, X8 // other p < this p
	VANDPD       X8, X7, X7
	VORPD        X7, X6, X6
	VBLENDVPD    X6, X4, X0, X0
	VBLENDVPD    X6, X5, X1, X1
	VUNPCKHPD    X0, X0, X4
	VUNPCKHPD    X1, X1, X5
	VCMPPD       $0x1E, X0, X4, X6
	VCMPPD       $0x00, X0, X4, X7
	VCMPPD       $0x11, X1, X5, X8
	VANDPD       X8, X7, X7
	VORPD        X7, X6, X6
	VBLENDVPD    X6, X4, X0, X0
	VBLENDVPD    X6, X5, X1, X1
	VCVTTSD2SIQ  X1, BX

tail:
	// The last len%4 predecessors, one by one, after all the others.
	CMPQ     AX, CX
	JGE      done
	VMOVSD   (SI)(AX*8), X4
	VADDSD   (DX)(AX*8), X4, X4
	VUCOMISD X0, X4
	JBE      next
	VMOVAPD  X4, X0
	MOVQ     AX, BX

next:
	INCQ AX
	JMP  tail

done:
	VMOVSD     X0, best+48(FP)
	MOVQ       BX, arg+56(FP)
	VZEROUPPER
	RET
