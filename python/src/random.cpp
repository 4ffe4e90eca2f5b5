// Random sampling: ember.Generator, seeding, and the sampling functions (Note [Random numbers]).
#include <cstring>

#include "common.h"
#include "ember/cuda.h"

namespace ember::py {

namespace {

uint64_t seed_arg(nb::handle h) {
  // PyTorch accepts any Python int and keeps its low 64 bits.
  EMBER_CHECK_TYPE(PyLong_Check(h.ptr()), "manual_seed expected an int, got ", nb::inst_name(h).c_str());
  nb::object low = nb::steal(PyNumber_And(h.ptr(), nb::steal(PyLong_FromUnsignedLongLong(~0ull)).ptr()));
  return PyLong_AsUnsignedLongLong(low.ptr());
}

Tensor state_tensor(PhiloxState s) {
  Tensor t = empty({{16}}, ScalarType::UInt8);
  std::memcpy(t.data_ptr(), &s.seed, 8);
  std::memcpy(static_cast<char*>(t.data_ptr()) + 8, &s.offset, 8);
  return t;
}

PhiloxState state_from(const Tensor& t) {
  EMBER_CHECK_TYPE(t.dtype() == ScalarType::UInt8 && t.numel() == 16 && t.device().is_cpu(),
                   "set_state: expected a CPU uint8 tensor of 16 elements (from get_state()), got ", t.dtype(),
                   " of shape ", shape_str(t.sizes()), " on ", t.device());
  Tensor c = contiguous(t);
  PhiloxState s;
  std::memcpy(&s.seed, c.data_ptr(), 8);
  std::memcpy(&s.offset, static_cast<char*>(c.data_ptr()) + 8, 8);
  return s;
}

nb::object sized(const nb::args& args, const nb::kwargs& kw, const char* fn, bool normal_dist) {
  FactoryArgs a;
  parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kGenerator | kOut | kLayout, a);
  DimVector size = parse_size(args, 0, fn);
  TensorOptions o = a.options(default_dtype());
  Tensor r = normal_dist ? randn(size, a.generator, o) : rand(size, a.generator, o);
  return finish_out(std::move(r), a.out, fn);
}

}  // namespace

void init_sampling(nb::module_& m);  // sampling.cpp

