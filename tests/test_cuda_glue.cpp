// The host-side logic of the CUDA library glue, checked without a GPU (nothing here calls the CUDA runtime): how
// matmul operands become cuBLAS calls (blas_glue.h), convolutions cuDNN descriptors and cache keys (conv_glue.h),
// the pooling windows of the CUDA kernels (pool_glue.h), against hand-worked cases and brute force, and the NCCL
// backend's element types and reductions (nccl_glue.h).
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/conv_glue.h"
#include "ember/backend/cuda/nccl_glue.h"
#include "ember/backend/cuda/pool_glue.h"
#include "ember/backend/kernels/nn/conv.h"
#include "ember/backend/kernels/nn/pooling.h"

using namespace ember;
using namespace ember::cuda;

namespace {

using V = std::vector<int64_t>;
using VI = std::vector<int>;

// ---- cuBLAS (Note [Row-major products on cuBLAS])

TEST(CudaGlueGemm, RowMajorOperandsNeedNoTranspose) {
  GemmPlan p;
  ASSERT_TRUE(plan_gemm(V{2, 3}, V{4, 1}, V{3, 1}, 4, p));
  EXPECT_FALSE(p.trans_a);
  EXPECT_FALSE(p.trans_b);
  EXPECT_EQ(p.m, 3);  // cuBLAS computes out^T [3, 2] = b^T a^T
  EXPECT_EQ(p.n, 2);
  EXPECT_EQ(p.k, 4);
  EXPECT_EQ(p.lda, 3);  // b's row stride
  EXPECT_EQ(p.ldb, 4);  // a's row stride
  EXPECT_EQ(p.ldc, 3);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.calls(), 1);
  EXPECT_EQ(p.stride_c, 6);
}

TEST(CudaGlueGemm, TransposedViewsBecomeTransposeFlags) {
  GemmPlan p;
  // a = x.t() for x [4, 2] contiguous: sizes [2, 4], strides [1, 2]; b = y.t() for y [3, 4]: strides [1, 4].
  ASSERT_TRUE(plan_gemm(V{2, 3}, V{1, 2}, V{1, 4}, 4, p));
  EXPECT_TRUE(p.trans_b);  // ember's a
  EXPECT_EQ(p.ldb, 2);
  EXPECT_TRUE(p.trans_a);  // ember's b
  EXPECT_EQ(p.lda, 4);
}

TEST(CudaGlueGemm, PaddedRowsKeepTheirLeadingDimension) {
  GemmPlan p;
  // a is a column slice of a [2, 10] matrix: sizes [2, 4], strides [10, 1].
  ASSERT_TRUE(plan_gemm(V{2, 3}, V{10, 1}, V{3, 1}, 4, p));
  EXPECT_FALSE(p.trans_b);
  EXPECT_EQ(p.ldb, 10);
}

TEST(CudaGlueGemm, VectorShapes) {
  GemmPlan p;
  // [1, 4] @ [4, 1]: a row and a column; any strides along the unit dims.
  ASSERT_TRUE(plan_gemm(V{1, 1}, V{7, 1}, V{1, 9}, 4, p));
  EXPECT_EQ(p.m, 1);
  EXPECT_EQ(p.n, 1);
  EXPECT_GE(p.lda, 1);
  EXPECT_GE(p.ldb, 4);  // cuBLAS's B (a) is k x n column-major: ld >= k
  EXPECT_FALSE(p.trans_b);
  EXPECT_FALSE(p.trans_a);
}

