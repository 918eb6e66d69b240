//go:build !purego

#include "textflag.h"

// The AVX2 kernel of exp_amd64.go: the fused multiply-add path of Go's
// math.Exp (math/exp_amd64.s, label avxfma) in each of four lanes, the
// same operations in the same order, so each lane rounds as math.Exp does:
//
//	e = round(x·log₂e)                 (VCVTPD2DQ: to nearest, as CVTSD2SL)
//	r = ((x − e·ln2U) − e·ln2L)/16     (fused)
//	p = r·(1 + r·(1/2 + r·(1/3! + … + r/8!)))   (Horner, fused)
//	p = p·(p + 2), three times; p = p·(p + 2) + 1 (fused)
//	exp x = p · 2^e                    (the bits (e + 1023) << 52)
//
// A lane leaves that path when x is NaN, x > Overflow or e lies outside
// [−1022, 1023] (infinities, overflow, and the results math scales by its
// denormal branch; e = −1022 may still give a subnormal, on the path). The
// exponent test covers the other two: a NaN or an infinity converts to the integer
// −2³¹, and every x above 1023.5·ln 2 ≈ 709.44 rounds to e ≥ 1024. The kernel
// stops before the first group of four that holds such a lane, without
// writing it, and returns the group's index. It ends with VZEROUPPER: dirty upper halves of the
// vector registers slow down later SSE code (Go's scalar floating point).

// Offsets into expConsts: each constant is stored four times (32 bytes).
#define C_LOG2E 0
#define C_LN2U  32
#define C_LN2L  64
#define C_T8    96
#define C_T7    128
#define C_T6    160
#define C_T5    192
#define C_T4    224
#define C_T3    256
#define C_HALF  288
#define C_ONE   320
#define C_TWO   352
#define C_16TH  384
#define C_EMIN  416
#define C_EMAX  448
#define C_BIAS  480

// VCMPPD predicates (src1 op src2, quiet).
#define LE_OQ 0x12
#define GE_OQ 0x1d

// func expAVX2(c *expConsts, x, out *float64, n4 int) (done int)
TEXT ·expAVX2(SB), NOSPLIT, $0-40
	MOVQ c+0(FP), R8
	MOVQ x+8(FP), SI
	MOVQ out+16(FP), DI
	MOVQ n4+24(FP), CX
	SHLQ $3, CX                 // end in bytes
	XORQ AX, AX                 // byte offset of element i
	VMOVUPD C_TWO(R8), Y14      // 2
loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*1), Y0      // x
	VMULPD C_LOG2E(R8), Y0, Y1  // x·log₂e
	VCVTPD2DQY Y1, X2           // e
	VCVTDQ2PD X2, Y1            // e as float64 (exact)
	VCMPPD $GE_OQ, C_EMIN(R8), Y1, Y5
	VCMPPD $LE_OQ, C_EMAX(R8), Y1, Y6
	VANDPD Y6, Y5, Y5
	VMOVMSKPD Y5, DX            // the lanes' sign bits: 1 on the common path
	CMPQ DX, $15
	JNE  done
	VFNMADD231PD C_LN2U(R8), Y1, Y0    // x − e·ln2U
	VFNMADD231PD C_LN2L(R8), Y1, Y0    // − e·ln2L
	VMULPD C_16TH(R8), Y0, Y0          // r
	VMOVUPD C_T8(R8), Y3
	VFMADD213PD C_T7(R8), Y0, Y3
	VFMADD213PD C_T6(R8), Y0, Y3
	VFMADD213PD C_T5(R8), Y0, Y3
	VFMADD213PD C_T4(R8), Y0, Y3
	VFMADD213PD C_T3(R8), Y0, Y3
	VFMADD213PD C_HALF(R8), Y0, Y3
	VFMADD213PD C_ONE(R8), Y0, Y3
	VMULPD Y3, Y0, Y0           // p = r·(…)
	VADDPD Y14, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y14, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y14, Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD Y14, Y0, Y3
	VFMADD213PD C_ONE(R8), Y3, Y0      // p·(p + 2) + 1
	VPMOVSXDQ X2, Y4            // e as int64
	VPADDQ C_BIAS(R8), Y4, Y4
	VPSLLQ $52, Y4, Y4          // 2^e
	VMULPD Y4, Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ $32, AX
	JMP  loop
done:
	CMPQ AX, CX
	CMOVQGT CX, AX
	SHRQ $3, AX
	MOVQ AX, done+32(FP)
	VZEROUPPER
	RET
