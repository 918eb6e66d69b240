//go:build !purego && !amd64.v3

#include "textflag.h"

// The AVX2 kernels of rff_amd64.go. They use separate multiplies and adds
// (no FMA), in the order of the scalar code, so that each lane rounds as
// the scalar loop does (see rff_amd64.go). Every function ends with
// VZEROUPPER: dirty upper halves of the vector registers slow down later
// SSE code (Go's scalar floating point) by a large factor.

// Offsets into rffConsts: each constant is stored four times (32 bytes).
#define C_INVPI  0
#define C_HALF   32
#define C_MAGIC  64
#define C_P7     96
#define C_P6     128
#define C_P5     160
#define C_P4     192
#define C_P3     224
#define C_P2     256
#define C_P1     288
#define C_P0     320

// func rffPhiAVX2(c *rffConsts, omegaT, bias, x *float64, nin, d, n4 int, scale float64, phi, w *float64, nrows int, part *float64)
//
// Two passes over phi[0:n4]. The first computes the arguments
// z_j = b_j + Σ_i ω_ij x_i, sixteen at a time, and reduces each to
// f' = (−1)^n f, y = z/π + 1/2 = n + f, storing f' in phi. The second
// evaluates cos z = f'·P(f'²), scaled, seven chains of two registers at a
// time (f' is read again from phi for the last multiply), so that the
// out-of-order core overlaps the chains of the Horner polynomial, and adds
// each group of cosines, while it is in registers, to the partial sums of
// every row of W (Dot4's lanes, in Dot4's order).
TEXT ·rffPhiAVX2(SB), NOSPLIT, $0-96
	MOVQ c+0(FP), R8
	MOVQ omegaT+8(FP), SI
	MOVQ bias+16(FP), BX
	MOVQ x+24(FP), DX
	MOVQ nin+32(FP), CX
	MOVQ d+40(FP), R9
	MOVQ n4+48(FP), R10
	MOVQ phi+64(FP), DI
	SHLQ $3, R9                 // row stride of omegaT and w in bytes
	SHLQ $3, R10                // end of the vector part in bytes
	XORQ AX, AX                 // byte offset of element j
args16:                             // f' for sixteen features at a time
	LEAQ 128(AX), R13
	CMPQ R13, R10
	JG   args4
	VMOVUPD (BX)(AX*1), Y0      // z = b[j:j+16]
	VMOVUPD 32(BX)(AX*1), Y1
	VMOVUPD 64(BX)(AX*1), Y2
	VMOVUPD 96(BX)(AX*1), Y3
	LEAQ (SI)(AX*1), R11        // &omegaT[0*d + j]
	XORQ R12, R12
in16:
	CMPQ R12, CX
	JGE  reduce16
	VBROADCASTSD (DX)(R12*8), Y12
	VMULPD 0(R11), Y12, Y4      // ω_ij x_i
	VADDPD Y4, Y0, Y0           // z += ω_ij x_i
	VMULPD 32(R11), Y12, Y5
	VADDPD Y5, Y1, Y1
	VMULPD 64(R11), Y12, Y6
	VADDPD Y6, Y2, Y2
	VMULPD 96(R11), Y12, Y7
	VADDPD Y7, Y3, Y3
	ADDQ R9, R11
	INCQ R12
	JMP  in16
