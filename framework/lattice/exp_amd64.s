//go:build amd64

#include "textflag.h"

// expBlocksAVX is math.Exp (its amd64 assembly, archExp, on the path it
// takes when the processor has FMA) four lanes at a time: the same
// operations on each lane, so the same bits. Lanes that archExp would
// send off its main path — not finite, overflowing, or a result below
// the normal range — stop the function before that block is stored; the
// caller finishes it with math.Exp.
//
// The constants and the sequence of operations follow Go's own
// src/math/exp_amd64.s (Copyright The Go Authors, BSD-style licence, the
// licence of the Go distribution this module builds with), widened to
// four lanes.

DATA expc<>+0(SB)/8, $0.5
DATA expc<>+8(SB)/8, $0.5
DATA expc<>+16(SB)/8, $0.5
DATA expc<>+24(SB)/8, $0.5
DATA expc<>+32(SB)/8, $1.0
DATA expc<>+40(SB)/8, $1.0
DATA expc<>+48(SB)/8, $1.0
DATA expc<>+56(SB)/8, $1.0
DATA expc<>+64(SB)/8, $2.0
DATA expc<>+72(SB)/8, $2.0
DATA expc<>+80(SB)/8, $2.0
DATA expc<>+88(SB)/8, $2.0
DATA expc<>+96(SB)/8, $1.6666666666666666667e-1
DATA expc<>+104(SB)/8, $1.6666666666666666667e-1
DATA expc<>+112(SB)/8, $1.6666666666666666667e-1
DATA expc<>+120(SB)/8, $1.6666666666666666667e-1
DATA expc<>+128(SB)/8, $4.1666666666666666667e-2
DATA expc<>+136(SB)/8, $4.1666666666666666667e-2
DATA expc<>+144(SB)/8, $4.1666666666666666667e-2
DATA expc<>+152(SB)/8, $4.1666666666666666667e-2
DATA expc<>+160(SB)/8, $8.3333333333333333333e-3
DATA expc<>+168(SB)/8, $8.3333333333333333333e-3
DATA expc<>+176(SB)/8, $8.3333333333333333333e-3
DATA expc<>+184(SB)/8, $8.3333333333333333333e-3
DATA expc<>+192(SB)/8, $1.3888888888888888889e-3
DATA expc<>+200(SB)/8, $1.3888888888888888889e-3
DATA expc<>+208(SB)/8, $1.3888888888888888889e-3
DATA expc<>+216(SB)/8, $1.3888888888888888889e-3
DATA expc<>+224(SB)/8, $1.9841269841269841270e-4
DATA expc<>+232(SB)/8, $1.9841269841269841270e-4
DATA expc<>+240(SB)/8, $1.9841269841269841270e-4
DATA expc<>+248(SB)/8, $1.9841269841269841270e-4
DATA expc<>+256(SB)/8, $2.4801587301587301587e-5
DATA expc<>+264(SB)/8, $2.4801587301587301587e-5
DATA expc<>+272(SB)/8, $2.4801587301587301587e-5
DATA expc<>+280(SB)/8, $2.4801587301587301587e-5
DATA expc<>+288(SB)/8, $1.4426950408889634073599246810018920
DATA expc<>+296(SB)/8, $1.4426950408889634073599246810018920
DATA expc<>+304(SB)/8, $1.4426950408889634073599246810018920
DATA expc<>+312(SB)/8, $1.4426950408889634073599246810018920
DATA expc<>+320(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc<>+328(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc<>+336(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc<>+344(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc<>+352(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc<>+360(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc<>+368(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc<>+376(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc<>+384(SB)/8, $0.0625
DATA expc<>+392(SB)/8, $0.0625
DATA expc<>+400(SB)/8, $0.0625
DATA expc<>+408(SB)/8, $0.0625
DATA expc<>+416(SB)/8, $7.09782712893384e+02
DATA expc<>+424(SB)/8, $7.09782712893384e+02
DATA expc<>+432(SB)/8, $7.09782712893384e+02
DATA expc<>+440(SB)/8, $7.09782712893384e+02
DATA expc<>+448(SB)/8, $-1022.0
DATA expc<>+456(SB)/8, $-1022.0
DATA expc<>+464(SB)/8, $-1022.0
DATA expc<>+472(SB)/8, $-1022.0
DATA expc<>+480(SB)/8, $1023.0
DATA expc<>+488(SB)/8, $1023.0
DATA expc<>+496(SB)/8, $1023.0
DATA expc<>+504(SB)/8, $1023.0
GLOBL expc<>(SB), RODATA, $512

// 1023 in four int32 lanes: the exponent bias.
DATA expbias<>+0(SB)/4, $1023
DATA expbias<>+4(SB)/4, $1023
DATA expbias<>+8(SB)/4, $1023
DATA expbias<>+12(SB)/4, $1023
GLOBL expbias<>(SB), RODATA, $16

// func expBlocksAVX(dst, x []float64, shift float64) int
// Sets dst[k] = math.Exp(x[k]-shift) for whole blocks of four and returns
// how many entries it did. SI x, DI dst, CX len(x) rounded down to 4, AX k,
// Y15 shift. Y0 the argument, then the result; Y1 k as a float; X2 k.
TEXT ·expBlocksAVX(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         x_base+24(FP), SI
	MOVQ         x_len+32(FP), CX
	ANDQ         $-4, CX
	VBROADCASTSD shift+48(FP), Y15
	XORQ         AX, AX

block:
	CMPQ    AX, CX
	JGE     done
	VMOVUPD (SI)(AX*8), Y0
	VSUBPD  Y15, Y0, Y0
	// archExp's tests: x <= Overflow (false for NaN and +Inf) ...
	VCMPPD  $2, expc<>+416(SB), Y0, Y5
	VMULPD  expc<>+288(SB), Y0, Y1
	VCVTPD2DQY Y1, X2
	VCVTDQ2PD  X2, Y1
	// ... and -1022 <= k <= 1023, so that k+1023 is a normal exponent
	// (-Inf and huge negative x convert to the int32 indefinite, -2^31).
	VCMPPD    $13, expc<>+448(SB), Y1, Y6
	VCMPPD    $2, expc<>+480(SB), Y1, Y7
	VANDPD    Y6, Y5, Y5
	VANDPD    Y7, Y5, Y5
	VMOVMSKPD Y5, BX
	CMPQ      BX, $15
	JNE       done
	// x -= k*LN2U, x -= k*LN2L, fused; x /= 16.
	VFNMADD231PD expc<>+320(SB), Y1, Y0
	VFNMADD231PD expc<>+352(SB), Y1, Y0
	VMULPD       expc<>+384(SB), Y0, Y0
	// Taylor series.
	VMOVUPD     expc<>+256(SB), Y3
	VFMADD213PD expc<>+224(SB), Y0, Y3
	VFMADD213PD expc<>+192(SB), Y0, Y3
	VFMADD213PD expc<>+160(SB), Y0, Y3
	VFMADD213PD expc<>+128(SB), Y0, Y3
	VFMADD213PD expc<>+96(SB), Y0, Y3
	VFMADD213PD expc<>+0(SB), Y0, Y3
	VFMADD213PD expc<>+32(SB), Y0, Y3
	VMULPD      Y3, Y0, Y0
	// Four squarings: x = x*(x+2), the last one plus 1.
	VADDPD      expc<>+64(SB), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      expc<>+64(SB), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      expc<>+64(SB), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      expc<>+64(SB), Y0, Y3
	VFMADD213PD expc<>+32(SB), Y3, Y0
	// Times 2**k, built from the bits.
	VPADDD    expbias<>(SB), X2, X2
	VPMOVSXDQ X2, Y2
	VPSLLQ    $52, Y2, Y2
	VMULPD    Y2, Y0, Y0
	VMOVUPD   Y0, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       block

done:
	MOVQ       AX, ret+56(FP)
	VZEROUPPER
	RET
