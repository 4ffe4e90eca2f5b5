// The C++ frontend's layers beyond the first set: activations (the Activation<Spec> table), losses (Loss<Spec>),
// pooling (PoolNd<D> families), padding, dropout, embeddings, norms, transposed convolutions, reshaping and
// resampling, containers, MultiheadAttention and the Transformer. For each: the state_dict keys and shapes that
// PyTorch 1.13 gives for the same constructor (python/tests/test_nn_module.py holds those tables), the repr, and the
// forward against the functional op or a closed form; training steps where a layer has parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/spatial.h"
#include "ember/nn/modules.h"
#include "ember/ops.h"
#include "ember/ops/linalg.h"

using namespace ember;

namespace {

using Keys = std::vector<std::string>;
using Shapes = std::vector<DimVector>;

Keys keys(const nn::Module& m) {
  Keys r;
  for (auto& [k, t] : m.state_dict()) r.push_back(k);
  return r;
}

Shapes shapes(const nn::Module& m) {
  Shapes r;
  for (auto& [k, t] : m.state_dict()) r.emplace_back(t.sizes());
  return r;
}

bool same(const Tensor& a, const Tensor& b) {
  return DimVector(a.sizes()) == DimVector(b.sizes()) && all(eq(a, b)).item<bool>();
}

Tensor tensor(const std::vector<double>& v) {
  return from_blob_copy(v.data(), ScalarType::Float64, DimVector{int64_t(v.size())},
                        TensorOptions(ScalarType::Float64));
}
Tensor tensor(const std::vector<int64_t>& v) {
  return from_blob_copy(v.data(), ScalarType::Int64, DimVector{int64_t(v.size())}, TensorOptions(ScalarType::Int64));
}

// Equal shapes and |a - b| <= tol * (1 + max |b|) everywhere.
bool close(const Tensor& a, const Tensor& b, double tol = 1e-5) {
  if (DimVector(a.sizes()) != DimVector(b.sizes())) return false;
  if (a.numel() == 0) return true;
  const Tensor a64 = a.to(ScalarType::Float64), b64 = b.to(ScalarType::Float64);
  return amax(abs(a64 - b64)).item<double>() <= tol * (1 + amax(abs(b64)).item<double>());
}

double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  Tensor r = t;
  for (int64_t i : idx) r = r.select(0, i);
  return r.item<double>();
}

// Plain SGD steps on model(x) -> loss; returns (first loss, last loss).
template <class F>
std::pair<double, double> train(nn::Module& model, int steps, double lr, F&& loss_fn) {
  double first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    Tensor loss = loss_fn();
    model.zero_grad();
    loss.backward();
    autograd::NoGradGuard no_grad;
    for (Tensor& p : model.parameters())
      if (p.grad().defined()) binary_op(BinaryOp::Sub, p, p.grad() * lr, p);
    (step == 0 ? first : last) = loss.item<double>();
  }
  return {first, last};
}

}  // namespace

// ---- activations: one table, the functional ops and PyTorch's reprs

TEST(NnModulesExtra, ActivationsCallTheirOpsAndPrintAsTorch) {
  manual_seed(0);
  Tensor x = randn(DimVector{3, 4, 5});
  EXPECT_TRUE(same(nn::ReLU()(x), relu(x)));
  EXPECT_TRUE(same(nn::ReLU6()(x), relu6(x)));
  EXPECT_TRUE(same(nn::SELU()(x), selu(x)));
  EXPECT_TRUE(same(nn::CELU(2.0)(x), celu(x, 2.0)));
  EXPECT_TRUE(same(nn::Mish()(x), mish(x)));
  EXPECT_TRUE(same(nn::Hardswish()(x), hardswish(x)));
  EXPECT_TRUE(same(nn::Hardsigmoid()(x), hardsigmoid(x)));
  EXPECT_TRUE(same(nn::Hardtanh(-2, 2)(x), hardtanh(x, -2, 2)));
  EXPECT_TRUE(same(nn::Hardtanh({.min_val = -0.5})(x), hardtanh(x, -0.5, 1)));
  EXPECT_TRUE(same(nn::Threshold(0.1, 20)(x), threshold(x, 0.1, 20)));
  EXPECT_TRUE(same(nn::Softplus(2.0, 10.0)(x), softplus(x, 2, 10)));
  EXPECT_TRUE(same(nn::Softsign()(x), softsign(x)));
  EXPECT_TRUE(same(nn::Tanhshrink()(x), tanhshrink(x)));
  EXPECT_TRUE(same(nn::LogSigmoid()(x), logsigmoid(x)));
  EXPECT_TRUE(same(nn::Hardshrink(0.3)(x), hardshrink(x, 0.3)));
  EXPECT_TRUE(same(nn::Softshrink(0.3)(x), softshrink(x, 0.3)));
  EXPECT_TRUE(same(nn::Softmin(0)(x), softmin(x, 0)));
  EXPECT_TRUE(same(nn::Softmin()(x), softmin(x, 0)));  // implicit dim of a 3-d input: 0
  Tensor g = randn(DimVector{2, 6});
  EXPECT_TRUE(same(nn::GLU()(g), glu(g, -1)));
  EXPECT_EQ(DimVector(nn::GLU(1)(g).sizes()), (DimVector{2, 3}));

  // Closed forms for a few: hardtanh clamps, threshold replaces, glu gates, softmin is softmax of -x.
  Tensor v = tensor(std::vector<double>{-3, -0.5, 0.5, 3});
  EXPECT_TRUE(close(nn::Hardtanh(-2, 2)(v), tensor(std::vector<double>{-2, -0.5, 0.5, 2})));
  EXPECT_TRUE(close(nn::Threshold(0.0, -7)(v), tensor(std::vector<double>{-7, -7, 0.5, 3})));
  EXPECT_TRUE(close(nn::Softmin(0)(v), softmax(-v, 0)));
  Tensor ab = tensor(std::vector<double>{1, 2, 0, std::log(3.0)});
  EXPECT_TRUE(close(nn::GLU()(ab), tensor(std::vector<double>{0.5, 2 * 0.75})));

  // inplace writes the input and returns it.
  Tensor y = x.clone();
  Tensor r = nn::ReLU(true)(y);
  EXPECT_TRUE(r.is_same(y));
  EXPECT_TRUE(same(y, relu(x)));

  EXPECT_EQ(nn::ReLU().repr(), "ReLU()");
  EXPECT_EQ(nn::ReLU(true).repr(), "ReLU(inplace=True)");
  EXPECT_EQ(nn::ReLU6().repr(), "ReLU6()");
  EXPECT_EQ(nn::LeakyReLU(0.2, true).repr(), "LeakyReLU(negative_slope=0.2, inplace=True)");
  EXPECT_EQ(nn::CELU(2.0).repr(), "CELU(alpha=2.0)");
  EXPECT_EQ(nn::SELU().repr(), "SELU()");
  EXPECT_EQ(nn::Hardtanh().repr(), "Hardtanh(min_val=-1.0, max_val=1.0)");
  EXPECT_EQ(nn::Softplus().repr(), "Softplus(beta=1, threshold=20)");
  EXPECT_EQ(nn::Softplus(2).repr(), "Softplus(beta=2, threshold=20)");
  EXPECT_EQ(nn::Threshold(0.1, 20.5).repr(), "Threshold(threshold=0.1, value=20.5)");
  EXPECT_EQ(nn::Softmin(0).repr(), "Softmin(dim=0)");
  EXPECT_EQ(nn::GLU().repr(), "GLU(dim=-1)");
  EXPECT_EQ(nn::GLU(1).repr(), "GLU(dim=1)");
  EXPECT_EQ(nn::Hardshrink(0.3).repr(), "Hardshrink(0.3)");
  EXPECT_EQ(nn::Softshrink(0.3).repr(), "Softshrink(0.3)");
  EXPECT_EQ(nn::Tanhshrink().repr(), "Tanhshrink()");
  EXPECT_EQ(nn::Softsign().repr(), "Softsign()");
  EXPECT_EQ(nn::Mish().repr(), "Mish()");
  EXPECT_EQ(nn::Hardswish().repr(), "Hardswish()");
  EXPECT_EQ(nn::Hardsigmoid().repr(), "Hardsigmoid()");
  EXPECT_EQ(nn::LogSigmoid().repr(), "LogSigmoid()");
  EXPECT_TRUE(nn::SELU().state_dict().empty());
  EXPECT_THROW(nn::Hardtanh(1, -1), ValueError);
}