TEST(CudaGlueGemm, ConjugateOperandsTakeTheColumnMajorReading) {
  // A unit dim makes a matrix both row- and column-major; one with the conjugate bit takes the column-major reading,
  // as cuBLAS conjugates only a transposed operand (CUBLAS_OP_C). a = x.mH for x [4, 1]: sizes [1, 4], strides [1, 1].
  GemmPlan p;
  ASSERT_TRUE(plan_gemm(V{1, 3}, V{1, 1}, V{3, 1}, 4, p));
  EXPECT_FALSE(p.trans_b);  // without the bit: row-major
  EXPECT_EQ(p.ldb, 4);
  ASSERT_TRUE(plan_gemm(V{1, 3}, V{1, 1}, V{3, 1}, 4, p, nullptr, /*conj_a=*/true));
  EXPECT_TRUE(p.trans_b);
  EXPECT_EQ(p.ldb, 1);      // cuBLAS's B is ember's a stored [1, 4] column-major
  EXPECT_FALSE(p.trans_a);  // b has no bit
  // b a column [4, 1] (strides [1, 1]) with the bit: column-major, leading dim k.
  ASSERT_TRUE(plan_gemm(V{2, 1}, V{4, 1}, V{1, 1}, 4, p, nullptr, false, /*conj_b=*/true));
  EXPECT_TRUE(p.trans_a);
  EXPECT_EQ(p.lda, 4);
  // A full row-major matrix with the bit has no column-major reading: the plan keeps it row-major (the kernel
  // resolves it), and a transposed view with the bit keeps its transpose flag.
  ASSERT_TRUE(plan_gemm(V{2, 3}, V{4, 1}, V{1, 4}, 4, p, nullptr, true, true));
  EXPECT_FALSE(p.trans_b);
  EXPECT_TRUE(p.trans_a);
  EXPECT_EQ(p.lda, 4);
}

TEST(CudaGlueGemm, BroadcastBatchIsStrideZero) {
  GemmPlan p;
  ASSERT_TRUE(plan_gemm(V{5, 2, 3}, V{8, 4, 1}, V{0, 3, 1}, 4, p));
  EXPECT_EQ(p.batch, 5);
  EXPECT_EQ(p.stride_a, 0);  // ember's b, broadcast
  EXPECT_EQ(p.stride_b, 8);  // ember's a
  EXPECT_EQ(p.stride_c, 6);
  EXPECT_EQ(p.calls(), 1);
}

TEST(CudaGlueGemm, MergeableBatchDimsAreOneCall) {
  GemmPlan p;
  ASSERT_TRUE(plan_gemm(V{2, 5, 2, 3}, V{40, 8, 4, 1}, V{0, 0, 3, 1}, 4, p));
  EXPECT_EQ(p.batch, 10);
  EXPECT_EQ(p.stride_b, 8);
  EXPECT_EQ(p.stride_a, 0);
  EXPECT_EQ(p.stride_c, 6);
  EXPECT_EQ(p.calls(), 1);
}

TEST(CudaGlueGemm, UnmergeableBatchDimsLoopOnTheHost) {
  GemmPlan p;
  // a's batch dims swapped (a permuted view): sizes [2, 5, 2, 4], strides [8, 16, 4, 1]; b contiguous.
  ASSERT_TRUE(plan_gemm(V{2, 5, 2, 3}, V{8, 16, 4, 1}, V{60, 12, 3, 1}, 4, p));
  EXPECT_EQ(p.batch, 5);
  EXPECT_EQ(p.stride_a, 12);
  EXPECT_EQ(p.stride_b, 16);
  EXPECT_EQ(p.stride_c, 6);
  ASSERT_EQ(p.calls(), 2);
  EXPECT_EQ(p.loop_sizes, V{2});
  int64_t oa, ob, oc;
  p.call_offsets(1, oa, ob, oc);
  EXPECT_EQ(oa, 60);
  EXPECT_EQ(ob, 8);
  EXPECT_EQ(oc, 30);
}

TEST(CudaGlueGemm, UnitBatchDimsAreIgnored) {
  GemmPlan p;
  ASSERT_TRUE(plan_gemm(V{1, 3, 1, 2, 3}, V{999, 8, 77, 4, 1}, V{5, 12, 3, 3, 1}, 4, p));
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.stride_b, 8);
  EXPECT_EQ(p.stride_a, 12);
  EXPECT_EQ(p.stride_c, 6);
  EXPECT_EQ(p.calls(), 1);
}