reduce16:
	VMULPD C_INVPI(R8), Y0, Y0  // y = z·(1/π)
	VMULPD C_INVPI(R8), Y1, Y1
	VMULPD C_INVPI(R8), Y2, Y2
	VMULPD C_INVPI(R8), Y3, Y3
	VADDPD C_HALF(R8), Y0, Y0   // y += 1/2
	VADDPD C_HALF(R8), Y1, Y1
	VADDPD C_HALF(R8), Y2, Y2
	VADDPD C_HALF(R8), Y3, Y3
	VADDPD C_MAGIC(R8), Y0, Y4  // t = y + magic
	VADDPD C_MAGIC(R8), Y1, Y5
	VADDPD C_MAGIC(R8), Y2, Y6
	VADDPD C_MAGIC(R8), Y3, Y7
	VSUBPD C_MAGIC(R8), Y4, Y8  // t − magic
	VSUBPD C_MAGIC(R8), Y5, Y9
	VSUBPD C_MAGIC(R8), Y6, Y10
	VSUBPD C_MAGIC(R8), Y7, Y11
	VSUBPD Y8, Y0, Y0           // f = y − (t − magic)
	VSUBPD Y9, Y1, Y1
	VSUBPD Y10, Y2, Y2
	VSUBPD Y11, Y3, Y3
	VPSLLQ $63, Y4, Y4          // parity of n into the sign bit
	VPSLLQ $63, Y5, Y5
	VPSLLQ $63, Y6, Y6
	VPSLLQ $63, Y7, Y7
	VXORPD Y4, Y0, Y0           // f' = (−1)^n f
	VXORPD Y5, Y1, Y1
	VXORPD Y6, Y2, Y2
	VXORPD Y7, Y3, Y3
	VMOVUPD Y0, 0(DI)(AX*1)
	VMOVUPD Y1, 32(DI)(AX*1)
	VMOVUPD Y2, 64(DI)(AX*1)
	VMOVUPD Y3, 96(DI)(AX*1)
	ADDQ $128, AX
	JMP  args16
args4:
	CMPQ AX, R10
	JGE  cosines
	VMOVUPD (BX)(AX*1), Y0
	LEAQ (SI)(AX*1), R11
	XORQ R12, R12
in4:
	CMPQ R12, CX
	JGE  reduce4
	VBROADCASTSD (DX)(R12*8), Y12
	VMULPD (R11), Y12, Y4
	VADDPD Y4, Y0, Y0
	ADDQ R9, R11
	INCQ R12
	JMP  in4
reduce4:
	VMULPD C_INVPI(R8), Y0, Y0
	VADDPD C_HALF(R8), Y0, Y0
	VADDPD C_MAGIC(R8), Y0, Y4
	VSUBPD C_MAGIC(R8), Y4, Y8
	VSUBPD Y8, Y0, Y0
	VPSLLQ $63, Y4, Y4
	VXORPD Y4, Y0, Y0
	VMOVUPD Y0, 0(DI)(AX*1)
	ADDQ $32, AX
	JMP  args4
cosines:
	MOVQ w+72(FP), SI           // rows of W (omegaT, bias, x and nin are done with)
	MOVQ nrows+80(FP), CX
	MOVQ part+88(FP), BX        // four partial sums per row
	VBROADCASTSD scale+56(FP), Y14
	XORQ AX, AX
