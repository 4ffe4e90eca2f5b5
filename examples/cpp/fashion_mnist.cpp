// Trains the network of examples/python/fashion_mnist.py through the C++ API alone: the C++ DataLoader over the
// Fashion-MNIST IDX files (a worker thread builds the next batch while the model trains), the same layers, AdamW with
// a cosine schedule, test accuracy after every epoch.
//
//   build/dev/fashion_mnist_cpp [data_dir=/usr/share/datasets/fashion-mnist] [epochs=5] [batch_size=128] [workers=1]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

constexpr double kMean = 0.2860, kStd = 0.3530;  // Fashion-MNIST's pixel statistics

std::shared_ptr<nn::Sequential> make_net() {
  auto m = std::make_shared<nn::Sequential>();
  m->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 32, 3).padding(1)));
  m->push_back(std::make_shared<nn::BatchNorm2d>(32));
  m->push_back(std::make_shared<nn::ReLU>());
  m->push_back(std::make_shared<nn::MaxPool2d>(2));
  m->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(32, 64, 3).padding(1)));
  m->push_back(std::make_shared<nn::BatchNorm2d>(64));
  m->push_back(std::make_shared<nn::ReLU>());
  m->push_back(std::make_shared<nn::MaxPool2d>(2));
  m->push_back(std::make_shared<nn::Flatten>());
  m->push_back(std::make_shared<nn::Dropout>(0.25));
  m->push_back(std::make_shared<nn::Linear>(64 * 7 * 7, 128));
  m->push_back(std::make_shared<nn::ReLU>());
  m->push_back(std::make_shared<nn::Dropout>(0.25));
  m->push_back(std::make_shared<nn::Linear>(128, 10));
  return m;
}

double accuracy(nn::Sequential& model, data::DataLoader& loader) {
  model.eval();
  autograd::NoGradGuard no_grad;
  int64_t correct = 0, total = 0;
  for (const data::Example& b : loader) {
    correct += sum(eq(argmax(model.forward(b.data), 1), b.target)).item<int64_t>();
    total += b.target.numel();
  }
  return double(correct) / double(total);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  const int epochs = argc > 2 ? std::stoi(argv[2]) : 5;
  const int64_t batch_size = argc > 3 ? std::stoll(argv[3]) : 128;
  const int64_t workers = argc > 4 ? std::stoll(argv[4]) : 1;
  manual_seed(0);
  data::MNIST train(root, data::MNIST::Split::Train, kMean, kStd);
  data::MNIST test(root, data::MNIST::Split::Test, kMean, kStd);
  data::DataLoader train_loader(train, data::DataLoaderOptions().batch_size(batch_size).shuffle(true).workers(workers));
  data::DataLoader test_loader(test, data::DataLoaderOptions().batch_size(1000));

  auto model = make_net();
  optim::AdamW opt(model->parameters(), optim::AdamWOptions(2e-3).weight_decay(1e-4));
  optim::CosineAnnealingLR sched(opt, epochs * train_loader.size());
  std::cout << train.size() << " training and " << test.size() << " test images; " << epochs << " epochs of "
            << train_loader.size() << " batches\n";
  double train_seconds = 0, acc = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model->train();
    const auto t0 = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t seen = 0, correct = 0, step = 0;
    for (const data::Example& b : train_loader) {
      Tensor out = model->forward(b.data);
      Tensor loss = cross_entropy(out, b.target);
      opt.zero_grad();
      loss.backward();
      opt.step();
      sched.step();
      const int64_t n = b.target.numel();
      seen += n;
      loss_sum += loss.item<double>() * double(n);
      correct += sum(eq(argmax(out, 1), b.target)).item<int64_t>();
      if (++step % 50 == 0) {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("\r  epoch %d: %lld/%lld images, loss %.4f acc %.4f, %.0f img/s", epoch + 1, (long long)seen,
                    (long long)train.size(), loss_sum / double(seen), double(correct) / double(seen), double(seen) / t);
        std::fflush(stdout);
      }
    }
    std::printf("\n");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    train_seconds += seconds;
    acc = accuracy(*model, test_loader);
    std::printf("epoch %d: train loss %.4f acc %.4f | test acc %.4f | %.1fs, %.0f img/s\n", epoch + 1,
                loss_sum / double(seen), double(correct) / double(seen), acc, seconds, double(seen) / seconds);
    std::fflush(stdout);
  }
  std::printf("training time %.1fs; final test accuracy %.4f\n", train_seconds, acc);
  return 0;
}
