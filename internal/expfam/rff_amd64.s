//go:build !purego && !amd64.v3

#include "textflag.h"

// The AVX2 kernels of rff_amd64.go. They use separate multiplies and adds
// (no FMA), in the order of the scalar code, so that each lane rounds as
// the scalar loop does (see rffKernels). Every function ends with
// VZEROUPPER: dirty upper halves of the vector registers slow down later
// SSE code (Go's scalar floating point) by a large factor.

// Offsets into rffConsts: each constant is stored four times (32 bytes).
#define C_ABS    0
#define C_MAX    32
#define C_INVPI  64
#define C_HALF   96
#define C_MAGIC  128
#define C_P7     160
#define C_P6     192
#define C_P5     224
#define C_P4     256
#define C_P3     288
#define C_P2     320
#define C_P1     352
#define C_P0     384

// func rffPhiAVX2(c *rffConsts, omegaT, bias, x *float64, nin, d, n4 int, scale float64, phi *float64) (ok bool)
TEXT ·rffPhiAVX2(SB), NOSPLIT, $0-73
	MOVQ c+0(FP), R8
	MOVQ omegaT+8(FP), SI
	MOVQ bias+16(FP), BX
	MOVQ x+24(FP), DX
	MOVQ nin+32(FP), CX
	MOVQ d+40(FP), R9
	MOVQ n4+48(FP), R10
	VBROADCASTSD scale+56(FP), Y14
	MOVQ phi+64(FP), DI
	SHLQ $3, R9                 // row stride of omegaT in bytes
	SHLQ $3, R10                // end of the vector part in bytes
	VPCMPEQQ Y15, Y15, Y15      // AND of the lanes' in-range masks
	XORQ AX, AX                 // byte offset of element j
block12:                            // three blocks of four features at a time, for ILP
	LEAQ 96(AX), R13
	CMPQ R13, R10
	JG   block
	VMOVUPD (BX)(AX*1), Y0      // z = b[j:j+4], b[j+4:j+8], b[j+8:j+12]
	VMOVUPD 32(BX)(AX*1), Y4
	VMOVUPD 64(BX)(AX*1), Y8
	LEAQ (SI)(AX*1), R11        // &omegaT[0*d + j]
	XORQ R12, R12
input12:
	CMPQ R12, CX
	JGE  cosine12
	VBROADCASTSD (DX)(R12*8), Y12
	VMULPD (R11), Y12, Y13      // ω_ij x_i
	VADDPD Y13, Y0, Y0          // z += ω_ij x_i
	VMULPD 32(R11), Y12, Y13
	VADDPD Y13, Y4, Y4
	VMULPD 64(R11), Y12, Y13
	VADDPD Y13, Y8, Y8
	ADDQ R9, R11
	INCQ R12
	JMP  input12
cosine12:                           // the cosine of block (f computed in place of y), on Y0–Y3, Y4–Y7, Y8–Y11
	VANDPD C_ABS(R8), Y0, Y2
	VANDPD C_ABS(R8), Y4, Y6
	VANDPD C_ABS(R8), Y8, Y10
	VMOVUPD C_MAX(R8), Y3
	VMOVUPD C_MAX(R8), Y7
	VMOVUPD C_MAX(R8), Y11
	VPCMPGTQ Y2, Y3, Y3
	VPCMPGTQ Y6, Y7, Y7
	VPCMPGTQ Y10, Y11, Y11
	VPAND Y3, Y15, Y15
	VPAND Y7, Y15, Y15
	VPAND Y11, Y15, Y15
	VMULPD C_INVPI(R8), Y0, Y0
	VMULPD C_INVPI(R8), Y4, Y4
	VMULPD C_INVPI(R8), Y8, Y8
	VADDPD C_HALF(R8), Y0, Y0
	VADDPD C_HALF(R8), Y4, Y4
	VADDPD C_HALF(R8), Y8, Y8
	VADDPD C_MAGIC(R8), Y0, Y1
	VADDPD C_MAGIC(R8), Y4, Y5
	VADDPD C_MAGIC(R8), Y8, Y9
	VSUBPD C_MAGIC(R8), Y1, Y2
	VSUBPD C_MAGIC(R8), Y5, Y6
	VSUBPD C_MAGIC(R8), Y9, Y10
	VSUBPD Y2, Y0, Y0
	VSUBPD Y6, Y4, Y4
	VSUBPD Y10, Y8, Y8
	VMULPD Y0, Y0, Y2
	VMULPD Y4, Y4, Y6
	VMULPD Y8, Y8, Y10
	VMULPD C_P7(R8), Y2, Y3
	VMULPD C_P7(R8), Y6, Y7
	VMULPD C_P7(R8), Y10, Y11
	VADDPD C_P6(R8), Y3, Y3
	VADDPD C_P6(R8), Y7, Y7
	VADDPD C_P6(R8), Y11, Y11
	VMULPD Y2, Y3, Y3
	VMULPD Y6, Y7, Y7
	VMULPD Y10, Y11, Y11
	VADDPD C_P5(R8), Y3, Y3
	VADDPD C_P5(R8), Y7, Y7
	VADDPD C_P5(R8), Y11, Y11
	VMULPD Y2, Y3, Y3
	VMULPD Y6, Y7, Y7
	VMULPD Y10, Y11, Y11
	VADDPD C_P4(R8), Y3, Y3
	VADDPD C_P4(R8), Y7, Y7
	VADDPD C_P4(R8), Y11, Y11
	VMULPD Y2, Y3, Y3
	VMULPD Y6, Y7, Y7
	VMULPD Y10, Y11, Y11
	VADDPD C_P3(R8), Y3, Y3
	VADDPD C_P3(R8), Y7, Y7
	VADDPD C_P3(R8), Y11, Y11
	VMULPD Y2, Y3, Y3
	VMULPD Y6, Y7, Y7
	VMULPD Y10, Y11, Y11
	VADDPD C_P2(R8), Y3, Y3
	VADDPD C_P2(R8), Y7, Y7
	VADDPD C_P2(R8), Y11, Y11
	VMULPD Y2, Y3, Y3
	VMULPD Y6, Y7, Y7
	VMULPD Y10, Y11, Y11
	VADDPD C_P1(R8), Y3, Y3
	VADDPD C_P1(R8), Y7, Y7
	VADDPD C_P1(R8), Y11, Y11
	VMULPD Y2, Y3, Y3
	VMULPD Y6, Y7, Y7
	VMULPD Y10, Y11, Y11
	VADDPD C_P0(R8), Y3, Y3
	VADDPD C_P0(R8), Y7, Y7
	VADDPD C_P0(R8), Y11, Y11
	VMULPD Y3, Y0, Y3
	VMULPD Y7, Y4, Y7
	VMULPD Y11, Y8, Y11
	VPSLLQ $63, Y1, Y1
	VPSLLQ $63, Y5, Y5
	VPSLLQ $63, Y9, Y9
	VXORPD Y1, Y3, Y3
	VXORPD Y5, Y7, Y7
	VXORPD Y9, Y11, Y11
	VMULPD Y14, Y3, Y3
	VMULPD Y14, Y7, Y7
	VMULPD Y14, Y11, Y11
	VMOVUPD Y3, (DI)(AX*1)
	VMOVUPD Y7, 32(DI)(AX*1)
	VMOVUPD Y11, 64(DI)(AX*1)
	ADDQ $96, AX
	JMP  block12

