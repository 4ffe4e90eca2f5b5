// The elementwise part of an LSTM or GRU step, forward and backward, for the fused CPU layers (Note [Fused CPU LSTM]
// and Note [Fused CPU GRU] in nn/functional/rnn_layer.cpp): one pass over a step's rows where the step-by-step path
// ran about ten ops forward and twenty backward, each its own pass and allocation. float32 only, as the layers.
#include <cmath>
#include <vector>

#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/nn/rnn.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

// p[i] = op(p[i]) for i < n, vectorized where this build can.
void activate(UnaryOp op, float* p, int64_t n) {
  vec_or_scalar(op, p, n, [op](float x) { return op == UnaryOp::Tanh ? std::tanh(x) : 1.0f / (1.0f + std::exp(-x)); });
}

// Rows of the batch per task: a task takes whole rows, enough of them for threading to pay. A row's elements each
// cost about a dozen elementwise ops (a sigmoid or tanh, Note [Inline float32 tanh] in vec_math.cpp, and the gate
// arithmetic), so a task takes a twelfth of kGrainSize's elements: at batch 20 and 256 wide, two tasks of ten rows.
// Tasks of three rows (when tanh cost five times as much) made the LSTM step's cell slower at two threads than at
// one (21 against 18 us); two tasks of ten take 10 us.
int64_t row_grain(int64_t hidden) { return std::max<int64_t>(1, kGrainSize / (12 * hidden)); }

void lstm_cell_forward_cpu(const Tensor& gates, const Tensor& c_prev, const Tensor& c, const Tensor& h) {
  const int64_t B = gates.size(0), H = c.size(1);
  float* a = gates.data<float>();
  const float* cp = c_prev.data<float>();
  float *cn = c.data<float>(), *hn = h.data<float>();
  parallel_for(0, B, row_grain(H), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      float* g = a + r * 4 * H;
      activate(UnaryOp::Sigmoid, g, 2 * H);  // i, f
      activate(UnaryOp::Tanh, g + 2 * H, H);
      activate(UnaryOp::Sigmoid, g + 3 * H, H);  // o
      const float *in = g, *fg = g + H, *cand = g + 2 * H, *o = g + 3 * H, *cpr = cp + r * H;
      float *cr = cn + r * H, *hr = hn + r * H;
      for (int64_t j = 0; j < H; ++j) cr[j] = fg[j] * cpr[j] + in[j] * cand[j];
      for (int64_t j = 0; j < H; ++j) hr[j] = cr[j];
      activate(UnaryOp::Tanh, hr, H);
      for (int64_t j = 0; j < H; ++j) hr[j] *= o[j];
    }
  });
}

void lstm_cell_backward_cpu(const Tensor& acts, const Tensor& c_prev, const Tensor& c, const Tensor& dh_out,
                            const Tensor& dh_rec, const Tensor& dc, const Tensor& dgates) {
  const int64_t B = acts.size(0), H = c.size(1);
  const float *a = acts.data<float>(), *cp = c_prev.data<float>(), *cn = c.data<float>();
  const float *dho = dh_out.data<float>(), *dhr = dh_rec.defined() ? dh_rec.data<float>() : nullptr;
  float *dcp = dc.data<float>(), *dg = dgates.data<float>();
  parallel_for(0, B, row_grain(H), [&](int64_t b, int64_t e) {
    std::vector<float> th(static_cast<size_t>(H));
    for (int64_t r = b; r < e; ++r) {
      const float *g = a + r * 4 * H, *cr = cn + r * H, *cpr = cp + r * H, *dh0 = dho + r * H;
      const float* dh1 = dhr ? dhr + r * H : nullptr;
      float *dcr = dcp + r * H, *d = dg + r * 4 * H;
      for (int64_t j = 0; j < H; ++j) th[static_cast<size_t>(j)] = cr[j];
      activate(UnaryOp::Tanh, th.data(), H);  // tanh(c), recomputed rather than kept for every step
      for (int64_t j = 0; j < H; ++j) {
        const float i = g[j], f = g[H + j], cand = g[2 * H + j], o = g[3 * H + j], t = th[static_cast<size_t>(j)];
        const float dh = dh1 ? dh0[j] + dh1[j] : dh0[j];
        const float dct = dcr[j] + dh * o * (1 - t * t);
        d[j] = dct * cand * i * (1 - i);
        d[H + j] = dct * cpr[j] * f * (1 - f);
        d[2 * H + j] = dct * i * (1 - cand * cand);
        d[3 * H + j] = dh * t * o * (1 - o);
        dcr[j] = dct * f;
      }
    }
  });
}