TEST(CudaGlueGemm, RefusesStridedMatrices) {
  GemmPlan p;
  std::string why;
  EXPECT_FALSE(plan_gemm(V{2, 3}, V{8, 2}, V{3, 1}, 4, p, &why));
  EXPECT_NE(why.find("a's matrices"), std::string::npos) << why;
  EXPECT_FALSE(plan_gemm(V{2, 3}, V{4, 1}, V{6, 2}, 4, p, &why));
  EXPECT_NE(why.find("b's matrices"), std::string::npos) << why;
}

TEST(CudaGlueGemm, DimsStr) { EXPECT_EQ(dims_str(V{2, 3, 4}), "[2, 3, 4]"); }

// cuBLASLt's layouts: each stored matrix (rows, cols) column-major with ld >= rows, and op(A) [m, k] @ op(B) [k, n].
TEST(CudaGlueGemm, LtLayoutsOfRowMajorOperands) {
  GemmPlan p;
  ASSERT_TRUE(plan_gemm(V{2, 3}, V{4, 1}, V{3, 1}, 4, p));  // a [2, 4] @ b [4, 3], both row-major
  const LtShapes s = lt_shapes(p);
  EXPECT_EQ((V{s.a.rows, s.a.cols, s.a.ld}), (V{3, 4, 3}));  // b seen column-major: b^T [3, 4]
  EXPECT_EQ((V{s.b.rows, s.b.cols, s.b.ld}), (V{4, 2, 4}));  // a^T [4, 2]
  EXPECT_EQ((V{s.c.rows, s.c.cols, s.c.ld}), (V{3, 2, 3}));  // out^T [3, 2]: the bias runs along its rows
}

TEST(CudaGlueGemm, LtLayoutsOfTransposedOperands) {
  GemmPlan p;
  // linear's weight.t(): b [4, 3] with strides [1, 4] (w [3, 4] contiguous); a = x.t() [2, 4], strides [1, 2].
  ASSERT_TRUE(plan_gemm(V{2, 3}, V{1, 2}, V{1, 4}, 4, p));
  const LtShapes s = lt_shapes(p);
  EXPECT_EQ((V{s.a.rows, s.a.cols, s.a.ld}), (V{4, 3, 4}));  // w^T stored [4, 3] column-major = w row-major
  EXPECT_EQ((V{s.b.rows, s.b.cols, s.b.ld}), (V{2, 4, 2}));  // x [4, 2] row-major = [2, 4] column-major
  EXPECT_EQ((V{s.c.rows, s.c.cols, s.c.ld}), (V{3, 2, 3}));
  for (const LtLayout& l : {s.a, s.b, s.c}) EXPECT_GE(l.ld, l.rows);
}

TEST(CudaGlueGemm, LtAlignmentIsTheLargestPowerOfTwoUpTo256) {
  EXPECT_EQ(lt_alignment(0x7f0000000000), 256u);
  EXPECT_EQ(lt_alignment(0x7f0000000200 + 4), 4u);  // a float32 view one element in
  EXPECT_EQ(lt_alignment(0x7f0000000200 + 2), 2u);  // a 16-bit view one element in
  EXPECT_EQ(lt_alignment(0x7f0000000200 + 48), 16u);
  EXPECT_EQ(lt_alignment(0x7f0000000200 + 128), 128u);
}

// ---- cuDNN (Note [Convolutions on cuDNN])

ConvGeometry geometry(V stride, V pad_l, V pad_r, V dilation, int64_t groups = 1) {
  ConvGeometry g;
  g.stride = DimVector(IntArrayRef(stride));
  g.pad_l = DimVector(IntArrayRef(pad_l));
  g.pad_r = DimVector(IntArrayRef(pad_r));
  g.dilation = DimVector(IntArrayRef(dilation));
  g.crop = DimVector(stride.size(), 0);
  g.groups = groups;
  return g;
}

