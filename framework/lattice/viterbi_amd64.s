//go:build amd64

#include "textflag.h"

DATA vsconst<>+0(SB)/8, $0xFFF0000000000000 // -Inf
DATA vsconst<>+8(SB)/8, $1
GLOBL vsconst<>(SB), RODATA, $16

// lanemask<>+2k is a mask of the low k of 8 lanes.
DATA lanemask<>+0(SB)/2, $0x00
DATA lanemask<>+2(SB)/2, $0x01
DATA lanemask<>+4(SB)/2, $0x03
DATA lanemask<>+6(SB)/2, $0x07
DATA lanemask<>+8(SB)/2, $0x0F
DATA lanemask<>+10(SB)/2, $0x1F
DATA lanemask<>+12(SB)/2, $0x3F
DATA lanemask<>+14(SB)/2, $0x7F
DATA lanemask<>+16(SB)/2, $0xFF
GLOBL lanemask<>(SB), RODATA, $18

// func viterbiStepAVX512(cur []float64, bp []int32, prev, trans, st []float64)
// One Viterbi position for every label y < L = len(cur), eight labels at a
// time: cur[y] = max over p of (prev[p]+trans[p*L+y]) + st[y], bp[y] = the
// lowest p reaching the max (0, and -Inf, when no sum beats -Inf). p runs
// upward and a lane takes a sum only when it is strictly greater, so each
// label sees the comparisons of the scalar scan in the scalar scan's order
// and gets its bits. The last, partial block of labels is masked: nothing
// is read or written past L.
// DI cur, R9 bp, SI prev, DX trans, R10 st, CX L, R11 L*8 (a row of
// trans), BX first label of the block, R8 p, R13 &trans[p*L+BX],
// K1 the block's lanes, K2 the lanes a sum beats,
// Z0 bests, Z1 args, Z2 p in every lane, Z3 1 in every lane.
TEXT ·viterbiStepAVX512(SB), NOSPLIT, $0-120
	MOVQ         cur_base+0(FP), DI
	MOVQ         cur_len+8(FP), CX
	MOVQ         bp_base+24(FP), R9
	MOVQ         prev_base+48(FP), SI
	MOVQ         trans_base+72(FP), DX
	MOVQ         st_base+96(FP), R10
	MOVQ         CX, R11
	SHLQ         $3, R11
	VPBROADCASTQ vsconst<>+8(SB), Z3
	LEAQ         lanemask<>(SB), R12
	XORQ         BX, BX

block:
	CMPQ      BX, CX
	JGE       done
	MOVQ      CX, AX
	SUBQ      BX, AX
	CMPQ      AX, $8
	JLE       masked
	MOVQ      $8, AX

masked:
	KMOVW        (R12)(AX*2), K1
	VBROADCASTSD vsconst<>+0(SB), Z0
	VPXORQ       Z1, Z1, Z1
	VPXORQ       Z2, Z2, Z2
	LEAQ         (DX)(BX*8), R13
	XORQ         R8, R8

pred:
	CMPQ         R8, CX
	JGE          store
	VBROADCASTSD (SI)(R8*8), Z4
	VMOVUPD.Z    (R13), K1, Z5
	VADDPD       Z5, Z4, Z4
	VCMPPD       $0x1E, Z0, Z4, K2 // sum > best (false for NaN)
	VMOVAPD      Z4, K2, Z0
	VMOVDQA64    Z2, K2, Z1
	VPADDQ       Z3, Z2, Z2
	ADDQ         R11, R13
	INCQ         R8
	JMP          pred

store:
	VMOVUPD.Z (R10)(BX*8), K1, Z4
	VADDPD    Z4, Z0, Z0
	VMOVUPD   Z0, K1, (DI)(BX*8)
	VPMOVQD   Z1, K1, (R9)(BX*4)
	ADDQ      $8, BX
	JMP       block

done:
	VZEROUPPER
	RET
