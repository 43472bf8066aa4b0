//go:build amd64

#include "textflag.h"

// The AVX forms of kernel.go's forwardGo, backwardGo and outerGo: the same
// products and sums in the same order, four columns per instruction, no
// FMA. Register roles are named at the top of each function.

// func forwardAVX(dst, prev, t []float64, lp int)
// DI dst, SI prev, CX len(prev), DX t, R8 lp, R9 row stride in bytes,
// BX first column of the group, R10 &t[p][col], R11 p, Y14 zero.
TEXT ·forwardAVX(SB), NOSPLIT, $0-80
	MOVQ   dst_base+0(FP), DI
	MOVQ   prev_base+24(FP), SI
	MOVQ   prev_len+32(FP), CX
	MOVQ   t_base+48(FP), DX
	MOVQ   lp+72(FP), R8
	MOVQ   R8, R9
	SHLQ   $3, R9
	VXORPD Y14, Y14, Y14
	XORQ   BX, BX

fwd16:
	// Sixteen columns at a time: four independent running sums.
	MOVQ   R8, AX
	SUBQ   BX, AX
	CMPQ   AX, $16
	JLT    fwd4
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	LEAQ   (DX)(BX*8), R10
	XORQ   R11, R11

fwd16p:
	CMPQ         R11, CX
	JGE          fwd16store
	VMOVSD       (SI)(R11*8), X4
	VUCOMISD     X14, X4
	JNE          fwd16mul
	JPS          fwd16mul
	JMP          fwd16next

fwd16mul:
	VBROADCASTSD (SI)(R11*8), Y4
	VMULPD       (R10), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       32(R10), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       64(R10), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       96(R10), Y4, Y8
	VADDPD       Y8, Y3, Y3

fwd16next:
	ADDQ R9, R10
	INCQ R11
	JMP  fwd16p

fwd16store:
	VMOVUPD Y0, (DI)(BX*8)
	VMOVUPD Y1, 32(DI)(BX*8)
	VMOVUPD Y2, 64(DI)(BX*8)
	VMOVUPD Y3, 96(DI)(BX*8)
	ADDQ    $16, BX
	JMP     fwd16

fwd4:
	CMPQ   BX, R8
	JGE    fwddone
	VXORPD Y0, Y0, Y0
	LEAQ   (DX)(BX*8), R10
	XORQ   R11, R11

fwd4p:
	CMPQ     R11, CX
	JGE      fwd4store
	VMOVSD   (SI)(R11*8), X4
	VUCOMISD X14, X4
	JNE      fwd4mul
	JPS      fwd4mul
	JMP      fwd4next

fwd4mul:
	VBROADCASTSD (SI)(R11*8), Y4
	VMULPD       (R10), Y4, Y5
	VADDPD       Y5, Y0, Y0

fwd4next:
	ADDQ R9, R10
	INCQ R11
	JMP  fwd4p

fwd4store:
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ    $4, BX
	JMP     fwd4

fwddone:
	VZEROUPPER
	RET

// func backwardAVX(dst, t, x []float64, lp int, inv float64)
// DI dst, CX len(dst), DX &t[p][0], SI x, R8 len(x), R12 len(x) rounded
// down to a multiple of 4, R9 row stride in bytes, R11 p, AX column,
// X13 inv. Y0 holds gonum DotUnitary's four partial sums (s0, s1, s2, s3).
TEXT ·backwardAVX(SB), NOSPLIT, $0-88
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), CX
	MOVQ   t_base+24(FP), DX
	MOVQ   x_base+48(FP), SI
	MOVQ   x_len+56(FP), R8
	MOVQ   lp+72(FP), R9
	SHLQ   $3, R9
	VMOVSD inv+80(FP), X13
	MOVQ   R8, R12
	ANDQ   $-4, R12
	XORQ   R11, R11

bwdrow:
	CMPQ   R11, CX
	JGE    bwddone
	VXORPD Y0, Y0, Y0
	XORQ   AX, AX

bwdblock:
	CMPQ    AX, R12
	JGE     bwdsplit
	VMOVUPD (DX)(AX*8), Y1
	VMULPD  (SI)(AX*8), Y1, Y1
	VADDPD  Y1, Y0, Y0
	ADDQ    $4, AX
	JMP     bwdblock

bwdsplit:
	// (s2, s3) aside before scalar ops clear the upper half of Y0.
	VEXTRACTF128 $1, Y0, X2

bwdtail:
	// The last len%4 products go into s0, one by one.
	CMPQ   AX, R8
	JGE    bwdsum
	VMOVSD (DX)(AX*8), X3
	VMULSD (SI)(AX*8), X3, X3
	VADDSD X3, X0, X0
	INCQ   AX
	JMP    bwdtail

bwdsum:
	VADDPD    X2, X0, X0 // (s0+s2, s1+s3)
	VUNPCKHPD X0, X0, X1 // (s1+s3, s1+s3)
	VADDSD    X1, X0, X0
	VMULSD    X13, X0, X0
	VMOVSD    X0, (DI)(R11*8)
	ADDQ      R9, DX
	INCQ      R11
	JMP       bwdrow

bwddone:
	VZEROUPPER
	RET

// func outerAVX(acc, a, q []float64, lp int)
// DI &acc[p][0], SI a, CX len(a), DX q, R8 lp, R9 row stride in bytes,
// R11 p, AX column, Y4 a[p] in every lane, Y14 zero.
TEXT ·outerAVX(SB), NOSPLIT, $0-80
	MOVQ   acc_base+0(FP), DI
	MOVQ   a_base+24(FP), SI
	MOVQ   a_len+32(FP), CX
	MOVQ   q_base+48(FP), DX
	MOVQ   lp+72(FP), R8
	MOVQ   R8, R9
	SHLQ   $3, R9
	VXORPD Y14, Y14, Y14
	XORQ   R11, R11

outrow:
	CMPQ     R11, CX
	JGE      outdone
	VMOVSD   (SI)(R11*8), X4
	VUCOMISD X14, X4
	JNE      outmul
	JPS      outmul
	JMP      outnext

outmul:
	VBROADCASTSD (SI)(R11*8), Y4
	XORQ         AX, AX

outcol:
	CMPQ    AX, R8
	JGE     outnext
	VMULPD  (DX)(AX*8), Y4, Y5
	VADDPD  (DI)(AX*8), Y5, Y5
	VMOVUPD Y5, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     outcol

outnext:
	ADDQ R9, DI
	INCQ R11
	JMP  outrow

outdone:
	VZEROUPPER
	RET