TEST(CudaGlueConv, TwoDimensional) {
  ConvPlan p;
  ASSERT_TRUE(plan_conv(V{2, 3, 8, 8}, V{4, 3, 3, 3}, V{2, 4, 8, 8}, geometry({1, 1}, {1, 1}, {1, 1}, {1, 1}), p));
  EXPECT_EQ(p.nd, 4);
  EXPECT_EQ(p.x_dims, (VI{2, 3, 8, 8}));
  EXPECT_EQ(p.x_strides, (VI{192, 64, 8, 1}));
  EXPECT_EQ(p.w_dims, (VI{4, 3, 3, 3}));
  EXPECT_EQ(p.y_dims, (VI{2, 4, 8, 8}));
  EXPECT_EQ(p.y_strides, (VI{256, 64, 8, 1}));
  EXPECT_EQ(p.pad, (VI{1, 1}));
  EXPECT_EQ(p.stride, (VI{1, 1}));
  EXPECT_EQ(p.dilation, (VI{1, 1}));
  EXPECT_FALSE(p.explicit_pad);
  EXPECT_EQ(p.batch, 2);
  EXPECT_EQ(p.batch_chunk, 2);
  EXPECT_EQ(cudnn_out_size(8, 3, 1, 1, 1), 8);
}

TEST(CudaGlueConv, OneDimensionalGetsAUnitDim) {
  ConvPlan p;
  // groups 3, stride 2: out = (10 - 3) / 2 + 1 = 4.
  ASSERT_TRUE(plan_conv(V{2, 3, 10}, V{6, 1, 3}, V{2, 6, 4}, geometry({2}, {0}, {0}, {1}, 3), p));
  EXPECT_EQ(p.nd, 4);
  EXPECT_EQ(p.x_dims, (VI{2, 3, 1, 10}));
  EXPECT_EQ(p.x_strides, (VI{30, 10, 10, 1}));
  EXPECT_EQ(p.w_dims, (VI{6, 1, 1, 3}));
  EXPECT_EQ(p.y_dims, (VI{2, 6, 1, 4}));
  EXPECT_EQ(p.pad, (VI{0, 0}));
  EXPECT_EQ(p.stride, (VI{1, 2}));
  EXPECT_EQ(p.dilation, (VI{1, 1}));
  EXPECT_EQ(p.groups, 3);
}

TEST(CudaGlueConv, ThreeDimensional) {
  ConvPlan p;
  ASSERT_TRUE(plan_conv(V{1, 2, 4, 5, 6}, V{3, 2, 1, 2, 3}, V{1, 3, 4, 2, 1},
                        geometry({1, 2, 2}, {0, 0, 0}, {0, 0, 0}, {1, 1, 2}), p));
  EXPECT_EQ(p.nd, 5);
  EXPECT_EQ(p.x_dims, (VI{1, 2, 4, 5, 6}));
  EXPECT_EQ(p.stride, (VI{1, 2, 2}));
  EXPECT_EQ(p.dilation, (VI{1, 1, 2}));
  EXPECT_EQ(cudnn_out_size(5, 2, 0, 2, 1), 2);
  EXPECT_EQ(cudnn_out_size(6, 3, 0, 2, 2), 1);
}

TEST(CudaGlueConv, AsymmetricPaddingIsPartlyExplicit) {
  ConvPlan p;
  // padding "same" with an even kernel: 4 taps over 8 positions pad 1 in front and 2 behind.
  ASSERT_TRUE(plan_conv(V{1, 1, 8, 8}, V{1, 1, 4, 3}, V{1, 1, 8, 8}, geometry({1, 1}, {1, 1}, {2, 1}, {1, 1}), p));
  EXPECT_TRUE(p.explicit_pad);
  EXPECT_EQ(p.pad, (VI{1, 1}));
  EXPECT_EQ(p.extra_l, (V{0, 0}));
  EXPECT_EQ(p.extra_r, (V{1, 0}));
  EXPECT_EQ(p.padded_sizes, (V{1, 1, 9, 8}));
  EXPECT_EQ(p.x_dims, (VI{1, 1, 9, 8}));
  EXPECT_EQ(cudnn_out_size(9, 4, 1, 1, 1), 8);
  // More in front than behind: the front's excess is explicit.
  ASSERT_TRUE(plan_conv(V{1, 1, 8}, V{1, 1, 3}, V{1, 1, 9}, geometry({1}, {2}, {1}, {1}), p));
  EXPECT_EQ(p.pad, (VI{0, 1}));
  EXPECT_EQ(p.extra_l, V{1});
  EXPECT_EQ(p.extra_r, V{0});
  EXPECT_EQ(cudnn_out_size(9, 3, 1, 1, 1), 9);
}