void init_random(nb::module_& m) {
  init_sampling(m);
  nb::class_<Generator>(m, "Generator")
      .def("__init__", [](Generator* g, nb::handle device) {
        auto d = to_device(device);
        new (g) Generator(d.value_or(kCPU));
      }, nb::arg("device") = "cpu")
      .def_prop_ro("device", &Generator::device)
      .def("manual_seed", [](nb::handle self, nb::handle seed) {
        nb::cast<Generator&>(self).manual_seed(seed_arg(seed));
        return nb::borrow(self);
      })
      .def("seed", &Generator::seed)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", [](const Generator& g) { return state_tensor(g.state()); })
      .def("set_state", [](nb::handle self, const Tensor& t) {
        nb::cast<Generator&>(self).set_state(state_from(t));
        return nb::borrow(self);
      });

  m.def("default_generator", [] { return &default_generator(kCPU); }, nb::rv_policy::reference);
  m.def("manual_seed", [](nb::handle seed) {
    manual_seed(seed_arg(seed));
    return &default_generator(kCPU);
  }, nb::rv_policy::reference);
  m.def("seed", [] {
    uint64_t s = default_generator(kCPU).seed();
    manual_seed(s);
    return s;
  });
  m.def("_cuda_manual_seed", [](nb::handle seed, bool all) {
    // Like PyTorch, silently does nothing where CUDA is unavailable.
    const int n = cuda::device_count();
    for (int i = 0; i < n; ++i)
      if (all || i == cuda::current_device()) default_generator(Device(DeviceType::CUDA, i)).manual_seed(seed_arg(seed));
  });
  m.def("initial_seed", [] { return default_generator(kCPU).initial_seed(); });
  m.def("get_rng_state", [] { return state_tensor(default_generator(kCPU).state()); });
  m.def("set_rng_state", [](const Tensor& t) { default_generator(kCPU).set_state(state_from(t)); });

  m.def("rand", [](nb::args a, nb::kwargs kw) { return sized(a, kw, "rand", false); });
  m.def("randn", [](nb::args a, nb::kwargs kw) { return sized(a, kw, "randn", true); });
  m.def("randint", [](nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    nb::handle size_kw, low_kw, high_kw;
    parse_factory_kwargs(kw, "randint", kDtype | kDevice | kRequiresGrad | kGenerator | kOut | kLayout, a,
                         {{"size", &size_kw}, {"low", &low_kw}, {"high", &high_kw}});
    // randint(high, size) or randint(low, high, size)
    std::vector<nb::handle> pos(args.begin(), args.end());
    if (size_kw.is_valid()) pos.push_back(size_kw);
    if (low_kw.is_valid()) pos.insert(pos.begin(), low_kw);
    if (high_kw.is_valid()) pos.insert(pos.end() - (size_kw.is_valid() ? 1 : 0), high_kw);
    EMBER_CHECK_TYPE(pos.size() == 2 || pos.size() == 3,
                     "randint() expects (high, size) or (low, high, size), got ", pos.size(), " arguments");
    int64_t low = pos.size() == 3 ? to_int(pos[0], "randint", "low") : 0;
    int64_t high = to_int(pos[pos.size() - 2], "randint", "high");
    DimVector size = to_int_list(pos.back(), "randint", "size");
    Tensor r = randint(low, high, size, a.generator, a.options());
    return finish_out(r, a.out, "randint");
  });
  m.def("randperm", [](int64_t n, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "randperm", kDtype | kDevice | kRequiresGrad | kGenerator | kOut | kLayout, a);
    return finish_out(randperm(n, a.generator, a.options()), a.out, "randperm");
  }, nb::arg("n"), nb::arg("kwargs"));
  m.def("normal", [](nb::handle mean, nb::handle std, nb::handle size, nb::kwargs kw) -> nb::object {
    FactoryArgs a;
    parse_factory_kwargs(kw, "normal", kDtype | kDevice | kRequiresGrad | kGenerator | kOut | kLayout, a);
    const bool mt = nb::isinstance<Tensor>(mean), st = nb::isinstance<Tensor>(std);
    Tensor r;
    if (mt && st)
      r = normal(nb::cast<const Tensor&>(mean), nb::cast<const Tensor&>(std), a.generator);
    else if (mt)
      r = normal(nb::cast<const Tensor&>(mean), to_scalar(std, "normal").to_double(), a.generator);
    else if (st)
      r = normal(to_scalar(mean, "normal").to_double(), nb::cast<const Tensor&>(std), a.generator);
    else {
      EMBER_CHECK_TYPE(!size.is_none(), "normal(): with float mean and std, a size is required");
      r = normal(to_scalar(mean, "normal").to_double(), to_scalar(std, "normal").to_double(),
                 to_int_list(size, "normal", "size"), a.generator, a.options(default_dtype()));
    }
    return finish_out(r, a.out, "normal");
  }, nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::arg("size") = nb::none(), nb::arg("kwargs"));
  m.def("bernoulli", [](const Tensor& p, std::optional<double> pv, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "bernoulli", kGenerator | kOut, a);
    Tensor r = pv ? bernoulli(p, *pv, a.generator) : bernoulli(p, a.generator);
    return finish_out(r, a.out, "bernoulli");
  }, nb::arg("input"), nb::arg("p") = nb::none(), nb::arg("kwargs"));
  m.def("multinomial", [](const Tensor& p, int64_t n, bool repl, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "multinomial", kGenerator | kOut, a);
    return finish_out(multinomial(p, n, repl, a.generator), a.out, "multinomial");
  }, nb::arg("input"), nb::arg("num_samples"), nb::arg("replacement") = false, nb::arg("kwargs"));

  auto like_opts = [](const Tensor& t, const FactoryArgs& a) {
    return TensorOptions(a.dtype.value_or(t.dtype())).device(a.device.value_or(t.device()));
  };
  // The *_like result in the requested memory format (preserve_format, the default: t's strides when t is dense, as
  // empty_like), then a leaf that requires grad when asked.
  auto finish_like = [](Tensor r, const Tensor& t, const FactoryArgs& a) {
    const MemoryFormat mf = a.memory_format.value_or(MemoryFormat::Preserve);
    if (mf != MemoryFormat::Preserve) {
      r = contiguous(r, mf);
    } else if (!t.is_contiguous() && is_contiguous(t, MemoryFormat::Preserve)) {
      Tensor out = empty_like(t, TensorOptions(r.dtype()).device(r.device()));
      copy_(out, r);
      r = out;
    }
    if (a.requires_grad) r.set_requires_grad(true);
    return r;
  };
  m.def("rand_like", [like_opts, finish_like](const Tensor& t, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "rand_like", kDtype | kDevice | kRequiresGrad | kGenerator | kLayout, a);
    return finish_like(rand(t.sizes(), a.generator, like_opts(t, a)), t, a);
  }, nb::arg("input"), nb::arg("kwargs"));
  m.def("randn_like", [like_opts, finish_like](const Tensor& t, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "randn_like", kDtype | kDevice | kRequiresGrad | kGenerator | kLayout, a);
    return finish_like(randn(t.sizes(), a.generator, like_opts(t, a)), t, a);
  }, nb::arg("input"), nb::arg("kwargs"));
  m.def("randint_like", [like_opts, finish_like](const Tensor& t, int64_t a0, std::optional<int64_t> a1,
                                                 nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "randint_like", kDtype | kDevice | kRequiresGrad | kGenerator | kLayout, a);
    const int64_t low = a1 ? a0 : 0, high = a1 ? *a1 : a0;
    return finish_like(randint(low, high, t.sizes(), a.generator, like_opts(t, a)), t, a);
  }, nb::arg("input"), nb::arg("low"), nb::arg("high") = nb::none(), nb::arg("kwargs"));

  auto cls = nb::type<Tensor>();
  cls.attr("uniform_") = nb::cpp_function([](nb::handle self, double from, double to, Generator* g) {
    uniform_(nb::cast<const Tensor&>(self), from, to, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::kw_only(), nb::arg("generator") = nb::none());
  cls.attr("normal_") = nb::cpp_function([](nb::handle self, double mean, double std, Generator* g) {
    normal_(nb::cast<const Tensor&>(self), mean, std, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::kw_only(), nb::arg("generator") = nb::none());
  cls.attr("bernoulli_") = nb::cpp_function([](nb::handle self, double p, Generator* g) {
    bernoulli_(nb::cast<const Tensor&>(self), p, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("p") = 0.5, nb::kw_only(), nb::arg("generator") = nb::none());
  cls.attr("random_") = nb::cpp_function([](nb::handle self, std::optional<int64_t> a0, std::optional<int64_t> a1,
                                            Generator* g) {
    // random_(), random_(to), random_(from, to)
    const int64_t from = a1 ? a0.value_or(0) : 0;
    std::optional<int64_t> to = a1 ? a1 : a0;
    random_(nb::cast<const Tensor&>(self), from, to, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("from") = nb::none(), nb::arg("to") = nb::none(), nb::kw_only(),
     nb::arg("generator") = nb::none());
  cls.attr("bernoulli") = nb::cpp_function([](const Tensor& t, std::optional<double> p, Generator* g) {
    return p ? bernoulli(t, *p, g) : bernoulli(t, g);
  }, nb::is_method(), nb::arg("p") = nb::none(), nb::kw_only(), nb::arg("generator") = nb::none());
  cls.attr("multinomial") = nb::cpp_function([](const Tensor& t, int64_t n, bool r, Generator* g) {
    return multinomial(t, n, r, g);
  }, nb::is_method(), nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
     nb::arg("generator") = nb::none());
}

}  // namespace ember::py