TEST(NnModulesExtra, PReLULearnsItsSlope) {
  nn::PReLU one;
  EXPECT_EQ(keys(one), (Keys{"weight"}));
  EXPECT_EQ(shapes(one), (Shapes{{1}}));
  EXPECT_TRUE(same(one.weight, full(DimVector{1}, 0.25)));
  nn::PReLU per_channel(4, 0.1);
  EXPECT_EQ(shapes(per_channel), (Shapes{{4}}));
  EXPECT_EQ(per_channel.repr(), "PReLU(num_parameters=4)");
  Tensor x = tensor(std::vector<double>{-2, 3}).to(ScalarType::Float32);
  EXPECT_TRUE(close(one(x), tensor(std::vector<double>{-0.5, 3}).to(ScalarType::Float32)));
  // Fit the slope to 0.5 on negative inputs: y = 0.5 x.
  manual_seed(0);
  Tensor in = -rand(DimVector{16, 4});
  auto [first, last] = train(per_channel, 50, 0.5, [&] { return mse_loss(per_channel(in), in * 0.5); });
  EXPECT_LT(last, first * 1e-2);
  EXPECT_TRUE(close(per_channel.weight, full(DimVector{4}, 0.5), 0.05));
}

// ---- losses: one template per arity, the functional ops, buffers for the weights

TEST(NnModulesExtra, LossesCallTheirOps) {
  manual_seed(0);
  Tensor x = randn(DimVector{6, 3}), t = randn(DimVector{6, 3}), w = rand(DimVector{3});
  Tensor p = sigmoid(x), pt = rand(DimVector{6, 3});
  Tensor sign = sub(mul(randint(0, 2, DimVector{6}).to(ScalarType::Float32), 2), 1);
  Tensor cls = randint(0, 3, DimVector{6});
  EXPECT_TRUE(same(nn::BCELoss(w)(p, pt), binary_cross_entropy(p, pt, w)));
  EXPECT_TRUE(same(nn::SmoothL1Loss(Reduction::Sum, 0.5)(x, t), smooth_l1_loss(x, t, Reduction::Sum, 0.5)));
  EXPECT_TRUE(same(nn::SmoothL1Loss({.beta = 0.5})(x, t), smooth_l1_loss(x, t, Reduction::Mean, 0.5)));
  EXPECT_TRUE(same(nn::HuberLoss(Reduction::Mean, 0.5)(x, t), huber_loss(x, t, Reduction::Mean, 0.5)));
  Tensor lp = log_softmax(x, 1), lq = log_softmax(t, 1);
  EXPECT_TRUE(same(nn::KLDivLoss(Reduction::Mean, true)(lp, lq), kl_div(lp, lq, Reduction::Mean, true)));
  // 'batchmean': the summed loss over the batch size.
  EXPECT_TRUE(close(nn::KLDivLoss({.log_target = true, .batchmean = true})(lp, lq),
                    kl_div(lp, lq, Reduction::Sum, true) / 6.0));
  EXPECT_TRUE(same(nn::PoissonNLLLoss(false, true)(pt, pt), poisson_nll_loss(pt, pt, false, true)));
  EXPECT_TRUE(same(nn::HingeEmbeddingLoss(2.0)(x.select(1, 0), sign), hinge_embedding_loss(x.select(1, 0), sign, 2)));
  EXPECT_TRUE(same(nn::SoftMarginLoss()(x.select(1, 0), sign), soft_margin_loss(x.select(1, 0), sign)));
  Tensor multi = randint(0, 2, DimVector{6, 3}).to(ScalarType::Float32);
  EXPECT_TRUE(same(nn::MultiLabelSoftMarginLoss(w)(x, multi), multilabel_soft_margin_loss(x, multi, w)));
  EXPECT_TRUE(same(nn::MultiMarginLoss(2, 0.5, w)(x, cls), multi_margin_loss(x, cls, 2, 0.5, w)));
  EXPECT_TRUE(same(nn::CosineEmbeddingLoss(0.1)(x, t, sign), cosine_embedding_loss(x, t, sign, 0.1)));
  EXPECT_TRUE(same(nn::MarginRankingLoss(0.5)(x.select(1, 0), t.select(1, 0), sign),
                   margin_ranking_loss(x.select(1, 0), t.select(1, 0), sign, 0.5)));
  Tensor n = randn(DimVector{6, 3});
  EXPECT_TRUE(same(nn::TripletMarginLoss(2.0, 1.0)(x, t, n), triplet_margin_loss(x, t, n, 2.0, 1.0)));

  // Closed forms: SmoothL1 with beta 1 on a difference of 0.5 and 3: 0.5 * 0.25 and 3 - 0.5.
  Tensor a = tensor(std::vector<double>{0.5, 3}), z = zeros(DimVector{2}, ScalarType::Float64);
  EXPECT_NEAR(nn::SmoothL1Loss(Reduction::Sum)(a, z).item<double>(), 0.125 + 2.5, 1e-12);
  EXPECT_NEAR(nn::HuberLoss(Reduction::Sum, 2.0)(a, z).item<double>(), 0.125 + 2 * (3 - 1), 1e-12);
  // MarginRanking: max(0, -y (x1 - x2) + margin).
  EXPECT_NEAR(nn::MarginRankingLoss(0.5, Reduction::Sum)(a, z, tensor(std::vector<double>{1, -1})).item<double>(),
              0 + 3.5, 1e-12);

  // CTC through the module equals the functional op.
  Tensor log_probs = log_softmax(randn(DimVector{8, 2, 5}), 2);
  Tensor targets = randint(1, 5, DimVector{2, 3});
  Tensor in_len = full(DimVector{2}, 8, ScalarType::Int64), tgt_len = full(DimVector{2}, 3, ScalarType::Int64);
  EXPECT_TRUE(same(nn::CTCLoss(0, Reduction::Sum)(log_probs, targets, in_len, tgt_len),
                   ctc_loss(log_probs, targets, in_len, tgt_len, 0, Reduction::Sum)));

  // Weights are buffers, as torch.nn's; the reprs have no arguments.
  EXPECT_EQ(keys(nn::BCELoss(ones(DimVector{3}))), (Keys{"weight"}));
  EXPECT_EQ(keys(nn::MultiLabelSoftMarginLoss(ones(DimVector{3}))), (Keys{"weight"}));
  EXPECT_EQ(keys(nn::MultiMarginLoss(2, 0.5, ones(DimVector{3}))), (Keys{"weight"}));
  EXPECT_TRUE(nn::MultiMarginLoss(2, 0.5, ones(DimVector{3})).named_parameters().empty());
  EXPECT_TRUE(nn::TripletMarginLoss().state_dict().empty());
  EXPECT_EQ(nn::KLDivLoss().repr(), "KLDivLoss()");
  EXPECT_EQ(nn::TripletMarginLoss(2.0).repr(), "TripletMarginLoss()");
  EXPECT_EQ(nn::CTCLoss(1, Reduction::Mean, true).repr(), "CTCLoss()");
  // A two-input loss through the common base.
  std::shared_ptr<nn::LossModule> base = std::make_shared<nn::HuberLoss>();
  EXPECT_TRUE(same(base->forward(x, t), huber_loss(x, t)));
  EXPECT_THROW(nn::CosineEmbeddingLoss().forward(x), NotImplementedError);
}