TEST(CudaGlueConv, LargeBatchesAreSplitIntoChunksCuDnnCanIndex) {
  ConvPlan p;
  // 2^22 elements per sample: at most INT_MAX / 2^22 = 511 samples per call.
  ASSERT_TRUE(plan_conv(V{1000, 1, 2048, 2048}, V{1, 1, 1, 1}, V{1000, 1, 2048, 2048},
                        geometry({1, 1}, {0, 0}, {0, 0}, {1, 1}), p));
  EXPECT_EQ(p.batch, 1000);
  EXPECT_EQ(p.batch_chunk, 511);
  EXPECT_EQ(p.x_dims[0], 511);
  std::string why;
  EXPECT_FALSE(plan_conv(V{1, 1, 65536, 65536}, V{1, 1, 1, 1}, V{1, 1, 65536, 65536},
                         geometry({1, 1}, {0, 0}, {0, 0}, {1, 1}), p, &why));
  EXPECT_NE(why.find("INT_MAX"), std::string::npos) << why;
}

TEST(CudaGlueConv, CacheKeySeparatesPassesDtypesAndFlags) {
  ConvPlan p, q;
  const ConvGeometry g = geometry({1, 1}, {1, 1}, {1, 1}, {1, 1});
  ASSERT_TRUE(plan_conv(V{2, 3, 8, 8}, V{4, 3, 3, 3}, V{2, 4, 8, 8}, g, p));
  ASSERT_TRUE(plan_conv(V{2, 3, 8, 8}, V{4, 3, 3, 3}, V{2, 4, 8, 8}, g, q));
  const auto base = conv_cache_key(p, ConvPass::Forward, 8, 0, false, true, false);
  EXPECT_EQ(base, conv_cache_key(q, ConvPass::Forward, 8, 0, false, true, false));
  EXPECT_NE(base, conv_cache_key(p, ConvPass::BackwardData, 8, 0, false, true, false));
  EXPECT_NE(base, conv_cache_key(p, ConvPass::Forward, 9, 0, false, true, false));
  EXPECT_NE(base, conv_cache_key(p, ConvPass::Forward, 8, 1, false, true, false));
  EXPECT_NE(base, conv_cache_key(p, ConvPass::Forward, 8, 0, true, true, false));
  EXPECT_NE(base, conv_cache_key(p, ConvPass::Forward, 8, 0, false, false, false));
  EXPECT_NE(base, conv_cache_key(p, ConvPass::Forward, 8, 0, false, true, true));
  // Another stride, dilation or group count is another key.
  ASSERT_TRUE(plan_conv(V{2, 3, 8, 8}, V{4, 3, 3, 3}, V{2, 4, 4, 4}, geometry({2, 2}, {1, 1}, {1, 1}, {1, 1}), q));
  EXPECT_NE(base, conv_cache_key(q, ConvPass::Forward, 8, 0, false, true, false));
  ASSERT_TRUE(plan_conv(V{2, 3, 8, 8}, V{3, 1, 3, 3}, V{2, 3, 8, 8}, geometry({1, 1}, {1, 1}, {1, 1}, {1, 1}, 3), q));
  EXPECT_NE(base, conv_cache_key(q, ConvPass::Forward, 8, 0, false, true, false));
}

TEST(CudaGlueConv, RefusesInconsistentGeometry) {
  ConvPlan p;
  std::string why;
  EXPECT_FALSE(plan_conv(V{2, 3, 8}, V{4, 3, 3, 3}, V{2, 4, 8, 8}, geometry({1, 1}, {1, 1}, {1, 1}, {1, 1}), p, &why));
  EXPECT_FALSE(why.empty());
}

// ---- pooling windows (the CPU's rules, backend/cpu/pool.cpp)

