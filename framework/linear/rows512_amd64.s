//go:build amd64

#include "textflag.h"

// lanes<>+2k is a mask of the low k of 8 lanes.
DATA lanes<>+0(SB)/2, $0x00
DATA lanes<>+2(SB)/2, $0x01
DATA lanes<>+4(SB)/2, $0x03
DATA lanes<>+6(SB)/2, $0x07
DATA lanes<>+8(SB)/2, $0x0F
DATA lanes<>+10(SB)/2, $0x1F
DATA lanes<>+12(SB)/2, $0x3F
DATA lanes<>+14(SB)/2, $0x7F
DATA lanes<>+16(SB)/2, $0xFF
GLOBL lanes<>(SB), RODATA, $18

// LANES sets k to the lanes of a register whose first column is AX
// columns before the end of the block: min(max(AX, 0), 8) of them.
#define LANES(k) MOVQ AX, R12; CMPQ R12, R14; CMOVQGT R14, R12; TESTQ R12, R12; CMOVQLT R15, R12; KMOVW (R13)(R12*2), k

// func addRowsAVX512(dst, rows []float64, idx []int32, stride int)
// addRowsGo, 32 columns at a time in four registers, the last ones
// masked, so that a row of up to 32 labels is one pass over idx with no
// scalar tail. Each column receives the same additions in the same order.
// DI dst, CX len(dst), SI rows, DX idx, R8 len(idx), R9 stride in bytes,
// BX first column of the block, R10 &rows[0][BX], R11 position in idx,
// AX columns left (then a row's byte offset), R13 &lanes, R14 8, R15 0.
TEXT ·addRowsAVX512(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ rows_base+24(FP), SI
	MOVQ idx_base+48(FP), DX
	MOVQ idx_len+56(FP), R8
	MOVQ stride+72(FP), R9
	SHLQ $3, R9
	LEAQ lanes<>(SB), R13
	MOVQ $8, R14
	XORQ R15, R15
	XORQ BX, BX

block:
	CMPQ      BX, CX
	JGE       done
	MOVQ      CX, AX
	SUBQ      BX, AX
	LANES(K1)
	SUBQ      $8, AX
	LANES(K2)
	SUBQ      $8, AX
	LANES(K3)
	SUBQ      $8, AX
	LANES(K4)
	VMOVUPD.Z (DI)(BX*8), K1, Z0
	VMOVUPD.Z 64(DI)(BX*8), K2, Z1
	VMOVUPD.Z 128(DI)(BX*8), K3, Z2
	VMOVUPD.Z 192(DI)(BX*8), K4, Z3
	LEAQ      (SI)(BX*8), R10
	XORQ      R11, R11

row:
	CMPQ    R11, R8
	JGE     store
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	VADDPD  (R10)(AX*1), Z0, K1, Z0
	VADDPD  64(R10)(AX*1), Z1, K2, Z1
	VADDPD  128(R10)(AX*1), Z2, K3, Z2
	VADDPD  192(R10)(AX*1), Z3, K4, Z3
	INCQ    R11
	JMP     row

store:
	VMOVUPD Z0, K1, (DI)(BX*8)
	VMOVUPD Z1, K2, 64(DI)(BX*8)
	VMOVUPD Z2, K3, 128(DI)(BX*8)
	VMOVUPD Z3, K4, 192(DI)(BX*8)
	ADDQ    $32, BX
	JMP     block

done:
	VZEROUPPER
	RET