void gru_cell_forward_cpu(const Tensor& gi, const Tensor& gh, const Tensor& h_prev, const Tensor& acts,
                          const Tensor& h) {
  const int64_t B = gi.size(0), H = h.size(1);
  const float *xi = gi.data<float>(), *xh = gh.data<float>(), *hp = h_prev.data<float>();
  float *a = acts.data<float>(), *hn = h.data<float>();
  parallel_for(0, B, row_grain(H), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float *x = xi + r * 3 * H, *q = xh + r * 3 * H, *hpr = hp + r * H;
      float *ar = a + r * 4 * H, *hr = hn + r * H;
      for (int64_t j = 0; j < 2 * H; ++j) ar[j] = x[j] + q[j];
      activate(UnaryOp::Sigmoid, ar, 2 * H);  // r, z
      for (int64_t j = 0; j < H; ++j) {
        ar[3 * H + j] = q[2 * H + j];  // kept: the gradient of r needs it
        ar[2 * H + j] = x[2 * H + j] + ar[j] * q[2 * H + j];
      }
      activate(UnaryOp::Tanh, ar + 2 * H, H);  // n
      const float *z = ar + H, *n = ar + 2 * H;
      for (int64_t j = 0; j < H; ++j) hr[j] = n[j] + z[j] * (hpr[j] - n[j]);
    }
  });
}

void gru_cell_backward_cpu(const Tensor& acts, const Tensor& h_prev, const Tensor& dh_out, const Tensor& dh_rec,
                           const Tensor& dgi, const Tensor& dgh, const Tensor& dh_prev) {
  const int64_t B = acts.size(0), H = h_prev.size(1);
  const float *a = acts.data<float>(), *hp = h_prev.data<float>(), *dho = dh_out.data<float>();
  const float* dhr = dh_rec.defined() ? dh_rec.data<float>() : nullptr;
  float *di = dgi.data<float>(), *dg = dgh.data<float>(), *dp = dh_prev.data<float>();
  parallel_for(0, B, row_grain(H), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const float *ar = a + row * 4 * H, *hpr = hp + row * H, *dh0 = dho + row * H;
      const float* dh1 = dhr ? dhr + row * H : nullptr;
      float *dir = di + row * 3 * H, *dgr = dg + row * 3 * H, *dpr = dp + row * H;
      for (int64_t j = 0; j < H; ++j) {
        const float r = ar[j], z = ar[H + j], n = ar[2 * H + j], ghn = ar[3 * H + j];
        const float dh = dh1 ? dh0[j] + dh1[j] : dh0[j];
        const float dpn = dh * (1 - z) * (1 - n * n);  // through n's tanh
        const float dpr_ = dpn * ghn * r * (1 - r), dpz = dh * (hpr[j] - n) * z * (1 - z);
        dir[j] = dgr[j] = dpr_;
        dir[H + j] = dgr[H + j] = dpz;
        dir[2 * H + j] = dpn;
        dgr[2 * H + j] = dpn * r;
        dpr[j] = dh * z;
      }
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(gru_cell_forward, CPU, gru_cell_forward_cpu)
EMBER_REGISTER_KERNEL(gru_cell_backward, CPU, gru_cell_backward_cpu)
EMBER_REGISTER_KERNEL(lstm_cell_forward, CPU, lstm_cell_forward_cpu)
EMBER_REGISTER_KERNEL(lstm_cell_backward, CPU, lstm_cell_backward_cpu)

}  // namespace ember::cpu