PoolGeometry pool(V in, V out, V k, V s, V pad, V dil, bool include_pad = true, int64_t divisor = 0) {
  PoolGeometry g;
  g.in = DimVector(IntArrayRef(in));
  g.out = DimVector(IntArrayRef(out));
  g.kernel = DimVector(IntArrayRef(k));
  g.stride = DimVector(IntArrayRef(s));
  g.padding = DimVector(IntArrayRef(pad));
  g.dilation = DimVector(IntArrayRef(dil));
  g.count_include_pad = include_pad;
  g.divisor_override = divisor;
  return g;
}

void expect_span(const PoolSpan& s, int64_t first, int64_t count, int64_t step, int64_t div) {
  EXPECT_EQ(s.first, first);
  EXPECT_EQ(s.count, count);
  EXPECT_EQ(s.step, step);
  EXPECT_EQ(s.div, div);
}

TEST(CudaGluePool, ParamsArePaddedToThreeDims) {
  const PoolParams p = make_pool_params(pool({5}, {3}, {2}, {2}, {0}, {1}));
  EXPECT_EQ(p.in[0], 1);
  EXPECT_EQ(p.in[1], 1);
  EXPECT_EQ(p.in[2], 5);
  EXPECT_EQ(p.out[2], 3);
  EXPECT_EQ(p.k[0], 1);
  EXPECT_EQ(p.k[2], 2);
  EXPECT_EQ(p.in_n, 5);
  EXPECT_EQ(p.out_n, 3);
  expect_span(pool_span(p, 0, 0), 0, 1, 1, 1);  // the padding dims read their one position
}

TEST(CudaGluePool, CeilModeOverhangIsNotCounted) {
  // in 5, kernel 2, stride 2, ceil_mode: 3 outputs; the last window holds one element and divides by 1.
  const PoolParams p = make_pool_params(pool({5}, {3}, {2}, {2}, {0}, {1}));
  expect_span(pool_span(p, 2, 0), 0, 2, 1, 2);
  expect_span(pool_span(p, 2, 2), 4, 1, 1, 1);
}

TEST(CudaGluePool, PaddingAndCountIncludePad) {
  // in 5, kernel 3, stride 2, padding 1: windows [-1, 1], [1, 3], [3, 5].
  PoolParams p = make_pool_params(pool({5}, {3}, {3}, {2}, {1}, {1}));
  expect_span(pool_span(p, 2, 0), 0, 2, 1, 3);
  expect_span(pool_span(p, 2, 1), 1, 3, 1, 3);
  expect_span(pool_span(p, 2, 2), 3, 2, 1, 3);
  p = make_pool_params(pool({5}, {3}, {3}, {2}, {1}, {1}, /*include_pad=*/false));
  expect_span(pool_span(p, 2, 0), 0, 2, 1, 2);
  expect_span(pool_span(p, 2, 2), 3, 2, 1, 2);
}

TEST(CudaGluePool, Dilation) {
  // in 7, kernel 3, dilation 2: output 0 reads 0, 2, 4; with padding 2 output 0 reads 0, 2 (tap -2 is padding;
  // the divisor counts the kernel's taps, as the CPU's).
  PoolParams p = make_pool_params(pool({7}, {3}, {3}, {1}, {0}, {2}));
  expect_span(pool_span(p, 2, 0), 0, 3, 2, 3);
  p = make_pool_params(pool({7}, {7}, {3}, {1}, {2}, {2}));
  expect_span(pool_span(p, 2, 0), 0, 2, 2, 3);
}

TEST(CudaGluePool, Adaptive) {
  PoolGeometry g;
  g.in = {5};
  g.out = {3};
  const PoolParams p = make_pool_params(g);
  ASSERT_TRUE(p.adaptive);
  expect_span(pool_span(p, 2, 0), 0, 2, 1, 2);  // [0, ceil(5/3)) = [0, 2)
  expect_span(pool_span(p, 2, 1), 1, 3, 1, 3);  // [1, 4)
  expect_span(pool_span(p, 2, 2), 3, 2, 1, 2);  // [3, 5)
}

