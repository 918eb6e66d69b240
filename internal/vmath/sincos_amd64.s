//go:build !purego && !amd64.v3

#include "textflag.h"

// The AVX2 kernel of sincos_amd64.go: the arithmetic of Go's math.Sin and
// math.Sincos (sin.go, sincos.go) in each of four lanes, with separate
// multiplies and adds (no FMA) in math's order, so each lane rounds as
// math does. For 0 < |x| < 2²⁹:
//
//	j = trunc(|x|·(4/π)), rounded up to even; y = j as float64
//	z = ((|x| − y·π4A) − y·π4B) − y·π4C,  zz = z·z
//	S = z + (z·zz)·P_sin(zz),  C = (1 − 0.5·zz) + (zz·zz)·P_cos(zz)
//	sin x = ±(S, or C when j&2), cos x = ±(C, or S when j&2)
//
// the sine negated when x < 0 xor j&4, the cosine when j&4 xor j&2 (math's
// sign flips for j > 3 and j > 1 after j −= 4; j is even). The kernel
// stops before the first group of four with a lane outside (zero,
// infinite, NaN, or math's Payne–Hanek range), without writing it, and
// returns the group's index. It ends with VZEROUPPER: dirty upper halves
// of the vector registers slow down later SSE code.

// Offsets into sincosConsts: each constant is stored four times (32 bytes).
#define C_ABS   0
#define C_SIGN  32
#define C_ONE32 64
#define C_EVEN  96
#define C_J2    128
#define C_J4    160
#define C_RED   192
#define C_4PI   224
#define C_PI4A  256
#define C_PI4B  288
#define C_PI4C  320
#define C_HALF  352
#define C_ONE   384
#define C_S0    416
#define C_S1    448
#define C_S2    480
#define C_S3    512
#define C_S4    544
#define C_S5    576
#define C_C0    608
#define C_C1    640
#define C_C2    672
#define C_C3    704
#define C_C4    736
#define C_C5    768

// VCMPPD predicates (src1 op src2, quiet).
#define LT_OQ 0x11
#define GT_OQ 0x1e

// func sincosAVX2(c *sincosConsts, x, sin, cos *float64, n4 int) (done int)
TEXT ·sincosAVX2(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), R8
	MOVQ x+8(FP), SI
	MOVQ sin+16(FP), DI
	MOVQ cos+24(FP), R9
	MOVQ n4+32(FP), CX
	SHLQ $3, CX                 // end in bytes
	XORQ AX, AX                 // byte offset of element i
	VXORPD Y15, Y15, Y15        // 0
loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*1), Y0      // x
	VANDPD C_ABS(R8), Y0, Y1    // |x|
	VCMPPD $GT_OQ, Y15, Y1, Y2  // |x| > 0 (false for NaN)
	VCMPPD $LT_OQ, C_RED(R8), Y1, Y3   // |x| < 2²⁹
	VANDPD Y3, Y2, Y2
	VMOVMSKPD Y2, DX
	CMPQ DX, $15
	JNE  done
	VANDPD C_SIGN(R8), Y0, Y14  // x's sign: the sine's, so far
	// The octant: j = trunc(|x|·4/π), odd j rounded up; y = j.
	VMULPD C_4PI(R8), Y1, Y2
	VCVTTPD2DQY Y2, X2
	VPADDD C_ONE32(R8), X2, X2
	VPAND C_EVEN(R8), X2, X2
	VCVTDQ2PD X2, Y3            // y
	VPMOVSXDQ X2, Y2            // j in 64-bit lanes
	VPAND C_J4(R8), Y2, Y4
	VPSLLQ $61, Y4, Y4          // j&4 as a sign bit
	VPAND C_J2(R8), Y2, Y5
	VPSLLQ $62, Y5, Y5          // j&2 as a sign bit: swap
	VXORPD Y4, Y14, Y14         // the sine's sign
	VXORPD Y4, Y5, Y13          // the cosine's sign
	// z = ((|x| − y·π4A) − y·π4B) − y·π4C; zz = z·z.
	VMULPD C_PI4A(R8), Y3, Y6
	VSUBPD Y6, Y1, Y1
	VMULPD C_PI4B(R8), Y3, Y6
	VSUBPD Y6, Y1, Y1
	VMULPD C_PI4C(R8), Y3, Y6
	VSUBPD Y6, Y1, Y1           // z
	VMULPD Y1, Y1, Y2           // zz
	// S = z + (z·zz)·P_sin(zz).
	VMULPD C_S0(R8), Y2, Y6
	VADDPD C_S1(R8), Y6, Y6
	VMULPD Y2, Y6, Y6
	VADDPD C_S2(R8), Y6, Y6
	VMULPD Y2, Y6, Y6
	VADDPD C_S3(R8), Y6, Y6
	VMULPD Y2, Y6, Y6
	VADDPD C_S4(R8), Y6, Y6
	VMULPD Y2, Y6, Y6
	VADDPD C_S5(R8), Y6, Y6
	VMULPD Y2, Y1, Y7           // z·zz
	VMULPD Y6, Y7, Y7
	VADDPD Y7, Y1, Y7           // S
	// C = (1 − 0.5·zz) + (zz·zz)·P_cos(zz).
	VMULPD C_C0(R8), Y2, Y8
	VADDPD C_C1(R8), Y8, Y8
	VMULPD Y2, Y8, Y8
	VADDPD C_C2(R8), Y8, Y8
	VMULPD Y2, Y8, Y8
	VADDPD C_C3(R8), Y8, Y8
	VMULPD Y2, Y8, Y8
	VADDPD C_C4(R8), Y8, Y8
	VMULPD Y2, Y8, Y8
	VADDPD C_C5(R8), Y8, Y8
	VMULPD C_HALF(R8), Y2, Y9
	VMOVUPD C_ONE(R8), Y10
	VSUBPD Y9, Y10, Y10         // 1 − 0.5·zz
	VMULPD Y2, Y2, Y9           // zz·zz
	VMULPD Y8, Y9, Y9
	VADDPD Y9, Y10, Y10         // C
	// Swap when j&2, then the signs.
	VBLENDVPD Y5, Y10, Y7, Y11  // sine: C when j&2, else S
	VXORPD Y14, Y11, Y11
	TESTQ R9, R9
	JZ   nocos
	VBLENDVPD Y5, Y7, Y10, Y12  // cosine: S when j&2, else C
	VXORPD Y13, Y12, Y12
	VMOVUPD Y12, (R9)(AX*1)
nocos:
	VMOVUPD Y11, (DI)(AX*1)
	ADDQ $32, AX
	JMP  loop
done:
	SHRQ $3, AX
	MOVQ AX, done+40(FP)
	VZEROUPPER
	RET