block:
	CMPQ AX, R10
	JGE  done
	VMOVUPD (BX)(AX*1), Y0      // z = b[j:j+4]
	LEAQ (SI)(AX*1), R11        // &omegaT[0*d + j]
	XORQ R12, R12

input:
	CMPQ R12, CX
	JGE  cosine
	VBROADCASTSD (DX)(R12*8), Y1
	VMULPD (R11), Y1, Y1        // ω_ij x_i
	VADDPD Y1, Y0, Y0           // z += ω_ij x_i
	ADDQ R9, R11
	INCQ R12
	JMP  input

cosine:
	VANDPD C_ABS(R8), Y0, Y2    // bits of |z|
	VMOVUPD C_MAX(R8), Y3
	VPCMPGTQ Y2, Y3, Y3         // |z| < 2^50 (not NaN, not Inf)
	VPAND Y3, Y15, Y15
	VMULPD C_INVPI(R8), Y0, Y0  // y = z·(1/π)
	VADDPD C_HALF(R8), Y0, Y0   // y += 1/2
	VADDPD C_MAGIC(R8), Y0, Y1  // t = y + magic
	VSUBPD C_MAGIC(R8), Y1, Y2  // t − magic
	VSUBPD Y2, Y0, Y2           // f = y − (t − magic)
	VMULPD Y2, Y2, Y3           // u = f²
	VMULPD C_P7(R8), Y3, Y4
	VADDPD C_P6(R8), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD C_P5(R8), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD C_P4(R8), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD C_P3(R8), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD C_P2(R8), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD C_P1(R8), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD C_P0(R8), Y4, Y4
	VMULPD Y4, Y2, Y4           // f·P(u)
	VPSLLQ $63, Y1, Y1          // parity of n into the sign bit
	VXORPD Y1, Y4, Y4
	VMULPD Y14, Y4, Y4          // scale·cos z
	VMOVUPD Y4, (DI)(AX*1)
	ADDQ $32, AX
	JMP  block

done:
	VMOVMSKPD Y15, AX
	CMPL AX, $15
	SETEQ ok+72(FP)
	VZEROUPPER
	RET

// func dot4x4AVX2(w0, w1, w2, w3, y *float64, n4 int, out *[16]float64)
TEXT ·dot4x4AVX2(SB), NOSPLIT, $0-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ y+32(FP), SI
	MOVQ n4+40(FP), CX
	MOVQ out+48(FP), DI
	SHLQ $3, CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  end
	VMOVUPD (SI)(AX*1), Y4
	VMULPD (R8)(AX*1), Y4, Y5
	VADDPD Y5, Y0, Y0
	VMULPD (R9)(AX*1), Y4, Y6
	VADDPD Y6, Y1, Y1
	VMULPD (R10)(AX*1), Y4, Y7
	VADDPD Y7, Y2, Y2
	VMULPD (R11)(AX*1), Y4, Y8
	VADDPD Y8, Y3, Y3
	ADDQ $32, AX
	JMP  loop

end:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET
