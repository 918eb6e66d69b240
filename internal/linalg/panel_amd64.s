//go:build !purego

#include "textflag.h"

// func panel8AVX512(rows *[8]*float64, k int, bp *float64, tile *[64]float64)
//
// tile[8r+j] = Σ_p rows[r][p]·bp[8p+j] for r, j < 8: for each row the
// eight j are the lanes of one register, acc = fma(rows[r][p], bp[8p+j],
// acc) from 0 over blocks of 256 steps (kc), each block added to the
// row's sum (Z8–Z15): the order of panel8Go and of MulABt, lane by lane.
TEXT ·panel8AVX512(SB), NOSPLIT, $0-32
	MOVQ rows+0(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ 32(AX), R12
	MOVQ 40(AX), R13
	MOVQ 48(AX), R14
	MOVQ 56(AX), R15
	MOVQ k+8(FP), CX
	MOVQ bp+16(FP), DI
	MOVQ tile+24(FP), DX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	XORQ AX, AX                 // p
block:
	CMPQ AX, CX
	JGE  store
	MOVQ CX, BX
	SUBQ AX, BX
	CMPQ BX, $256
	JLE  steps
	MOVQ $256, BX               // kb = min(kc, k − p)
steps:
	VMOVUPD (DI), Z16           // bp[8p : 8p+8]
	VFMADD231PD.BCST (R8)(AX*8), Z16, Z0  // acc_r += rows[r][p]·bp
	VFMADD231PD.BCST (R9)(AX*8), Z16, Z1
	VFMADD231PD.BCST (R10)(AX*8), Z16, Z2
	VFMADD231PD.BCST (R11)(AX*8), Z16, Z3
	VFMADD231PD.BCST (R12)(AX*8), Z16, Z4
	VFMADD231PD.BCST (R13)(AX*8), Z16, Z5
	VFMADD231PD.BCST (R14)(AX*8), Z16, Z6
	VFMADD231PD.BCST (R15)(AX*8), Z16, Z7
	ADDQ $64, DI
	INCQ AX
	DECQ BX
	JNZ  steps
	VADDPD Z0, Z8, Z8          // sum_r += acc_r
	VADDPD Z1, Z9, Z9
	VADDPD Z2, Z10, Z10
	VADDPD Z3, Z11, Z11
	VADDPD Z4, Z12, Z12
	VADDPD Z5, Z13, Z13
	VADDPD Z6, Z14, Z14
	VADDPD Z7, Z15, Z15
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	JMP  block
store:
	VMOVUPD Z8, 0(DX)
	VMOVUPD Z9, 64(DX)
	VMOVUPD Z10, 128(DX)
	VMOVUPD Z11, 192(DX)
	VMOVUPD Z12, 256(DX)
	VMOVUPD Z13, 320(DX)
	VMOVUPD Z14, 384(DX)
	VMOVUPD Z15, 448(DX)
	VZEROUPPER
	RET
