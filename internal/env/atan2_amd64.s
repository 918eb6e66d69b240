//go:build !purego && !amd64.v3

#include "textflag.h"

// The AVX2 kernel of atan2_amd64.go: atan2's arithmetic (atan2.go) in
// each of four lanes, every branch computed and the lane's own selected by
// blends, with separate multiplies and adds (no FMA) in the scalar code's
// order, so that each lane rounds as atan2 does. It ends with VZEROUPPER:
// dirty upper halves of the vector registers slow down later SSE code (Go's
// scalar floating point) by a large factor.

// Offsets into atan2Consts: each constant is stored four times (32 bytes).
#define C_ABS    0
#define C_SIGN   32
#define C_ONE    64
#define C_LOW    96
#define C_T3P8   128
#define C_P0     160
#define C_P1     192
#define C_P2     224
#define C_P3     256
#define C_P4     288
#define C_Q0     320
#define C_Q1     352
#define C_Q2     384
#define C_Q3     416
#define C_Q4     448
#define C_PIO2   480
#define C_PIO4   512
#define C_MORE   544
#define C_HMORE  576
#define C_EXPMAX 608

// VCMPPD predicates (src1 op src2, quiet).
#define LT_OQ 0x11
#define LE_OQ 0x12
#define GT_OQ 0x1e

// func atan2AVX2(c *atan2Consts, y, x, out *float64, n4 int) (special bool)
TEXT ·atan2AVX2(SB), NOSPLIT, $0-41
	MOVQ c+0(FP), R8
	MOVQ y+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ out+24(FP), DI
	MOVQ n4+32(FP), CX
	SHLQ $3, CX                 // end in bytes
	XORQ AX, AX                 // byte offset of element i
	VXORPD Y3, Y3, Y3           // 0
	VXORPD Y15, Y15, Y15        // lanes with an input zero, infinite or NaN
loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*1), Y0      // y
	VMOVUPD (DX)(AX*1), Y1      // x
	// An input v is ordinary (finite, not zero) when the integer bits
	// of |v| are in (0, 0x7ff0000000000000).
	VANDPD C_ABS(R8), Y0, Y4
	VANDPD C_ABS(R8), Y1, Y5
	VPCMPGTQ Y3, Y4, Y6         // |y| bits > 0
	VPCMPGTQ Y3, Y5, Y7
	VPAND Y7, Y6, Y6
	VMOVDQU C_EXPMAX(R8), Y7
	VPCMPGTQ Y4, Y7, Y8         // |y| bits < Inf's
	VPAND Y8, Y6, Y6
	VPCMPGTQ Y5, Y7, Y8
	VPAND Y8, Y6, Y6            // both ordinary
	VPANDN C_SIGN(R8), Y6, Y6   // the sign bit set when not both ordinary
	VPOR Y6, Y15, Y15
	VDIVPD Y1, Y0, Y2           // r = y/x
	VANDPD C_ABS(R8), Y2, Y4    // a = |r|
	VCMPPD $LE_OQ, C_LOW(R8), Y4, Y5   // low: a <= 0.66
	VCMPPD $GT_OQ, C_T3P8(R8), Y4, Y6  // high: a > tan(3π/8)
	// The argument of xatan: a (low), 1/a (high), (a−1)/(a+1) otherwise,
	// as num/den (a/1 is a).
	VMOVUPD C_ONE(R8), Y7       // 1
	VSUBPD Y7, Y4, Y8           // a − 1
	VADDPD Y7, Y4, Y9           // a + 1
	VBLENDVPD Y6, Y7, Y8, Y8    // num: high → 1
	VBLENDVPD Y5, Y4, Y8, Y8    // num: low → a
	VBLENDVPD Y6, Y4, Y9, Y9    // den: high → a
	VBLENDVPD Y5, Y7, Y9, Y9    // den: low → 1
	VDIVPD Y9, Y8, Y7           // t = num/den
	// xatan(t): z = t²; z = z·P(z)/Q(z); t·z + t.
	VMULPD Y7, Y7, Y8           // z
	VMULPD C_P0(R8), Y8, Y9     // P0·z
	VADDPD C_P1(R8), Y9, Y9
	VMULPD Y8, Y9, Y9
	VADDPD C_P2(R8), Y9, Y9
	VMULPD Y8, Y9, Y9
	VADDPD C_P3(R8), Y9, Y9
	VMULPD Y8, Y9, Y9
	VADDPD C_P4(R8), Y9, Y9     // P
	VADDPD C_Q0(R8), Y8, Y10    // z + Q0
	VMULPD Y8, Y10, Y10
	VADDPD C_Q1(R8), Y10, Y10
	VMULPD Y8, Y10, Y10
	VADDPD C_Q2(R8), Y10, Y10
	VMULPD Y8, Y10, Y10
	VADDPD C_Q3(R8), Y10, Y10
	VMULPD Y8, Y10, Y10
	VADDPD C_Q4(R8), Y10, Y10   // Q
	VMULPD Y9, Y8, Y8           // z·P
	VDIVPD Y10, Y8, Y8          // z·P/Q
	VMULPD Y7, Y8, Y8           // t·z
	VADDPD Y7, Y8, Y8           // p = t·z + t
	// satan: p (low), π/2 − p + morebits (high), π/4 + p + morebits/2.
	VMOVUPD C_PIO2(R8), Y9
	VSUBPD Y8, Y9, Y9           // π/2 − p
	VADDPD C_MORE(R8), Y9, Y9
	VADDPD C_PIO4(R8), Y8, Y10  // π/4 + p
	VADDPD C_HMORE(R8), Y10, Y10
	VBLENDVPD Y6, Y9, Y10, Y10  // high
	VBLENDVPD Y5, Y8, Y10, Y10  // low
	// q = ±satan(a) with r's sign (q = r = ±0 when r is zero: satan(0) = +0).
	VANDPD C_SIGN(R8), Y2, Y2
	VORPD Y2, Y10, Y10
	// x < 0 (its sign bit, x ≠ 0): q + π when q <= 0, else q − π.
	VCMPPD $LE_OQ, Y3, Y10, Y11 // q <= 0
	VMOVUPD C_PIO2(R8), Y12
	VADDPD Y12, Y12, Y12        // π (2·(π/2) is exact)
	VADDPD Y12, Y10, Y13        // q + π
	VSUBPD Y12, Y10, Y14        // q − π
	VBLENDVPD Y11, Y13, Y14, Y14
	VBLENDVPD Y1, Y14, Y10, Y10
	VMOVUPD Y10, (DI)(AX*1)
	ADDQ $32, AX
	JMP  loop
done:
	VMOVMSKPD Y15, AX           // the lanes' sign bits
	TESTQ AX, AX
	SETNE special+40(FP)
	VZEROUPPER
	RET