cos28:
	LEAQ 224(AX), R13
	CMPQ R13, R10
	JG   cos4
	VMOVUPD 0(DI)(AX*1), Y0     // f'
	VMOVUPD 32(DI)(AX*1), Y2
	VMOVUPD 64(DI)(AX*1), Y4
	VMOVUPD 96(DI)(AX*1), Y6
	VMOVUPD 128(DI)(AX*1), Y8
	VMOVUPD 160(DI)(AX*1), Y10
	VMOVUPD 192(DI)(AX*1), Y12
	VMULPD Y0, Y0, Y1           // u = f'² = f²
	VMULPD Y2, Y2, Y3
	VMULPD Y4, Y4, Y5
	VMULPD Y6, Y6, Y7
	VMULPD Y8, Y8, Y9
	VMULPD Y10, Y10, Y11
	VMULPD Y12, Y12, Y13
	VMULPD C_P7(R8), Y1, Y0     // P(u) by Horner
	VMULPD C_P7(R8), Y3, Y2
	VMULPD C_P7(R8), Y5, Y4
	VMULPD C_P7(R8), Y7, Y6
	VMULPD C_P7(R8), Y9, Y8
	VMULPD C_P7(R8), Y11, Y10
	VMULPD C_P7(R8), Y13, Y12
	VADDPD C_P6(R8), Y0, Y0
	VADDPD C_P6(R8), Y2, Y2
	VADDPD C_P6(R8), Y4, Y4
	VADDPD C_P6(R8), Y6, Y6
	VADDPD C_P6(R8), Y8, Y8
	VADDPD C_P6(R8), Y10, Y10
	VADDPD C_P6(R8), Y12, Y12
	VMULPD Y1, Y0, Y0
	VMULPD Y3, Y2, Y2
	VMULPD Y5, Y4, Y4
	VMULPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VMULPD Y11, Y10, Y10
	VMULPD Y13, Y12, Y12
	VADDPD C_P5(R8), Y0, Y0
	VADDPD C_P5(R8), Y2, Y2
	VADDPD C_P5(R8), Y4, Y4
	VADDPD C_P5(R8), Y6, Y6
	VADDPD C_P5(R8), Y8, Y8
	VADDPD C_P5(R8), Y10, Y10
	VADDPD C_P5(R8), Y12, Y12
	VMULPD Y1, Y0, Y0
	VMULPD Y3, Y2, Y2
	VMULPD Y5, Y4, Y4
	VMULPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VMULPD Y11, Y10, Y10
	VMULPD Y13, Y12, Y12
	VADDPD C_P4(R8), Y0, Y0
	VADDPD C_P4(R8), Y2, Y2
	VADDPD C_P4(R8), Y4, Y4
	VADDPD C_P4(R8), Y6, Y6
	VADDPD C_P4(R8), Y8, Y8
	VADDPD C_P4(R8), Y10, Y10
	VADDPD C_P4(R8), Y12, Y12
	VMULPD Y1, Y0, Y0
	VMULPD Y3, Y2, Y2
	VMULPD Y5, Y4, Y4
	VMULPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VMULPD Y11, Y10, Y10
	VMULPD Y13, Y12, Y12
	VADDPD C_P3(R8), Y0, Y0
	VADDPD C_P3(R8), Y2, Y2
	VADDPD C_P3(R8), Y4, Y4
	VADDPD C_P3(R8), Y6, Y6
	VADDPD C_P3(R8), Y8, Y8
	VADDPD C_P3(R8), Y10, Y10
	VADDPD C_P3(R8), Y12, Y12
	VMULPD Y1, Y0, Y0
	VMULPD Y3, Y2, Y2
	VMULPD Y5, Y4, Y4
	VMULPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VMULPD Y11, Y10, Y10
	VMULPD Y13, Y12, Y12
	VADDPD C_P2(R8), Y0, Y0
	VADDPD C_P2(R8), Y2, Y2
	VADDPD C_P2(R8), Y4, Y4
	VADDPD C_P2(R8), Y6, Y6
	VADDPD C_P2(R8), Y8, Y8
	VADDPD C_P2(R8), Y10, Y10
	VADDPD C_P2(R8), Y12, Y12
	VMULPD Y1, Y0, Y0
	VMULPD Y3, Y2, Y2
	VMULPD Y5, Y4, Y4
	VMULPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VMULPD Y11, Y10, Y10
	VMULPD Y13, Y12, Y12
	VADDPD C_P1(R8), Y0, Y0
	VADDPD C_P1(R8), Y2, Y2
	VADDPD C_P1(R8), Y4, Y4
	VADDPD C_P1(R8), Y6, Y6
	VADDPD C_P1(R8), Y8, Y8
	VADDPD C_P1(R8), Y10, Y10
	VADDPD C_P1(R8), Y12, Y12
	VMULPD Y1, Y0, Y0
	VMULPD Y3, Y2, Y2
	VMULPD Y5, Y4, Y4
	VMULPD Y7, Y6, Y6
	VMULPD Y9, Y8, Y8
	VMULPD Y11, Y10, Y10
	VMULPD Y13, Y12, Y12
	VADDPD C_P0(R8), Y0, Y0
	VADDPD C_P0(R8), Y2, Y2
	VADDPD C_P0(R8), Y4, Y4
	VADDPD C_P0(R8), Y6, Y6
	VADDPD C_P0(R8), Y8, Y8
	VADDPD C_P0(R8), Y10, Y10
	VADDPD C_P0(R8), Y12, Y12
	VMULPD 0(DI)(AX*1), Y0, Y0  // f'·P(u) = (−1)^n f·P(u) = cos z
	VMULPD 32(DI)(AX*1), Y2, Y2
	VMULPD 64(DI)(AX*1), Y4, Y4
	VMULPD 96(DI)(AX*1), Y6, Y6
	VMULPD 128(DI)(AX*1), Y8, Y8
	VMULPD 160(DI)(AX*1), Y10, Y10
	VMULPD 192(DI)(AX*1), Y12, Y12
	VMULPD Y14, Y0, Y0          // scale·cos z
	VMULPD Y14, Y2, Y2
	VMULPD Y14, Y4, Y4
	VMULPD Y14, Y6, Y6
	VMULPD Y14, Y8, Y8
	VMULPD Y14, Y10, Y10
	VMULPD Y14, Y12, Y12
	VMOVUPD Y0, 0(DI)(AX*1)
	VMOVUPD Y2, 32(DI)(AX*1)
	VMOVUPD Y4, 64(DI)(AX*1)
	VMOVUPD Y6, 96(DI)(AX*1)
	VMOVUPD Y8, 128(DI)(AX*1)
	VMOVUPD Y10, 160(DI)(AX*1)
	VMOVUPD Y12, 192(DI)(AX*1)
	MOVQ SI, R11                // &w[k*d], k = 0
	MOVQ BX, R13                // &part[4k]
	MOVQ CX, R12                // rows left