// ---- pooling: one template per family

TEST(NnModulesExtra, PoolingFamilies) {
  manual_seed(0);
  Tensor s = randn(DimVector{2, 3, 9}), im = randn(DimVector{2, 3, 6, 6}), vol = randn(DimVector{1, 2, 4, 4, 4});
  EXPECT_TRUE(same(nn::MaxPool1d(2)(s), max_pool1d(s, DimVector{2})));
  EXPECT_TRUE(same(nn::MaxPool2d(nn::PoolOptions<2>(3).stride(2).padding(1).ceil_mode(true))(im),
                   max_pool2d(im, DimVector{3}, DimVector{2}, DimVector{1}, DimVector{1}, true)));
  EXPECT_TRUE(same(nn::MaxPool3d(2)(vol), max_pool3d(vol, DimVector{2})));
  EXPECT_EQ(DimVector(nn::MaxPool3d(2)(vol).sizes()), (DimVector{1, 2, 2, 2, 2}));
  EXPECT_TRUE(same(nn::AvgPool1d(3, 2)(s), avg_pool1d(s, DimVector{3}, DimVector{2})));
  EXPECT_TRUE(same(nn::AvgPool2d(nn::PoolOptions<2>(2).count_include_pad(false).divisor_override(3))(im),
                   avg_pool2d(im, DimVector{2}, DimVector{2}, DimVector{0}, false, false, 3)));
  EXPECT_TRUE(same(nn::AdaptiveAvgPool1d(4)(s), adaptive_avg_pool1d(s, DimVector{4})));
  EXPECT_TRUE(same(nn::AdaptiveMaxPool2d(DimVector{2, 3})(im), adaptive_max_pool2d(im, DimVector{2, 3}).first));

  // Closed forms: max and mean of each window.
  Tensor r = arange(8).to(ScalarType::Float32).reshape(DimVector{1, 1, 8});
  EXPECT_TRUE(close(nn::MaxPool1d(2)(r),
                    tensor(std::vector<double>{1, 3, 5, 7}).to(ScalarType::Float32).reshape(DimVector{1, 1, 4})));
  EXPECT_TRUE(close(nn::AvgPool1d(4)(r),
                    tensor(std::vector<double>{1.5, 5.5}).to(ScalarType::Float32).reshape(DimVector{1, 1, 2})));
  EXPECT_TRUE(close(nn::AdaptiveAvgPool1d(1)(r), full(DimVector{1, 1, 1}, 3.5)));

  // MaxPool with indices feeds MaxUnpool: the maxima back in place, zeros elsewhere.
  nn::MaxPool2d pool(2);
  auto [values, indices] = pool.forward_with_indices(abs(im));  // positive maxima: pooling the unpooled gives them
  nn::MaxUnpool2d unpool(2);
  Tensor back = unpool(values, indices);
  EXPECT_TRUE(same(back, max_unpool2d(values, indices, DimVector{2})));
  EXPECT_TRUE(same(max_pool2d(back, DimVector{2}), values));
  EXPECT_EQ(sum(ne(back, 0)).item<int64_t>(), values.numel());
  EXPECT_EQ(DimVector(unpool(values, indices, DimVector{7, 7}).sizes()), (DimVector{2, 3, 7, 7}));
  auto [amax_values, amax_idx] = nn::AdaptiveMaxPool2d(3).forward_with_indices(im);
  EXPECT_EQ(DimVector(amax_idx.sizes()), (DimVector{2, 3, 3, 3}));

  EXPECT_EQ(nn::MaxPool1d(2).repr(), "MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::MaxPool2d(3, 2, 1, 1, true).repr(),
            "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)");
  EXPECT_EQ(nn::MaxPool3d(2).repr(), "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::AvgPool1d(3, 2).repr(), "AvgPool1d(kernel_size=(3,), stride=(2,), padding=(0,))");
  EXPECT_EQ(nn::AvgPool2d(3, 1, 1, true).repr(), "AvgPool2d(kernel_size=3, stride=1, padding=1)");
  EXPECT_EQ(nn::AdaptiveAvgPool1d(4).repr(), "AdaptiveAvgPool1d(output_size=4)");
  EXPECT_EQ(nn::AdaptiveMaxPool2d(DimVector{2, 2}).repr(), "AdaptiveMaxPool2d(output_size=(2, 2))");
  EXPECT_EQ(nn::MaxUnpool2d(2).repr(), "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))");
  EXPECT_EQ(nn::MaxUnpool2d(3, 2, 1).repr(), "MaxUnpool2d(kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))");
  EXPECT_TRUE(nn::MaxPool2d(2).state_dict().empty());
  EXPECT_THROW(nn::MaxPool2d(nn::PoolOptions<2>(DimVector{2, 2, 2})), ValueError);
  EXPECT_THROW(unpool.forward(values), NotImplementedError);
}

// ---- norms

TEST(NnModulesExtra, InstanceNormAndLocalResponseNorm) {
  manual_seed(0);
  EXPECT_TRUE(nn::InstanceNorm1d(3).state_dict().empty());
  nn::InstanceNorm2d tracked(3, 1e-5, 0.1, true, true);
  EXPECT_EQ(keys(tracked), (Keys{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_EQ(shapes(tracked), (Shapes{{3}, {3}, {3}, {3}, {}}));
  EXPECT_EQ(keys(nn::InstanceNorm3d(3, 1e-5, 0.1, true)), (Keys{"weight", "bias"}));
  EXPECT_EQ(tracked.repr(), "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  EXPECT_EQ(nn::InstanceNorm1d(3, 0.001, 0.2).repr(),
            "InstanceNorm1d(3, eps=0.001, momentum=0.2, affine=False, track_running_stats=False)");

  // Each (sample, channel) plane normalized: mean 0, (biased) variance 1; the functional op's values.
  Tensor x = randn(DimVector{2, 3, 4, 5}) * 3 + 1;
  nn::InstanceNorm2d in(3);
  Tensor y = in(x);
  EXPECT_LT(amax(abs(mean(y, DimVector{2, 3}))).item<double>(), 1e-5);
  EXPECT_LT(amax(abs(var(y, DimVector{2, 3}, 0) - 1)).item<double>(), 1e-3);
  EXPECT_TRUE(same(y, instance_norm(x)));
  // Unbatched [C, H, W] is the batched result of one sample.
  EXPECT_TRUE(close(in(x.select(0, 1)), y.select(0, 1)));
  // Tracking: training updates the running mean (momentum 0.1 of the batch's per-channel means).
  Tensor before = tracked.running_mean.clone();
  tracked(x);
  EXPECT_TRUE(close(tracked.running_mean, before * 0.9 + mean(x, DimVector{0, 2, 3}) * 0.1));
  EXPECT_EQ(tracked.num_batches_tracked.item<int64_t>(), 0);  // torch.nn's InstanceNorm leaves it (BatchNorm counts)
  EXPECT_THROW(in(randn(DimVector{2, 3})), ValueError);

  nn::LocalResponseNorm lrn(3, 0.001, 0.5, 2.0);
  EXPECT_TRUE(same(lrn(x), local_response_norm(x, 3, 0.001, 0.5, 2.0)));
  EXPECT_EQ(nn::LocalResponseNorm(2).repr(), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
  EXPECT_EQ(lrn.repr(), "LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0)");

  // momentum empty: the cumulative moving average (1 / batches seen).
  nn::BatchNorm1d cma(2, 1e-5, std::nullopt);
  EXPECT_EQ(cma.repr(), "BatchNorm1d(2, eps=1e-05, momentum=None, affine=True, track_running_stats=True)");
  Tensor b1 = randn(DimVector{8, 2}), b2 = randn(DimVector{8, 2});
  cma(b1);
  cma(b2);
  EXPECT_TRUE(close(cma.running_mean, (mean(b1, DimVector{0}) + mean(b2, DimVector{0})) * 0.5));
  EXPECT_EQ(nn::LayerNorm(DimVector{4}, 1e-6).repr(), "LayerNorm((4,), eps=1e-06, elementwise_affine=True)");
  EXPECT_EQ(keys(nn::LayerNorm(DimVector{4}, 1e-5, true, false)), (Keys{"weight"}));
}

// ---- convolutions

TEST(NnModulesExtra, ConvTransposeFamilyAndConvPaddingModes) {
  manual_seed(0);
  nn::ConvTranspose1d t1(nn::ConvTranspose1dOptions(4, 6, 3).stride(2).output_padding(1).groups(2));
  EXPECT_EQ(keys(t1), (Keys{"weight", "bias"}));
  EXPECT_EQ(shapes(t1), (Shapes{{4, 3, 3}, {6}}));
  EXPECT_EQ(t1.repr(), "ConvTranspose1d(4, 6, kernel_size=(3,), stride=(2,), output_padding=(1,), groups=2)");
  nn::ConvTranspose3d t3(nn::ConvTranspose3dOptions(2, 3, 2));
  EXPECT_EQ(shapes(t3), (Shapes{{2, 3, 2, 2, 2}, {3}}));
  EXPECT_EQ(t3.repr(), "ConvTranspose3d(2, 3, kernel_size=(2, 2, 2), stride=(1, 1, 1))");
  // PyTorch's default init: U(-b, b), b = 1 / sqrt(out / groups * prod(k)).
  EXPECT_LE(max(abs(t1.weight)).item<double>(), 1 / std::sqrt(9.0));

  Tensor s = randn(DimVector{2, 4, 5});
  EXPECT_TRUE(same(t1(s), conv_transpose1d(s, t1.weight, t1.bias, DimVector{2}, DimVector{0}, DimVector{1}, 2)));
  EXPECT_EQ(DimVector(t1(s).sizes()), (DimVector{2, 6, 12}));
  // output_size picks the output padding: 11 (padding 0) or 12 (padding 1).
  EXPECT_EQ(DimVector(t1.forward(s, DimVector{11}).sizes()), (DimVector{2, 6, 11}));
  EXPECT_TRUE(same(t1.forward(s, DimVector{2, 6, 11}),
                   conv_transpose1d(s, t1.weight, t1.bias, DimVector{2}, DimVector{0}, DimVector{0}, 2)));
  EXPECT_THROW(t1.forward(s, DimVector{14}), ValueError);
  Tensor v = randn(DimVector{1, 2, 3, 3, 3});
  EXPECT_TRUE(same(t3(v), conv_transpose3d(v, t3.weight, t3.bias)));

  // The transpose of a convolution: <conv(x), y> = <x, conv_transpose(y)> with the same weight.
  nn::Conv1d c(nn::Conv1dOptions(6, 4, 3).stride(2).groups(2).bias(false));
  nn::ConvTranspose1d ct(nn::ConvTranspose1dOptions(4, 6, 3).stride(2).groups(2).bias(false));
  {
    autograd::NoGradGuard no_grad;
    ct.weight.copy_(c.weight);
  }
  Tensor xin = randn(DimVector{1, 6, 11}), yout = randn(DimVector{1, 4, 5});
  EXPECT_NEAR(sum(c(xin) * yout).item<double>(), sum(xin * ct(yout)).item<double>(), 1e-4);

  // padding='same' and the padding modes: a reflect-padded 'same' convolution equals F.pad then a valid one.
  nn::Conv1d same_reflect(nn::Conv1dOptions(4, 8, 3).padding("same").groups(2).dilation(2).padding_mode("reflect"));
  EXPECT_EQ(same_reflect.repr(),
            "Conv1d(4, 8, kernel_size=(3,), stride=(1,), padding=same, dilation=(2,), groups=2, padding_mode=reflect)");
  Tensor xs = randn(DimVector{2, 4, 9});
  Tensor ys = same_reflect(xs);
  EXPECT_EQ(DimVector(ys.sizes()), (DimVector{2, 8, 9}));
  EXPECT_TRUE(same(ys, conv1d(pad(xs, DimVector{2, 2}, "reflect"), same_reflect.weight, same_reflect.bias, DimVector{1},
                              DimVector{0}, DimVector{2}, 2)));
  nn::Conv2d circ(nn::Conv2dOptions(2, 2, 3).padding(1).padding_mode("circular"));
  Tensor xc = randn(DimVector{1, 2, 5, 5});
  EXPECT_TRUE(same(circ(xc), conv2d(pad(xc, DimVector{1, 1, 1, 1}, "circular"), circ.weight, circ.bias)));
  nn::Conv2d same_zeros(nn::Conv2dOptions(2, 3, DimVector{3, 4}).padding("same"));
  EXPECT_EQ(DimVector(same_zeros(xc).sizes()), (DimVector{1, 3, 5, 5}));
  EXPECT_TRUE(same(same_zeros(xc), conv2d(xc, same_zeros.weight, same_zeros.bias, DimVector{1}, "same")));
  EXPECT_THROW(nn::Conv1d(nn::Conv1dOptions(4, 8, 3).padding("same").stride(2)), ValueError);
  EXPECT_THROW(nn::Conv1d(nn::Conv1dOptions(4, 8, 3).padding_mode("mirror")), ValueError);
  EXPECT_THROW(nn::Conv1d(nn::Conv1dOptions(4, 6, 3).groups(4)), ValueError);
  EXPECT_THROW(nn::ConvTranspose1d(nn::ConvTranspose1dOptions(4, 6, 3).padding_mode("reflect")), ValueError);
}

// ---- linear layers, reshaping, containers

TEST(NnModulesExtra, BilinearUnflattenAndContainers) {
  manual_seed(0);
  nn::Bilinear bl(2, 3, 4);
  EXPECT_EQ(keys(bl), (Keys{"weight", "bias"}));
  EXPECT_EQ(shapes(bl), (Shapes{{4, 2, 3}, {4}}));
  EXPECT_EQ(bl.repr(), "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)");
  EXPECT_LE(max(abs(bl.weight)).item<double>(), 1 / std::sqrt(2.0));
  Tensor x1 = randn(DimVector{5, 2}), x2 = randn(DimVector{5, 3});
  Tensor y = bl(x1, x2);
  // y[n, o] = sum_ij x1[n, i] W[o, i, j] x2[n, j] + b[o]
  const double expect = [&] {
    double acc = at(bl.bias, {1});
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) acc += at(x1, {3, i}) * at(bl.weight, {1, i, j}) * at(x2, {3, j});
    return acc;
  }();
  EXPECT_NEAR(at(y, {3, 1}), expect, 1e-5);
  EXPECT_THROW(bl.forward(x1), NotImplementedError);

  nn::Unflatten uf(1, DimVector{2, 3});
  EXPECT_EQ(uf.repr(), "Unflatten(dim=1, unflattened_size=(2, 3))");
  EXPECT_EQ(DimVector(uf(randn(DimVector{4, 6, 5})).sizes()), (DimVector{4, 2, 3, 5}));
  EXPECT_EQ(nn::Flatten(0, 2).repr(), "Flatten(start_dim=0, end_dim=2)");

  // ModuleList / ModuleDict: torch.nn's key prefixes, indexing, iteration.
  auto list = std::make_shared<nn::ModuleList>();
  list->push_back(std::make_shared<nn::Linear>(1, 1));
  list->push_back(std::make_shared<nn::BatchNorm1d>(1));
  EXPECT_EQ(keys(*list), (Keys{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                               "1.num_batches_tracked"}));
  EXPECT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[-1]->name(), "BatchNorm1d");
  EXPECT_EQ(list->at<nn::Linear>(0)->in_features, 1);
  EXPECT_THROW((*list)[2], IndexError);
  EXPECT_THROW(list->at<nn::Linear>(1), TypeError);
  int count = 0;
  for (const auto& m : *list) count += m != nullptr;
  EXPECT_EQ(count, 2);
  EXPECT_EQ(list->repr(),
            "ModuleList(\n  (0): Linear(in_features=1, out_features=1, bias=True)\n  (1): BatchNorm1d(1, eps=1e-05, "
            "momentum=0.1, affine=True, track_running_stats=True)\n)");
  nn::ModuleDict dict;
  dict.insert("a", std::make_shared<nn::Linear>(1, 2));
  dict.insert("b", std::make_shared<nn::Conv1d>(nn::Conv1dOptions(1, 1, 1)));
  EXPECT_EQ(keys(dict), (Keys{"a.weight", "a.bias", "b.weight", "b.bias"}));
  EXPECT_EQ(shapes(dict), (Shapes{{2, 1}, {2}, {1, 1, 1}, {1}}));
  EXPECT_EQ(dict.keys(), (Keys{"a", "b"}));
  EXPECT_TRUE(dict.contains("b"));
  EXPECT_EQ(dict["b"]->name(), "Conv1d");
  EXPECT_THROW(dict["c"], IndexError);
  EXPECT_THROW(dict.insert("a", std::make_shared<nn::Identity>()), Error);

  // A Bilinear trains: fit y = x1^T A x2 for a fixed A.
  nn::Bilinear fit(2, 2, 1, false);
  Tensor a = randn(DimVector{1, 2, 2}), u = randn(DimVector{32, 2}), w = randn(DimVector{32, 2});
  Tensor target = bilinear(u, w, a);
  auto [first, last] = train(fit, 100, 0.2, [&] { return mse_loss(fit(u, w), target); });
  EXPECT_LT(last, first * 1e-2);
}

// ---- dropout, embeddings, padding, resampling, distances

TEST(NnModulesExtra, DropoutFamily) {
  manual_seed(0);
  Tensor x = ones(DimVector{4, 8, 5});
  // Dropout1d on [N, C, L]: whole channels zero or scaled by 1 / (1 - p); unbatched [C, L] too.
  nn::Dropout1d d1(0.5);
  Tensor y = d1(x);
  Tensor per_channel = amax(y, DimVector{2}) - amin(y, DimVector{2});
  EXPECT_EQ(max(per_channel).item<double>(), 0.0);
  EXPECT_TRUE(all(logical_or(eq(y, 0), eq(y, 2))).item<bool>());
  EXPECT_EQ(DimVector(d1(ones(DimVector{8, 5})).sizes()), (DimVector{8, 5}));
  EXPECT_THROW(d1(ones(DimVector{2, 2, 2, 2})), Error);
  nn::Dropout3d d3(0.5);
  Tensor y3 = d3(ones(DimVector{2, 6, 2, 2, 2}));
  EXPECT_EQ(max(amax(y3, DimVector{2, 3, 4}) - amin(y3, DimVector{2, 3, 4})).item<double>(), 0.0);
  EXPECT_EQ(DimVector(d3(ones(DimVector{6, 2, 2, 2})).sizes()), (DimVector{6, 2, 2, 2}));
  // AlphaDropout keeps the mean and variance of a standard normal input (approximately); eval: identity.
  nn::AlphaDropout ad(0.2);
  Tensor z = randn(DimVector{200000});
  Tensor az = ad(z);
  EXPECT_NEAR(mean(az).item<double>(), 0.0, 0.02);
  EXPECT_NEAR(ember::std(az).item<double>(), 1.0, 0.02);
  ad.eval();
  EXPECT_TRUE(same(ad(z), z));
  nn::FeatureAlphaDropout fad(0.4);
  fad.eval();
  EXPECT_TRUE(same(fad(x), x));
  EXPECT_EQ(nn::Dropout(0.2, true).repr(), "Dropout(p=0.2, inplace=True)");
  EXPECT_EQ(nn::Dropout1d(0.3).repr(), "Dropout1d(p=0.3, inplace=False)");
  EXPECT_EQ(nn::Dropout3d().repr(), "Dropout3d(p=0.5, inplace=False)");
  EXPECT_EQ(nn::AlphaDropout(0.1).repr(), "AlphaDropout(p=0.1, inplace=False)");
  EXPECT_EQ(nn::FeatureAlphaDropout(0.4).repr(), "FeatureAlphaDropout(p=0.4, inplace=False)");
  EXPECT_THROW(nn::Dropout(1.5), ValueError);
}

TEST(NnModulesExtra, Embeddings) {
  manual_seed(0);
  nn::Embedding e(10, 3, {.padding_idx = -1});
  EXPECT_EQ(*e.options.padding_idx, 9);
  EXPECT_TRUE(same(e.weight.select(0, 9), zeros(DimVector{3})));
  EXPECT_EQ(e.repr(), "Embedding(10, 3, padding_idx=9)");
  Tensor idx = tensor(std::vector<int64_t>{1, 9, 1});
  Tensor y = e(idx);
  EXPECT_TRUE(same(y, embedding(e.weight, idx, 9)));
  sum(y).backward();
  EXPECT_TRUE(same(e.weight.grad().select(0, 9), zeros(DimVector{3})));  // no gradient into the padding row
  EXPECT_TRUE(same(e.weight.grad().select(0, 1), full(DimVector{3}, 2.0)));
  nn::Embedding renorm(10, 3, {.max_norm = 1.0});
  EXPECT_EQ(renorm.repr(), "Embedding(10, 3, max_norm=1.0)");
  renorm(idx);
  EXPECT_LE(norm(renorm.weight.select(0, 1)).item<double>(), 1.0 + 1e-5);
  EXPECT_THROW(nn::Embedding(10, 3, {.padding_idx = 10}), ValueError);
  // The op the module and F.embedding call: with max_norm, the rows looked up are rescaled in place to norm
  // max_norm / (norm + 1e-7) * norm, the others kept.
  Tensor w = full(DimVector{4, 2}, 3.0);
  Tensor looked = embedding(w, tensor(std::vector<int64_t>{2, 0, 2}), -1, false, false, 1.0, 2.0);
  const double scaled = 3.0 / (3.0 * std::sqrt(2.0) + 1e-7);
  EXPECT_TRUE(close(w.select(0, 0), full(DimVector{2}, scaled)));
  EXPECT_TRUE(same(w.select(0, 1), full(DimVector{2}, 3.0)));
  EXPECT_TRUE(close(looked.select(0, 1), w.select(0, 0)));

  nn::EmbeddingBag bag(10, 3);
  EXPECT_EQ(keys(bag), (Keys{"weight"}));
  EXPECT_EQ(shapes(bag), (Shapes{{10, 3}}));
  EXPECT_EQ(bag.repr(), "EmbeddingBag(10, 3, mode=mean)");
  EXPECT_EQ(nn::EmbeddingBag(10, 3, {.mode = "max", .padding_idx = 2}).repr(),
            "EmbeddingBag(10, 3, mode=max, padding_idx=2)");
  Tensor flat = tensor(std::vector<int64_t>{0, 2, 4, 5, 4}), offsets = tensor(std::vector<int64_t>{0, 2});
  Tensor bags = bag(flat, offsets);
  EXPECT_TRUE(same(bags, embedding_bag(flat, bag.weight, offsets)));
  // Bag 0 is the mean of rows 0 and 2.
  EXPECT_TRUE(close(bags.select(0, 0), (bag.weight.select(0, 0) + bag.weight.select(0, 2)) * 0.5));
  nn::EmbeddingBag sum_bag(10, 3, {.mode = "sum"});
  Tensor psw = tensor(std::vector<double>{1, 2, 0.5, 1, 1}).to(ScalarType::Float32);
  EXPECT_TRUE(
      close(sum_bag(flat, offsets, psw).select(0, 0), sum_bag.weight.select(0, 0) + sum_bag.weight.select(0, 2) * 2));
  EXPECT_THROW(nn::EmbeddingBag(10, 3, {.mode = "median"}), ValueError);
}

TEST(NnModulesExtra, PaddingResamplingAndDistances) {
  manual_seed(0);
  Tensor x = randn(DimVector{1, 2, 4, 5});
  EXPECT_TRUE(same(nn::ZeroPad2d(2)(x), constant_pad_nd(x, DimVector{2, 2, 2, 2}, 0)));
  EXPECT_TRUE(same(nn::ConstantPad2d(DimVector{1, 2, 3, 4}, 3.5)(x), constant_pad_nd(x, DimVector{1, 2, 3, 4}, 3.5)));
  EXPECT_TRUE(same(nn::ReflectionPad2d(DimVector{1, 1, 2, 0})(x), pad(x, DimVector{1, 1, 2, 0}, "reflect")));
  EXPECT_TRUE(same(nn::ReplicationPad2d(2)(x), pad(x, DimVector{2, 2, 2, 2}, "replicate")));
  Tensor s = arange(4).to(ScalarType::Float32).reshape(DimVector{1, 1, 4});
  // Closed forms on [0, 1, 2, 3].
  auto row = [](std::vector<double> v) {
    const auto n = static_cast<int64_t>(v.size());
    return tensor(v).to(ScalarType::Float32).reshape(DimVector{1, 1, n});
  };
  EXPECT_TRUE(same(nn::ReflectionPad1d(2)(s), row({2, 1, 0, 1, 2, 3, 2, 1})));
  EXPECT_TRUE(same(nn::ReplicationPad1d(DimVector{3, 1})(s), row({0, 0, 0, 0, 1, 2, 3, 3})));
  EXPECT_TRUE(same(nn::ConstantPad1d(1, 3.5)(s), row({3.5, 0, 1, 2, 3, 3.5})));
  EXPECT_TRUE(same(nn::ZeroPad1d(DimVector{1, 0})(s), row({0, 0, 1, 2, 3})));
  EXPECT_TRUE(same(nn::CircularPad1d(1)(s), row({3, 0, 1, 2, 3, 0})));
  EXPECT_EQ(nn::ZeroPad2d(2).repr(), "ZeroPad2d((2, 2, 2, 2))");
  EXPECT_EQ(nn::ConstantPad1d(2, 3.5).repr(), "ConstantPad1d(padding=(2, 2), value=3.5)");
  EXPECT_EQ(nn::ConstantPad3d(1, 1.0).repr(), "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=1.0)");
  EXPECT_EQ(nn::ReflectionPad2d(DimVector{1, 1, 2, 0}).repr(), "ReflectionPad2d((1, 1, 2, 0))");
  EXPECT_EQ(nn::ReplicationPad3d(1).repr(), "ReplicationPad3d((1, 1, 1, 1, 1, 1))");
  EXPECT_THROW(nn::ReflectionPad2d(DimVector{1, 1}), ValueError);

  nn::Upsample up({.scale_factor = {2.0}});
  EXPECT_EQ(up.repr(), "Upsample(scale_factor=2.0, mode=nearest)");
  Tensor u = up(x);
  EXPECT_EQ(DimVector(u.sizes()), (DimVector{1, 2, 8, 10}));
  EXPECT_TRUE(same(u.narrow(2, 0, 1).narrow(3, 0, 1), x.narrow(2, 0, 1).narrow(3, 0, 1)));
  EXPECT_TRUE(same(u.narrow(2, 1, 1).narrow(3, 1, 1), x.narrow(2, 0, 1).narrow(3, 0, 1)));
  nn::Upsample bil({.size = {4, 5}, .mode = "bilinear", .align_corners = true});
  EXPECT_EQ(bil.repr(), "Upsample(size=(4, 5), mode=bilinear)");
  EXPECT_TRUE(close(bil(x), x));  // the same size with align_corners: the identity
  EXPECT_THROW(nn::Upsample({}), ValueError);

  nn::PixelShuffle ps(2);
  nn::PixelUnshuffle pu(2);
  Tensor c8 = randn(DimVector{1, 8, 3, 3});
  EXPECT_TRUE(same(ps(c8), pixel_shuffle(c8, 2)));
  EXPECT_TRUE(same(pu(ps(c8)), c8));
  EXPECT_EQ(ps.repr(), "PixelShuffle(upscale_factor=2)");
  EXPECT_EQ(nn::PixelUnshuffle(3).repr(), "PixelUnshuffle(downscale_factor=3)");
  nn::ChannelShuffle cs(2);
  Tensor ch = arange(4).to(ScalarType::Float32).reshape(DimVector{1, 4, 1});
  EXPECT_TRUE(
      same(cs(ch), tensor(std::vector<double>{0, 2, 1, 3}).to(ScalarType::Float32).reshape(DimVector{1, 4, 1})));
  EXPECT_EQ(cs.repr(), "ChannelShuffle(groups=2)");

  nn::Unfold unfold({.kernel_size = {2, 3}, .padding = {1}, .stride = {2}});
  EXPECT_EQ(unfold.repr(), "Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)");
  Tensor blocks = unfold(x);
  EXPECT_TRUE(same(blocks, im2col(x, {2, 3}, {1}, {1}, {2})));
  nn::Fold fold(DimVector{4, 5}, {.kernel_size = {2}});
  EXPECT_EQ(fold.repr(), "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)");
  // Non-overlapping blocks: fold(unfold(x)) == x.
  nn::Unfold tiles({.kernel_size = {2, 1}, .stride = {2, 1}});
  nn::Fold untile(DimVector{4, 5}, {.kernel_size = {2, 1}, .stride = {2, 1}});
  EXPECT_TRUE(same(untile(tiles(x)), x));

  Tensor a = randn(DimVector{5, 4}), b = randn(DimVector{5, 4});
  EXPECT_TRUE(same(nn::CosineSimilarity(0, 1e-6)(a, b), cosine_similarity(a, b, 0, 1e-6)));
  EXPECT_TRUE(close(nn::CosineSimilarity()(a, a), ones(DimVector{5})));
  EXPECT_TRUE(same(nn::PairwiseDistance(1.0, 1e-6, true)(a, b), pairwise_distance(a, b, 1.0, 1e-6, true)));
  EXPECT_TRUE(close(nn::PairwiseDistance()(a, a), full(DimVector{5}, 2e-6)));  // ||eps||_2 over 4 dims
  EXPECT_EQ(nn::CosineSimilarity().repr(), "CosineSimilarity()");
  EXPECT_EQ(nn::PairwiseDistance().repr(), "PairwiseDistance()");
}

// ---- MultiheadAttention and the Transformer

TEST(NnModulesExtra, MultiheadAttentionKeysAndValues) {
  manual_seed(0);
  nn::MultiheadAttention mha(8, 2);
  EXPECT_EQ(keys(mha), (Keys{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(shapes(mha), (Shapes{{24, 8}, {24}, {8, 8}, {8}}));
  EXPECT_EQ(mha.repr(),
            "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, "
            "bias=True)\n)");
  nn::MultiheadAttention kv(8, 2, {.add_bias_kv = true, .kdim = 4, .vdim = 6});
  EXPECT_EQ(keys(kv), (Keys{"q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                            "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(shapes(kv), (Shapes{{8, 8}, {8, 4}, {8, 6}, {24}, {1, 1, 8}, {1, 1, 8}, {8, 8}, {8}}));
  // torch.nn's init: xavier_uniform in_proj_weight (bound sqrt(6 / (8 + 24))), zero biases.
  EXPECT_LE(max(abs(mha.in_proj_weight)).item<double>(), std::sqrt(6.0 / 32));
  EXPECT_GT(max(abs(mha.in_proj_weight)).item<double>(), std::sqrt(6.0 / 32) * 0.8);
  EXPECT_TRUE(same(mha.in_proj_bias, zeros(DimVector{24})));
  EXPECT_TRUE(same(mha.out_proj->bias, zeros(DimVector{8})));

  // Against an independent composition: per-head scaled_dot_product_attention of the projected inputs.
  {
    autograd::NoGradGuard no_grad;
    normal_(mha.in_proj_bias);
    normal_(mha.out_proj->bias);
  }
  Tensor q = randn(DimVector{5, 3, 8}), k = randn(DimVector{7, 3, 8}), v = randn(DimVector{7, 3, 8});
  Tensor mask = lt(rand(DimVector{5, 7}), 0.3);
  fill_(mask.narrow(1, 0, 1), false);  // every query may attend to key 0
  auto [out, weights] = mha.forward(q, k, v, {}, true, mask);
  auto heads = [&](const Tensor& t, int i) {  // [L, B, E] -> [B, H, L, D]
    Tensor p = linear(t, mha.in_proj_weight.narrow(0, 8 * i, 8), mha.in_proj_bias.narrow(0, 8 * i, 8));
    return p.reshape(DimVector{t.size(0), 3, 2, 4}).permute(DimVector{1, 2, 0, 3});
  };
  Tensor ref = scaled_dot_product_attention(heads(q, 0), heads(k, 1), heads(v, 2), logical_not(mask));
  ref = linear(ref.permute(DimVector{2, 0, 1, 3}).reshape(DimVector{5, 3, 8}), mha.out_proj->weight,
               mha.out_proj->bias);
  EXPECT_TRUE(close(out, ref, 1e-5));
  EXPECT_EQ(DimVector(weights.sizes()), (DimVector{3, 5, 7}));
  EXPECT_TRUE(close(sum(weights, DimVector{2}), ones(DimVector{3, 5})));
  EXPECT_EQ(sum(mul(weights, mask.to(ScalarType::Float32))).item<double>(), 0.0);  // masked positions get 0
  // batch_first and unbatched inputs give the same values; per-head weights with average_attn_weights=false.
  nn::MultiheadAttention bf(8, 2, {.batch_first = true});
  bf.load_state_dict(mha.state_dict());
  EXPECT_TRUE(close(
      bf.forward(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), {}, false, mask).first.transpose(0, 1), out));
  auto [single, single_w] = mha.forward(q.select(1, 2), k.select(1, 2), v.select(1, 2), {}, true, mask, false);
  EXPECT_TRUE(close(single, out.select(1, 2)));
  EXPECT_EQ(DimVector(single_w.sizes()), (DimVector{2, 5, 7}));
  EXPECT_FALSE(mha.forward(q, k, v, {}, false).second.defined());
  // key_padding_mask: padded keys get no weight.
  Tensor kpm = zeros(DimVector{3, 7}, ScalarType::Bool);
  fill_(kpm.narrow(1, 5, 2), true);
  auto [o2, w2] = mha.forward(q, k, v, kpm);
  EXPECT_EQ(sum(w2.narrow(2, 5, 2)).item<double>(), 0.0);
  EXPECT_TRUE(close(o2, mha.forward(q, k.narrow(0, 0, 5), v.narrow(0, 0, 5)).first));
  // is_causal: a hint that attn_mask is the causal mask (without weights, the causal attention itself).
  Tensor sq = randn(DimVector{4, 3, 8}), causal = nn::generate_square_subsequent_mask(4);
  EXPECT_TRUE(close(mha.forward(sq, sq, sq, {}, false, causal, true, true).first,
                    mha.forward(sq, sq, sq, {}, false, causal).first));
  // bias_kv / add_zero_attn: one more key position each.
  nn::MultiheadAttention zero_attn(8, 2, {.add_bias_kv = true, .add_zero_attn = true});
  EXPECT_EQ(DimVector(zero_attn.forward(q, k, v).second.sizes()), (DimVector{3, 5, 9}));
  Tensor kk = randn(DimVector{7, 3, 4}), vv = randn(DimVector{7, 3, 6});
  EXPECT_EQ(DimVector(kv.forward(q, kk, vv).first.sizes()), (DimVector{5, 3, 8}));

  EXPECT_THROW(nn::MultiheadAttention(8, 3), ValueError);
  EXPECT_THROW(mha.forward(randn(DimVector{5, 3, 6}), k, v), ValueError);
  EXPECT_THROW(mha.forward(q, k, v.narrow(0, 0, 6)), ValueError);
  EXPECT_THROW(mha.forward(q), NotImplementedError);
}

TEST(NnModulesExtra, TransformerKeysAreTorchs) {
  const Keys attn = {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"};
  auto prefixed = [](const std::string& p, const Keys& ks) {
    Keys r;
    for (const auto& k : ks) r.push_back(p + k);
    return r;
  };
  Keys enc_layer = prefixed("self_attn.", attn);
  for (const char* k : {"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight",
                        "norm1.bias", "norm2.weight", "norm2.bias"})
    enc_layer.push_back(k);
  Keys dec_layer = prefixed("self_attn.", attn);
  for (const auto& k : prefixed("multihead_attn.", attn)) dec_layer.push_back(k);
  for (const char* k : {"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight",
                        "norm1.bias", "norm2.weight", "norm2.bias", "norm3.weight", "norm3.bias"})
    dec_layer.push_back(k);

  nn::TransformerLayerOptions o;
  o.dim_feedforward = 16;
  nn::TransformerEncoderLayer el(8, 2, o);
  EXPECT_EQ(keys(el), enc_layer);
  EXPECT_EQ(shapes(el), (Shapes{{24, 8}, {24}, {8, 8}, {8}, {16, 8}, {16}, {8, 16}, {8}, {8}, {8}, {8}, {8}}));
  nn::TransformerDecoderLayer dl(8, 2, o);
  EXPECT_EQ(keys(dl), dec_layer);
  // Transformer(8, 2, 1, 1, 16): PyTorch 1.13's key list.
  nn::Transformer t(8, 2, 1, 1, o);
  Keys expect = prefixed("encoder.layers.0.", enc_layer);
  expect.push_back("encoder.norm.weight");
  expect.push_back("encoder.norm.bias");
  for (const auto& k : prefixed("decoder.layers.0.", dec_layer)) expect.push_back(k);
  expect.push_back("decoder.norm.weight");
  expect.push_back("decoder.norm.bias");
  EXPECT_EQ(keys(t), expect);
  EXPECT_EQ(t.state_dict().size(), 34u);
  // Two layers: copies of the prototype (equal values, distinct tensors).
  nn::TransformerEncoder stack(el, 2);
  EXPECT_EQ(keys(stack).size(), 24u);
  EXPECT_EQ(keys(stack)[12], "layers.1.self_attn.in_proj_weight");
  auto l0 = stack.layers->at<nn::TransformerEncoderLayer>(0), l1 = stack.layers->at<nn::TransformerEncoderLayer>(1);
  EXPECT_TRUE(same(l0->linear1->weight, el.linear1->weight));
  EXPECT_TRUE(same(l1->linear1->weight, el.linear1->weight));
  EXPECT_FALSE(l0->linear1->weight.is_same(l1->linear1->weight));
  nn::TransformerLayerOptions bad;
  bad.activation = "tanh";
  EXPECT_THROW(nn::TransformerEncoderLayer(8, 2, bad), Error);
}

TEST(NnModulesExtra, TransformerLayersComputeTorchsFormula) {
  manual_seed(0);
  nn::TransformerLayerOptions o;
  o.dim_feedforward = 16;
  o.dropout = 0.0;
  nn::TransformerEncoderLayer el(8, 2, o);
  Tensor src = randn(DimVector{5, 3, 8});
  Tensor mask = nn::generate_square_subsequent_mask(5);
  // Post-norm: x = norm1(x + sa(x)); x = norm2(x + ff(x)).
  auto ff = [](nn::TransformerEncoderLayer& l, const Tensor& x) { return (*l.linear2)(relu((*l.linear1)(x))); };
  Tensor x = (*el.norm1)(src + el.self_attn->forward(src, src, src, {}, false, mask).first);
  Tensor expect = (*el.norm2)(x + ff(el, x));
  EXPECT_TRUE(close(el.forward(src, mask), expect));
  // Pre-norm with gelu.
  nn::TransformerLayerOptions pre = o;
  pre.norm_first = true;
  pre.activation = "gelu";
  nn::TransformerEncoderLayer pl(8, 2, pre);
  Tensor n1 = (*pl.norm1)(src);
  Tensor y = src + pl.self_attn->forward(n1, n1, n1, {}, false).first;
  Tensor y2 = y + (*pl.linear2)(gelu((*pl.linear1)((*pl.norm2)(y))));
  EXPECT_TRUE(close(pl(src), y2));

  // Decoder layer: self-attention, attention over memory, feed-forward.
  nn::TransformerDecoderLayer dl(8, 2, o);
  Tensor tgt = randn(DimVector{4, 3, 8}), memory = randn(DimVector{5, 3, 8});
  Tensor a = (*dl.norm1)(tgt + dl.self_attn->forward(tgt, tgt, tgt, {}, false).first);
  Tensor b = (*dl.norm2)(a + dl.multihead_attn->forward(a, memory, memory, {}, false).first);
  Tensor c = (*dl.norm3)(b + (*dl.linear2)(relu((*dl.linear1)(b))));
  EXPECT_TRUE(close(dl.forward(tgt, memory), c));

  // The Transformer: the decoder over the encoder's memory, each stack ending in its norm.
  nn::Transformer t(8, 2, 2, 1, o);
  for (const auto& [k, p] : t.named_parameters())
    if (p.dim() > 1) EXPECT_LE(max(abs(p)).item<double>(), std::sqrt(6.0 / (p.size(0) + p.size(1))) + 1e-6) << k;
  Tensor out = t.forward(src, tgt, {}, nn::generate_square_subsequent_mask(4));
  Tensor mem = t.encoder->forward(src);
  EXPECT_TRUE(close(out, t.decoder->forward(tgt, mem, nn::generate_square_subsequent_mask(4))));
  EXPECT_EQ(DimVector(out.sizes()), (DimVector{4, 3, 8}));
  EXPECT_THROW(t.forward(src, randn(DimVector{4, 2, 8})), Error);
  EXPECT_THROW(t.forward(src, randn(DimVector{4, 3, 6})), Error);
}

TEST(NnModulesExtra, TransformerTrainsFromCpp) {
  // Learn to copy the source sequence (teacher forcing): the loss falls.
  manual_seed(0);
  nn::TransformerLayerOptions o;
  o.dim_feedforward = 32;
  o.dropout = 0.0;
  o.batch_first = true;
  nn::Transformer t(16, 2, 1, 1, o);
  nn::Embedding emb(6, 16);
  nn::Linear head(16, 6);
  Tensor src = randint(0, 6, DimVector{8, 5});
  Tensor mask = nn::generate_square_subsequent_mask(5);
  std::vector<Tensor> params = t.parameters();
  for (const Tensor& p : emb.parameters()) params.push_back(p);
  for (const Tensor& p : head.parameters()) params.push_back(p);
  double first = 0, last = 0;
  for (int step = 0; step < 40; ++step) {
    Tensor logits = head(t.forward(emb(src), emb(src), {}, mask));
    Tensor loss = cross_entropy(logits.reshape(DimVector{40, 6}), src.reshape(DimVector{40}));
    for (Tensor& p : params) p.set_grad(Tensor());
    loss.backward();
    autograd::NoGradGuard no_grad;
    for (Tensor& p : params) binary_op(BinaryOp::Sub, p, p.grad() * 0.05, p);
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.5);
}

// ---- a model from the new layers, trained and saved from C++ alone

TEST(NnModulesExtra, TrainsAModelOfNewLayersAndRestoresItsState) {
  manual_seed(0);
  auto make = [] {
    auto m = std::make_shared<nn::Sequential>();
    m->push_back(std::make_shared<nn::ReflectionPad1d>(1));
    m->push_back(std::make_shared<nn::Conv1d>(nn::Conv1dOptions(2, 8, 3)));
    m->push_back(std::make_shared<nn::InstanceNorm1d>(8, 1e-5, 0.1, true));
    m->push_back(std::make_shared<nn::PReLU>(8));
    m->push_back(std::make_shared<nn::MaxPool1d>(2));
    m->push_back(std::make_shared<nn::ConvTranspose1d>(nn::ConvTranspose1dOptions(8, 4, 2).stride(2)));
    m->push_back(std::make_shared<nn::Mish>());
    m->push_back(std::make_shared<nn::Flatten>());
    m->push_back(std::make_shared<nn::Dropout1d>(0.0));
    m->push_back(std::make_shared<nn::Linear>(4 * 6, 3));
    return m;
  };
  auto m = make();
  EXPECT_EQ(keys(*m),
            (Keys{"1.weight", "1.bias", "2.weight", "2.bias", "3.weight", "5.weight", "5.bias", "9.weight", "9.bias"}));
  Tensor x = randn(DimVector{16, 2, 6});
  Tensor y = randint(0, 3, DimVector{16});
  nn::CrossEntropyLoss crit;
  auto [first, last] = train(*m, 60, 0.2, [&] { return crit(m->forward(x), y); });
  EXPECT_LT(last, first * 0.5);
  auto restored = make();
  restored->load_state_dict(m->state_dict());
  EXPECT_TRUE(same(restored->forward(x), m->forward(x)));
}