TEST(CudaGluePool, SpanContains) {
  const PoolSpan s{1, 3, 2, 3};  // 1, 3, 5
  EXPECT_FALSE(span_contains(s, 0));
  EXPECT_TRUE(span_contains(s, 1));
  EXPECT_FALSE(span_contains(s, 2));
  EXPECT_TRUE(span_contains(s, 5));
  EXPECT_FALSE(span_contains(s, 7));
  EXPECT_FALSE(span_contains(PoolSpan{2, 0, 1, 0}, 2));
  EXPECT_EQ(floor_div(-3, 2), -2);
  EXPECT_EQ(floor_div(3, 2), 1);
  EXPECT_EQ(floor_div(-4, 2), -2);
}

TEST(CudaGluePool, CoveringOutputsHandWorked) {
  // in 5, kernel 3, stride 2, padding 1: input 1 is read by outputs 0 and 1, input 2 by output 1 alone.
  const PoolParams p = make_pool_params(pool({5}, {3}, {3}, {2}, {1}, {1}));
  int64_t lo, hi;
  covering_outputs(p, 2, 1, lo, hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 2);
  covering_outputs(p, 2, 2, lo, hi);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 2);
  covering_outputs(p, 2, 4, lo, hi);
  EXPECT_EQ(lo, 2);
  EXPECT_EQ(hi, 3);
}

// The gather of avg_pool_backward must visit exactly the outputs whose window reads each input.
void expect_cover_matches_brute_force(const PoolParams& p, int d) {
  for (int64_t i = 0; i < p.in[d]; ++i) {
    int64_t lo, hi;
    covering_outputs(p, d, i, lo, hi);
    for (int64_t o = 0; o < p.out[d]; ++o) {
      const bool reads = span_contains(pool_span(p, d, o), i);
      if (reads) EXPECT_TRUE(o >= lo && o < hi) << "input " << i << " output " << o;
    }
  }
}

TEST(CudaGluePool, CoveringOutputsAgreeWithBruteForce) {
  for (int64_t in : {1, 5, 7, 10})
    for (int64_t k : {1, 2, 3})
      for (int64_t s : {1, 2, 3})
        for (int64_t pad = 0; pad <= k / 2; ++pad)
          for (int64_t dil : {1, 2}) {
            const int64_t span = dil * (k - 1) + 1;
            if (in + 2 * pad < span) continue;
            for (bool ceil_mode : {false, true}) {
              int64_t out = (in + 2 * pad - span + (ceil_mode ? s - 1 : 0)) / s + 1;
              if (ceil_mode && (out - 1) * s >= in + pad) --out;
              expect_cover_matches_brute_force(make_pool_params(pool({in}, {out}, {k}, {s}, {pad}, {dil})), 2);
            }
          }
  for (int64_t in : {1, 4, 5, 7, 13})
    for (int64_t out : {1, 2, 3, 5, 8}) {
      PoolGeometry g;
      g.in = {in};
      g.out = {out};
      expect_cover_matches_brute_force(make_pool_params(g), 2);
    }
}

// ---- NCCL (backend/cuda/process_group_nccl.cpp)

TEST(CudaGlueNccl, ReductionTypesAndOps) {
  using namespace nccl_glue;
  using RO = distributed::ReduceOp;
  EXPECT_EQ(reduction_type("all_reduce", ScalarType::BFloat16), Bfloat16);
  EXPECT_EQ(reduction_type("all_reduce", ScalarType::Bool), Uint8);
  EXPECT_EQ(reduction_type("all_reduce", ScalarType::Int64), Int64);
  EXPECT_THROW(reduction_type("all_reduce", ScalarType::Int16), TypeError);  // NCCL has no 16-bit integers
  EXPECT_EQ(reduction_op("all_reduce", RO::SUM, ScalarType::Float32), Sum);
  EXPECT_EQ(reduction_op("all_reduce", RO::SUM, ScalarType::Bool), Max);
  EXPECT_EQ(reduction_op("all_reduce", RO::PRODUCT, ScalarType::Bool), Min);
  EXPECT_EQ(reduction_op("all_reduce", RO::AVG, ScalarType::Float16), Avg);
  try {
    reduction_op("reduce", RO::BXOR, ScalarType::Int32);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "[reduce] ReduceOp.BXOR is not supported by the nccl backend");
  }
}

}  // namespace