cos28rows:
	TESTQ R12, R12
	JZ   cos28next
	VMOVUPD (R13), Y1
	VMULPD 0(R11)(AX*1), Y0, Y15// w_kj φ_j
	VADDPD Y15, Y1, Y1          // the lanes' partial sums of Dot4
	VMULPD 32(R11)(AX*1), Y2, Y15
	VADDPD Y15, Y1, Y1
	VMULPD 64(R11)(AX*1), Y4, Y15
	VADDPD Y15, Y1, Y1
	VMULPD 96(R11)(AX*1), Y6, Y15
	VADDPD Y15, Y1, Y1
	VMULPD 128(R11)(AX*1), Y8, Y15
	VADDPD Y15, Y1, Y1
	VMULPD 160(R11)(AX*1), Y10, Y15
	VADDPD Y15, Y1, Y1
	VMULPD 192(R11)(AX*1), Y12, Y15
	VADDPD Y15, Y1, Y1
	VMOVUPD Y1, (R13)
	ADDQ R9, R11
	ADDQ $32, R13
	DECQ R12
	JMP  cos28rows
cos28next:
	ADDQ $224, AX
	JMP  cos28
cos4:
	CMPQ AX, R10
	JGE  done
	VMOVUPD 0(DI)(AX*1), Y0
	VMULPD Y0, Y0, Y1
	VMULPD C_P7(R8), Y1, Y0
	VADDPD C_P6(R8), Y0, Y0
	VMULPD Y1, Y0, Y0
	VADDPD C_P5(R8), Y0, Y0
	VMULPD Y1, Y0, Y0
	VADDPD C_P4(R8), Y0, Y0
	VMULPD Y1, Y0, Y0
	VADDPD C_P3(R8), Y0, Y0
	VMULPD Y1, Y0, Y0
	VADDPD C_P2(R8), Y0, Y0
	VMULPD Y1, Y0, Y0
	VADDPD C_P1(R8), Y0, Y0
	VMULPD Y1, Y0, Y0
	VADDPD C_P0(R8), Y0, Y0
	VMULPD 0(DI)(AX*1), Y0, Y0
	VMULPD Y14, Y0, Y0
	VMOVUPD Y0, 0(DI)(AX*1)
	MOVQ SI, R11                // &w[k*d], k = 0
	MOVQ BX, R13                // &part[4k]
	MOVQ CX, R12                // rows left
cos4rows:
	TESTQ R12, R12
	JZ   cos4next
	VMOVUPD (R13), Y1
	VMULPD 0(R11)(AX*1), Y0, Y15// w_kj φ_j
	VADDPD Y15, Y1, Y1          // the lanes' partial sums of Dot4
	VMOVUPD Y1, (R13)
	ADDQ R9, R11
	ADDQ $32, R13
	DECQ R12
	JMP  cos4rows
cos4next:
	ADDQ $32, AX
	JMP  cos4
done:
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
