//go:build !purego

#include "textflag.h"

// The kernels of the narrow triangular solves (narrow.go): up to 24 columns
// of right-hand sides, the columns in the lanes of three registers (the
// third, or the second and third, partly or wholly masked off by mask:
// bit j of mask is column j), and the scaled subtraction of the condition
// estimate's transposed solve. Every lane does the operations of the
// narrow*Go twin in its order, with a separate multiply and add (no FMA)
// in the axpy kernels, as gonum's AxpyUnitary.

#define NEQ_UQ 4

// func narrowAcc4AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64, mask uint64)
//
// out[24r+j] = acc, acc = fma(coef_r[p·ls], x[p·ldx+j], acc) for p = 0, …,
// k−1 from 0: the chains of the packed product's kernel (kern6x8) for
// four rows of a narrow product.
TEXT ·narrowAcc4AVX512(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ coef+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ ls+16(FP), BX
	SHLQ $3, BX
	MOVQ x+24(FP), DI
	MOVQ ldx+32(FP), SI
	SHLQ $3, SI
	// R12, R13: the first and last row's coefficients 16 steps ahead,
	// requested before they are needed (with ls = the row stride of U
	// every step is a new line, too far apart for the hardware).
	MOVQ BX, R12
	SHLQ $4, R12
	LEAQ (R11)(R12*1), R13
	ADDQ R8, R12
	MOVQ mask+48(FP), AX
	KMOVW AX, K1
	SHRQ $8, AX
	KMOVW AX, K2
	SHRQ $8, AX
	KMOVW AX, K3
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
	TESTQ CX, CX
	JE    accstore

accloop:
	PREFETCHT0 (R12)
	PREFETCHT0 (R13)
	ADDQ BX, R12
	ADDQ BX, R13
	VMOVUPD.Z 0(DI), K1, Z12
	VMOVUPD.Z 64(DI), K2, Z13
	VMOVUPD.Z 128(DI), K3, Z14
	VBROADCASTSD (R8), Z15
	VFMADD231PD Z12, Z15, Z0
	VFMADD231PD Z13, Z15, Z1
	VFMADD231PD Z14, Z15, Z2
	VBROADCASTSD (R9), Z16
	VFMADD231PD Z12, Z16, Z3
	VFMADD231PD Z13, Z16, Z4
	VFMADD231PD Z14, Z16, Z5
	VBROADCASTSD (R10), Z15
	VFMADD231PD Z12, Z15, Z6
	VFMADD231PD Z13, Z15, Z7
	VFMADD231PD Z14, Z15, Z8
	VBROADCASTSD (R11), Z16
	VFMADD231PD Z12, Z16, Z9
	VFMADD231PD Z13, Z16, Z10
	VFMADD231PD Z14, Z16, Z11
	ADDQ BX, R8
	ADDQ BX, R9
	ADDQ BX, R10
	ADDQ BX, R11
	ADDQ SI, DI
	DECQ CX
	JNE  accloop

accstore:
	MOVQ out+40(FP), DX
	VMOVUPD Z0, 0(DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VMOVUPD Z4, 256(DX)
	VMOVUPD Z5, 320(DX)
	VMOVUPD Z6, 384(DX)
	VMOVUPD Z7, 448(DX)
	VMOVUPD Z8, 512(DX)
	VMOVUPD Z9, 576(DX)
	VMOVUPD Z10, 640(DX)
	VMOVUPD Z11, 704(DX)
	VZEROUPPER
	RET

// func narrowAxpy4AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64, mask uint64)
//
// For p = 0, …, k−1 and each row r with coef_r[p·ls] ≠ 0 (NaN included):
// c_r[j] = c_r[j] − coef_r[p·ls]·x[p·ldx+j], the product rounded: gonum's
// c_r += (−coef)·x_p (AxpyUnitary), skipping zeros as gonum's Dgemm and
// Dtrsm do. Rows may repeat (the same pointers twice give the same
// stores).
TEXT ·narrowAxpy4AVX512(SB), NOSPLIT, $0-56
	MOVQ coef+8(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ c+40(FP), AX
	MOVQ 0(AX), R12
	MOVQ 8(AX), R13
	MOVQ 16(AX), R14
	MOVQ 24(AX), R15
	MOVQ k+0(FP), CX
	MOVQ ls+16(FP), BX
	SHLQ $3, BX
	MOVQ x+24(FP), DI
	MOVQ ldx+32(FP), SI
	SHLQ $3, SI
	MOVQ mask+48(FP), AX
	KMOVW AX, K1
	SHRQ $8, AX
	KMOVW AX, K2
	SHRQ $8, AX
	KMOVW AX, K3
	VMOVUPD.Z 0(R12), K1, Z0
	VMOVUPD.Z 64(R12), K2, Z1
	VMOVUPD.Z 128(R12), K3, Z2
	VMOVUPD.Z 0(R13), K1, Z3
	VMOVUPD.Z 64(R13), K2, Z4
	VMOVUPD.Z 128(R13), K3, Z5
	VMOVUPD.Z 0(R14), K1, Z6
	VMOVUPD.Z 64(R14), K2, Z7
	VMOVUPD.Z 128(R14), K3, Z8
	VMOVUPD.Z 0(R15), K1, Z9
	VMOVUPD.Z 64(R15), K2, Z10
	VMOVUPD.Z 128(R15), K3, Z11
	MOVQ BX, AX // AX, DX: the first and last row's coefficients 16 steps ahead
	SHLQ $4, AX
	LEAQ (R11)(AX*1), DX
	ADDQ R8, AX
	VPXORQ Z17, Z17, Z17
	TESTQ CX, CX
	JE    narrowAxpy4AVX512store

narrowAxpy4AVX512loop:
	PREFETCHT0 (AX)
	PREFETCHT0 (DX)
	ADDQ BX, AX
	ADDQ BX, DX
	VMOVUPD.Z 0(DI), K1, Z12
	VMOVUPD.Z 64(DI), K2, Z13
	VMOVUPD.Z 128(DI), K3, Z14
	VBROADCASTSD (R8), Z15
	VCMPPD $NEQ_UQ, Z17, Z15, K4
	VMULPD Z12, Z15, Z16
	VSUBPD Z16, Z0, K4, Z0
	VMULPD Z13, Z15, Z18
	VSUBPD Z18, Z1, K4, Z1
	VMULPD Z14, Z15, Z19
	VSUBPD Z19, Z2, K4, Z2
	VBROADCASTSD (R9), Z20
	VCMPPD $NEQ_UQ, Z17, Z20, K5
	VMULPD Z12, Z20, Z21
	VSUBPD Z21, Z3, K5, Z3
	VMULPD Z13, Z20, Z23
	VSUBPD Z23, Z4, K5, Z4
	VMULPD Z14, Z20, Z24
	VSUBPD Z24, Z5, K5, Z5
	VBROADCASTSD (R10), Z15
	VCMPPD $NEQ_UQ, Z17, Z15, K6
	VMULPD Z12, Z15, Z16
	VSUBPD Z16, Z6, K6, Z6
	VMULPD Z13, Z15, Z18
	VSUBPD Z18, Z7, K6, Z7
	VMULPD Z14, Z15, Z19
	VSUBPD Z19, Z8, K6, Z8
	VBROADCASTSD (R11), Z20
	VCMPPD $NEQ_UQ, Z17, Z20, K7
	VMULPD Z12, Z20, Z21
	VSUBPD Z21, Z9, K7, Z9
	VMULPD Z13, Z20, Z23
	VSUBPD Z23, Z10, K7, Z10
	VMULPD Z14, Z20, Z24
	VSUBPD Z24, Z11, K7, Z11
	ADDQ BX, R8
	ADDQ BX, R9
	ADDQ BX, R10
	ADDQ BX, R11
	ADDQ SI, DI
	DECQ CX
	JNE  narrowAxpy4AVX512loop

narrowAxpy4AVX512store:
	VMOVUPD Z0, K1, 0(R12)
	VMOVUPD Z1, K2, 64(R12)
	VMOVUPD Z2, K3, 128(R12)
	VMOVUPD Z3, K1, 0(R13)
	VMOVUPD Z4, K2, 64(R13)
	VMOVUPD Z5, K3, 128(R13)
	VMOVUPD Z6, K1, 0(R14)
	VMOVUPD Z7, K2, 64(R14)
	VMOVUPD Z8, K3, 128(R14)
	VMOVUPD Z9, K1, 0(R15)
	VMOVUPD Z10, K2, 64(R15)
	VMOVUPD Z11, K3, 128(R15)
	VZEROUPPER
	RET

// func narrowAxpy1AVX512(k int, coef *float64, ls int, x *float64, ldx int, c *float64, mask uint64)
//
// narrowAxpy4AVX512 for one row.
TEXT ·narrowAxpy1AVX512(SB), NOSPLIT, $0-56
	MOVQ coef+8(FP), R8
	MOVQ c+40(FP), R12
	MOVQ k+0(FP), CX
	MOVQ ls+16(FP), BX
	SHLQ $3, BX
	MOVQ x+24(FP), DI
	MOVQ ldx+32(FP), SI
	SHLQ $3, SI
	MOVQ mask+48(FP), AX
	KMOVW AX, K1
	SHRQ $8, AX
	KMOVW AX, K2
	SHRQ $8, AX
	KMOVW AX, K3
	VMOVUPD.Z 0(R12), K1, Z0
	VMOVUPD.Z 64(R12), K2, Z1
	VMOVUPD.Z 128(R12), K3, Z2
	MOVQ BX, AX // AX, DX: the first and last row's coefficients 16 steps ahead
	SHLQ $4, AX
	LEAQ (R8)(AX*1), DX
	ADDQ R8, AX
	VPXORQ Z17, Z17, Z17
	TESTQ CX, CX
	JE    narrowAxpy1AVX512store

narrowAxpy1AVX512loop:
	PREFETCHT0 (AX)
	PREFETCHT0 (DX)
	ADDQ BX, AX
	ADDQ BX, DX
	VMOVUPD.Z 0(DI), K1, Z12
	VMOVUPD.Z 64(DI), K2, Z13
	VMOVUPD.Z 128(DI), K3, Z14
	VBROADCASTSD (R8), Z15
	VCMPPD $NEQ_UQ, Z17, Z15, K4
	VMULPD Z12, Z15, Z16
	VSUBPD Z16, Z0, K4, Z0
	VMULPD Z13, Z15, Z18
	VSUBPD Z18, Z1, K4, Z1
	VMULPD Z14, Z15, Z19
	VSUBPD Z19, Z2, K4, Z2
	ADDQ BX, R8
	ADDQ SI, DI
	DECQ CX
	JNE  narrowAxpy1AVX512loop

narrowAxpy1AVX512store:
	VMOVUPD Z0, K1, 0(R12)
	VMOVUPD Z1, K2, 64(R12)
	VMOVUPD Z2, K3, 128(R12)
	VZEROUPPER
	RET

// func subScaledAVX512(n int, x, a *float64, s float64)
//
// x[j] = x[j] − a[j]·s for j < n, the product rounded: the inner loop of
// gonum's Dtrsv (upper, transposed), eight lanes at a time.
TEXT ·subScaledAVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), DI
	MOVQ a+16(FP), SI
	VBROADCASTSD s+24(FP), Z15

sub16:
	CMPQ CX, $16
	JL   sub8
	VMOVUPD 0(SI), Z0
	VMOVUPD 64(SI), Z2
	VMULPD  Z15, Z0, Z0
	VMULPD  Z15, Z2, Z2
	VMOVUPD 0(DI), Z1
	VMOVUPD 64(DI), Z3
	VSUBPD  Z0, Z1, Z1
	VSUBPD  Z2, Z3, Z3
	VMOVUPD Z1, 0(DI)
	VMOVUPD Z3, 64(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $16, CX
	JMP     sub16

sub8:
	CMPQ CX, $8
	JL   subtail
	VMOVUPD 0(SI), Z0
	VMULPD  Z15, Z0, Z0
	VMOVUPD 0(DI), Z1
	VSUBPD  Z0, Z1, Z1
	VMOVUPD Z1, 0(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $8, CX

subtail:
	TESTQ CX, CX
	JE    subdone
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVW AX, K1
	VMOVUPD.Z 0(SI), K1, Z0
	VMULPD    Z15, Z0, Z0
	VMOVUPD.Z 0(DI), K1, Z1
	VSUBPD    Z0, Z1, Z1
	VMOVUPD   Z1, K1, 0(DI)

subdone:
	VZEROUPPER
	RET

// func dotSeqAVX(n int, x, a *float64) float64
//
// s = 0, then s += x[j]·a[j] for j = 0, …, n−1 in order, each product
// rounded: gonum's Dtrsv (upper, not transposed) inner loop, its one chain
// of additions (the solve's bound) without the Go loop's index checks.
TEXT ·dotSeqAVX(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   x+8(FP), DI
	MOVQ   a+16(FP), SI
	VXORPD X0, X0, X0

dot4:
	CMPQ   CX, $4
	JL     dot1
	VMOVSD 0(DI), X1
	VMULSD 0(SI), X1, X1
	VMOVSD 8(DI), X2
	VMULSD 8(SI), X2, X2
	VMOVSD 16(DI), X3
	VMULSD 16(SI), X3, X3
	VMOVSD 24(DI), X4
	VMULSD 24(SI), X4, X4
	VADDSD X1, X0, X0
	VADDSD X2, X0, X0
	VADDSD X3, X0, X0
	VADDSD X4, X0, X0
	ADDQ   $32, DI
	ADDQ   $32, SI
	SUBQ   $4, CX
	JMP    dot4

dot1:
	TESTQ  CX, CX
	JE     dotdone
	VMOVSD 0(DI), X1
	VMULSD 0(SI), X1, X1
	VADDSD X1, X0, X0
	ADDQ   $8, DI
	ADDQ   $8, SI
	DECQ   CX
	JMP    dot1

dotdone:
	VMOVSD X0, ret+24(FP)
	RET
