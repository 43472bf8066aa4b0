//go:build amd64

#include "textflag.h"

// The AVX forms of rows.go's addRowsGo and addToRowsGo: the same additions
// in the same order (each column summed along idx, the destination the
// first operand), sixteen, then four, then one column at a time. No FMA.

// func addRowsAVX(dst, rows []float64, idx []int32, stride int)
// DI dst, CX len(dst), SI rows, DX idx, R8 len(idx), R9 stride in bytes,
// BX first column of the group, R10 &rows[0][col], R11 position in idx,
// AX byte offset of a row.
TEXT ·addRowsAVX(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ rows_base+24(FP), SI
	MOVQ idx_base+48(FP), DX
	MOVQ idx_len+56(FP), R8
	MOVQ stride+72(FP), R9
	SHLQ $3, R9
	XORQ BX, BX

ar16:
	MOVQ    CX, AX
	SUBQ    BX, AX
	CMPQ    AX, $16
	JLT     ar4
	VMOVUPD (DI)(BX*8), Y0
	VMOVUPD 32(DI)(BX*8), Y1
	VMOVUPD 64(DI)(BX*8), Y2
	VMOVUPD 96(DI)(BX*8), Y3
	LEAQ    (SI)(BX*8), R10
	XORQ    R11, R11

ar16i:
	CMPQ    R11, R8
	JGE     ar16store
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	VADDPD  (R10)(AX*1), Y0, Y0
	VADDPD  32(R10)(AX*1), Y1, Y1
	VADDPD  64(R10)(AX*1), Y2, Y2
	VADDPD  96(R10)(AX*1), Y3, Y3
	INCQ    R11
	JMP     ar16i

ar16store:
	VMOVUPD Y0, (DI)(BX*8)
	VMOVUPD Y1, 32(DI)(BX*8)
	VMOVUPD Y2, 64(DI)(BX*8)
	VMOVUPD Y3, 96(DI)(BX*8)
	ADDQ    $16, BX
	JMP     ar16

ar4:
	MOVQ    CX, AX
	SUBQ    BX, AX
	CMPQ    AX, $4
	JLT     ar1
	VMOVUPD (DI)(BX*8), Y0
	LEAQ    (SI)(BX*8), R10
	XORQ    R11, R11

ar4i:
	CMPQ    R11, R8
	JGE     ar4store
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	VADDPD  (R10)(AX*1), Y0, Y0
	INCQ    R11
	JMP     ar4i

ar4store:
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ    $4, BX
	JMP     ar4

ar1:
	CMPQ   BX, CX
	JGE    ardone
	VMOVSD (DI)(BX*8), X0
	LEAQ   (SI)(BX*8), R10
	XORQ   R11, R11

ar1i:
	CMPQ    R11, R8
	JGE     ar1store
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	VADDSD  (R10)(AX*1), X0, X0
	INCQ    R11
	JMP     ar1i

ar1store:
	VMOVSD X0, (DI)(BX*8)
	INCQ   BX
	JMP    ar1

ardone:
	VZEROUPPER
	RET

// func addToRowsAVX(rows []float64, idx []int32, stride int, src []float64)
// SI rows, DX idx, R8 len(idx), R9 stride in bytes, DI src, CX len(src),
// BX first column of the group, R10 &rows[0][col], R11 position in idx,
// AX byte offset of a row; Y4–Y7 hold the group's columns of src.
TEXT ·addToRowsAVX(SB), NOSPLIT, $0-80
	MOVQ rows_base+0(FP), SI
	MOVQ idx_base+24(FP), DX
	MOVQ idx_len+32(FP), R8
	MOVQ stride+48(FP), R9
	MOVQ src_base+56(FP), DI
	MOVQ src_len+64(FP), CX
	SHLQ $3, R9
	XORQ BX, BX

at16:
	MOVQ    CX, AX
	SUBQ    BX, AX
	CMPQ    AX, $16
	JLT     at4
	VMOVUPD (DI)(BX*8), Y4
	VMOVUPD 32(DI)(BX*8), Y5
	VMOVUPD 64(DI)(BX*8), Y6
	VMOVUPD 96(DI)(BX*8), Y7
	LEAQ    (SI)(BX*8), R10
	XORQ    R11, R11

at16i:
	CMPQ    R11, R8
	JGE     at16next
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	ADDQ    R10, AX
	VMOVUPD (AX), Y0
	VMOVUPD 32(AX), Y1
	VMOVUPD 64(AX), Y2
	VMOVUPD 96(AX), Y3
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, 96(AX)
	INCQ    R11
	JMP     at16i

at16next:
	ADDQ $16, BX
	JMP  at16

at4:
	MOVQ    CX, AX
	SUBQ    BX, AX
	CMPQ    AX, $4
	JLT     at1
	VMOVUPD (DI)(BX*8), Y4
	LEAQ    (SI)(BX*8), R10
	XORQ    R11, R11

at4i:
	CMPQ    R11, R8
	JGE     at4next
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	ADDQ    R10, AX
	VMOVUPD (AX), Y0
	VADDPD  Y4, Y0, Y0
	VMOVUPD Y0, (AX)
	INCQ    R11
	JMP     at4i

at4next:
	ADDQ $4, BX
	JMP  at4

at1:
	CMPQ   BX, CX
	JGE    atdone
	VMOVSD (DI)(BX*8), X4
	LEAQ   (SI)(BX*8), R10
	XORQ   R11, R11

at1i:
	CMPQ    R11, R8
	JGE     at1next
	MOVLQSX (DX)(R11*4), AX
	IMULQ   R9, AX
	ADDQ    R10, AX
	VMOVSD  (AX), X0
	VADDSD  X4, X0, X0
	VMOVSD  X0, (AX)
	INCQ    R11
	JMP     at1i

at1next:
	INCQ BX
	JMP  at1

atdone:
	VZEROUPPER
	RET
