// Random sampling: ember.Generator, seeding, and the sampling functions (Note [Random numbers]).
#include <cstring>

#include "common.h"
#include "ember/cuda.h"
#include "factory_dispatch.h"

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
  nb::handle size_kw;
  parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kGenerator | kOut | kLayout, a, {{"size", &size_kw}});
  DimVector size = size_arg(args, size_kw, fn);
  if (dispatch::enabled() && !a.generator) [[unlikely]]
    if (auto h = offer_factory(normal_dist ? "aten.randn.default" : "aten.rand.default",
                               dispatch::values(IntArrayRef(size)), a))
      return nb::cast(*h);
  TensorOptions o = a.options(default_dtype());
  Tensor r = normal_dist ? randn(size, a.generator, o) : rand(size, a.generator, o);
  return finish_out(a.pinned(std::move(r)), a.out, fn);
}

// Docstrings (Note [Python surface], docs/architecture.md). The samplers parse `*size` and `**kwargs` themselves for
// speed; their nb::sig gives PyTorch's signature.
constexpr const char* kGeneratorDoc = R"(
A random number generator: the state that ember's sampling functions draw from.

Every generator is a counter-based Philox4x32-10 generator (docs/random.md): its state is a 64-bit seed and a 64-bit
offset, so a sequence of draws depends only on the seed and on the order of the calls, not on threads or strides.
Sampling functions take one through their ``generator`` keyword; without it they use the device's default generator
(``ember.default_generator`` on the CPU). The values differ from PyTorch's for the same seed.

Args:
    device (:class:`ember.device`, optional): the device whose tensors the generator fills. Default: ``"cpu"``.

Example::

    >>> g = ember.Generator().manual_seed(42)
    >>> a = ember.rand(3, generator=g)
    >>> b = ember.rand(3, generator=ember.Generator().manual_seed(42))
    >>> bool((a == b).all())
    True
)";

constexpr const char* kManualSeedDoc = R"(
Sets the seed of the default generators of every device and returns the CPU one (a :class:`ember.Generator`).

The offsets restart at 0, so the draws that follow are the same every time the program runs. Only the low 64 bits
of ``seed`` are used.

Args:
    seed (int): the seed.

Example::

    >>> _ = ember.manual_seed(0)
    >>> a = ember.rand(2)
    >>> _ = ember.manual_seed(0)
    >>> bool((ember.rand(2) == a).all())
    True
)";

constexpr const char* kRandDoc = R"(
Returns a tensor of the shape ``size`` filled with random numbers uniformly distributed on :math:`[0, 1)`.

Args:
    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`; may also be passed as the
        keyword ``size``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): a floating point type. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> ember.rand(2, 3).shape
    ember.Size([2, 3])
    >>> x = ember.rand(1000)
    >>> bool(((x >= 0) & (x < 1)).all())
    True
)";

constexpr const char* kRandnDoc = R"(
Returns a tensor of the shape ``size`` filled with random numbers from the standard normal distribution.

The values have mean 0 and variance 1:

.. math::
    \text{out}_{i} \sim \mathcal{N}(0, 1)

Args:
    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`; may also be passed as the
        keyword ``size``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): a floating point type. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> ember.randn(2, 3).shape
    ember.Size([2, 3])
    >>> ember.randn(size=(4,), dtype=ember.float64).dtype
    ember.float64
)";

constexpr const char* kRandintDoc = R"(
Returns a tensor of the shape ``size`` filled with random integers drawn uniformly from ``low`` to ``high - 1``.

Called as ``randint(high, size)`` or ``randint(low, high, size)``; each may also be passed by keyword.

Args:
    low (int, optional): the lowest value that can be drawn. Default: ``0``.
    high (int): one above the highest value that can be drawn.
    size (tuple of ints): the shape.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: ``ember.int64``.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> x = ember.randint(3, 10, (100,))
    >>> int(x.min()) >= 3 and int(x.max()) < 10
    True
    >>> ember.randint(10, size=(2, 2)).dtype
    ember.int64
)";

constexpr const char* kRandpermDoc = R"(
Returns a random permutation of the integers from ``0`` to ``n - 1``.

Args:
    n (int): the number of integers.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of ``n`` elements to write the result into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: ``ember.int64``.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> ember.randperm(5).sort().values
    tensor([0, 1, 2, 3, 4])
)";

constexpr const char* kNormalDoc = R"(
Returns a tensor of random numbers drawn from normal distributions of the given means and standard deviations.

.. math::
    \text{out}_{i} \sim \mathcal{N}(\text{mean}_{i}, \text{std}_{i}^2)

``mean`` and ``std`` may be tensors, which broadcast together (the result has their broadcast shape and dtype), or
floats. When both are floats, ``size`` gives the shape of the result, and the factory keywords (``dtype``,
``device``, ...) apply.

Args:
    mean (Tensor or float, optional): the means. Default: ``0.0``.
    std (Tensor or float, optional): the standard deviations (non-negative). Default: ``1.0``.
    size (sequence of ints, optional): the shape when ``mean`` and ``std`` are floats.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of the result's shape to write it into.
    dtype (:class:`ember.dtype`, optional): with float ``mean`` and ``std``: the data type. Default: the default
        dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): with float ``mean`` and ``std``: the device. Default: the default
        device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> ember.normal(mean=ember.zeros(3), std=ember.ones(3)).shape
    ember.Size([3])
    >>> ember.normal(2.0, 3.0, size=(2, 2)).shape
    ember.Size([2, 2])
)";

constexpr const char* kBernoulliDoc = R"(
Draws binary random numbers (0 or 1), each 1 with the probability given by the matching element of ``input``.

.. math::
    \text{out}_{i} \sim \mathrm{Bernoulli}(p = \text{input}_{i})

``input`` holds probabilities in :math:`[0, 1]`; with ``p`` given, every element is 1 with probability ``p``
instead and ``input`` gives only the shape, dtype and device. The result has ``input``'s shape and dtype.

Args:
    input (Tensor): the probabilities of drawing 1 (floating point).
    p (float, optional): one probability for every element, in place of ``input``'s values.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of the result's shape and dtype to write it into.

Example::

    >>> ember.bernoulli(ember.tensor([0.0, 1.0, 1.0]))
    tensor([0., 1., 1.])
)";

constexpr const char* kMultinomialDoc = R"(
Draws ``num_samples`` indices from the categorical distribution whose weights are the rows of ``input``.

The weights are non-negative and need not sum to one. ``input`` is 1-D (one distribution: the result has
``num_samples`` elements) or 2-D (one distribution per row: the result is ``(rows, num_samples)``). The result holds
column indices of ``input``, as ``ember.int64``. Without replacement, an index is drawn at most once per row, so
``num_samples`` cannot exceed the number of non-zero weights.

Args:
    input (Tensor): the weights.
    num_samples (int): the number of indices to draw per row.
    replacement (bool, optional): whether an index may be drawn more than once. Default: ``False``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
    out (Tensor, optional): a tensor of the result's shape to write it into.

Example::

    >>> ember.multinomial(ember.tensor([0.0, 10.0, 0.0]), 2, replacement=True)
    tensor([1, 1])
)";

#define EMBER_RAND_LIKE_KWARGS                                                                                     \
  "    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default " \
  "one.\n"                                                                                                         \
  "    dtype (:class:`ember.dtype`, optional): the desired data type. Default: ``input``'s.\n"                     \
  "    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.\n"                           \
  "    device (:class:`ember.device`, optional): the desired device. Default: ``input``'s.\n"                      \
  "    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.\n"   \
  "    memory_format (:class:`ember.memory_format`, optional): the memory layout of the result. Default:\n"        \
  "        ``ember.preserve_format``, ``input``'s strides when ``input`` is dense, else contiguous.\n"

constexpr const char* kRandLikeDoc =
    "Returns a tensor of the same size as ``input`` filled with random numbers uniformly distributed on "
    ":math:`[0, 1)`.\n\n"
    "``ember.rand_like(input)`` is ``ember.rand(input.size(), dtype=input.dtype, device=input.device)``.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n\n"
    "Keyword args:\n" EMBER_RAND_LIKE_KWARGS
    "\nExample::\n\n    >>> ember.rand_like(ember.zeros(2, 3)).shape\n    ember.Size([2, 3])\n";
constexpr const char* kRandnLikeDoc =
    "Returns a tensor of the same size as ``input`` filled with random numbers from the standard normal "
    "distribution.\n\n"
    "``ember.randn_like(input)`` is ``ember.randn(input.size(), dtype=input.dtype, device=input.device)``.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n\n"
    "Keyword args:\n" EMBER_RAND_LIKE_KWARGS
    "\nExample::\n\n    >>> ember.randn_like(ember.zeros(2, dtype=ember.float64)).dtype\n    ember.float64\n";
constexpr const char* kRandintLikeDoc =
    "Returns a tensor of the same size as ``input`` filled with random integers drawn uniformly from "
    ":math:`[\\text{low}, \\text{high})`.\n\n"
    "Called as ``randint_like(input, high)`` or ``randint_like(input, low, high)``.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n"
    "    low (int, optional): the lowest value that can be drawn. Default: ``0``.\n"
    "    high (int): one above the highest value that can be drawn.\n\n"
    "Keyword args:\n" EMBER_RAND_LIKE_KWARGS
    "\nExample::\n\n    >>> x = ember.randint_like(ember.zeros(100), 5, 8)\n"
    "    >>> float(x.min()) >= 5 and float(x.max()) < 8\n    True\n";
#undef EMBER_RAND_LIKE_KWARGS

constexpr const char* kUniformDoc = R"(
Fills ``self`` with random numbers uniformly distributed on :math:`[\text{from}, \text{to})` and returns it.

Args:
    from (float, optional): the lower bound. Default: ``0``.
    to (float, optional): the upper bound. Default: ``1``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.

Example::

    >>> x = ember.empty(100).uniform_(-2, 2)
    >>> bool(((x >= -2) & (x < 2)).all())
    True
)";

constexpr const char* kNormalInplaceDoc = R"(
Fills ``self`` with random numbers from the normal distribution of mean ``mean`` and standard deviation ``std``.

Args:
    mean (float, optional): the mean. Default: ``0``.
    std (float, optional): the standard deviation. Default: ``1``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
)";

constexpr const char* kBernoulliInplaceDoc = R"(
Fills ``self`` with binary random numbers (0 or 1), each 1 with probability ``p``, and returns it.

Args:
    p (float, optional): the probability of drawing 1. Default: ``0.5``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
)";

constexpr const char* kRandomInplaceDoc = R"(
Fills ``self`` with random integers drawn uniformly from :math:`[\text{from}, \text{to} - 1]` and returns it.

``x.random_(to)`` draws from :math:`[0, \text{to} - 1]`; ``x.random_()`` from :math:`[0, 2^{p}]` for a floating
point dtype whose significand has :math:`p` bits (24 for float32, 53 for float64, so that every value is exact), and
from :math:`[0, \max]` for an integer dtype. Floating point tensors receive integer values.

Args:
    from (int, optional): the lowest value that can be drawn. Default: ``0``.
    to (int, optional): one above the highest value that can be drawn.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.

Example::

    >>> x = ember.zeros(100, dtype=ember.int64).random_(3, 6)
    >>> int(x.min()) >= 3 and int(x.max()) <= 5
    True
)";

constexpr const char* kBernoulliMethodDoc = R"(
Draws binary random numbers (0 or 1), each 1 with the probability given by the matching element of ``self``.

With ``p`` given, every element is 1 with probability ``p`` instead. See :func:`ember.bernoulli`.

Args:
    p (float, optional): one probability for every element, in place of ``self``'s values.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.
)";

}  // namespace

void init_sampling(nb::module_& m);  // sampling.cpp

void init_random(nb::module_& m) {
  init_sampling(m);
  nb::class_<Generator>(m, "Generator", kGeneratorDoc)
      .def(
          "__init__",
          [](Generator* g, nb::handle device) {
            auto d = to_device(device);
            new (g) Generator(d.value_or(kCPU));
          },
          nb::arg("device") = "cpu", nb::sig("def __init__(self, device: device | str = 'cpu') -> None"))
      .def_prop_ro("device", &Generator::device, "The device whose tensors this generator fills.")
      .def(
          "manual_seed",
          [](nb::handle self, nb::handle seed) {
            nb::cast<Generator&>(self).manual_seed(seed_arg(seed));
            return nb::borrow(self);
          },
          nb::arg("seed"), nb::sig("def manual_seed(self, seed: int) -> Generator"),
          "Sets the seed (its low 64 bits), restarts the offset at 0 and returns the generator.")
      .def("seed", &Generator::seed,
           "Seeds the generator from a non-deterministic source (the time and the OS) and returns that seed.")
      .def("initial_seed", &Generator::initial_seed, "Returns the seed the generator was last seeded with.")
      .def(
          "get_state", [](const Generator& g) { return state_tensor(g.state()); },
          "Returns the generator's state: a CPU ``ember.uint8`` tensor of 16 bytes, the seed then the offset.")
      .def(
          "set_state",
          [](nb::handle self, const Tensor& t) {
            nb::cast<Generator&>(self).set_state(state_from(t));
            return nb::borrow(self);
          },
          nb::arg("new_state"), nb::sig("def set_state(self, new_state: Tensor) -> Generator"),
          "Restores a state returned by :meth:`get_state` and returns the generator.");

  m.def(
      "default_generator", [] { return &default_generator(kCPU); }, nb::rv_policy::reference,
      "Returns the CPU's default generator (``ember.default_generator``), the one sampling functions use unless "
      "given another.");
  m.def(
      "manual_seed",
      [](nb::handle seed) {
        manual_seed(seed_arg(seed));
        return &default_generator(kCPU);
      },
      nb::rv_policy::reference, nb::arg("seed"), nb::sig("def manual_seed(seed: int) -> Generator"), kManualSeedDoc);
  m.def(
      "seed",
      [] {
        uint64_t s = default_generator(kCPU).seed();
        manual_seed(s);
        return s;
      },
      R"(Seeds the default generators of every device from a non-deterministic source and returns that seed.

The seed is a 64-bit int; :func:`ember.manual_seed` with it repeats the draws that follow.)");
  m.def(
      "_cuda_manual_seed",
      [](nb::handle seed, bool all) {
        // Like PyTorch, silently does nothing where CUDA is unavailable.
        const int n = cuda::device_count();
        for (int i = 0; i < n; ++i)
          if (all || i == cuda::current_device())
            default_generator(Device(DeviceType::CUDA, i)).manual_seed(seed_arg(seed));
      },
      nb::arg("seed"), nb::arg("all"));
  m.def(
      "initial_seed", [] { return default_generator(kCPU).initial_seed(); },
      "Returns the seed the CPU's default generator was last seeded with (a 64-bit int).");
  m.def(
      "get_rng_state", [] { return state_tensor(default_generator(kCPU).state()); },
      R"(Returns the state of the CPU's default generator as an ``ember.uint8`` tensor.

The state is 16 bytes, the seed then the offset (docs/random.md); :func:`ember.set_rng_state` restores it.

Example::

    >>> state = ember.get_rng_state()
    >>> a = ember.rand(2)
    >>> ember.set_rng_state(state)
    >>> bool((ember.rand(2) == a).all())
    True)");
  m.def(
      "set_rng_state", [](const Tensor& t) { default_generator(kCPU).set_state(state_from(t)); }, nb::arg("new_state"),
      R"(Restores the state of the CPU's default generator.

Args:
    new_state (Tensor): a state returned by :func:`ember.get_rng_state` (a CPU ``ember.uint8`` tensor of 16 bytes).)");

  m.def(
      "rand", [](nb::args a, nb::kwargs kw) { return sized(a, kw, "rand", false); },
      nb::sig("def rand(*size: int, generator: Generator | None = None, out: Tensor | None = None, dtype: dtype | "
              "None = None, layout: layout | None = None, device: device | None = None, requires_grad: bool = "
              "False, pin_memory: bool = False) -> Tensor"),
      kRandDoc);
  m.def(
      "randn", [](nb::args a, nb::kwargs kw) { return sized(a, kw, "randn", true); },
      nb::sig("def randn(*size: int, generator: Generator | None = None, out: Tensor | None = None, dtype: dtype | "
              "None = None, layout: layout | None = None, device: device | None = None, requires_grad: bool = "
              "False, pin_memory: bool = False) -> Tensor"),
      kRandnDoc);
  m.def(
      "randint",
      [](nb::args args, nb::kwargs kw) {
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
        if (dispatch::enabled() && !a.generator) [[unlikely]] {
          FactoryArgs offered = a;
          offered.dtype = a.dtype.value_or(ScalarType::Int64);
          auto h = pos.size() == 3
                       ? offer_factory("aten.randint.low", dispatch::values(low, high, IntArrayRef(size)), offered)
                       : offer_factory("aten.randint.default", dispatch::values(high, IntArrayRef(size)), offered);
          if (h) return nb::cast(*h);
        }
        Tensor r = randint(low, high, size, a.generator, a.options());
        return finish_out(r, a.out, "randint");
      },
      nb::sig("def randint(*args: int | Sequence[int], low: int = 0, high: int, size: Sequence[int], generator: "
              "Generator | None = None, out: Tensor | None = None, dtype: dtype | None = None, layout: layout | None = "
              "None, device: device | None = None, requires_grad: bool = False) -> Tensor"),
      kRandintDoc);
  m.def(
      "randperm",
      [](int64_t n, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "randperm", kDtype | kDevice | kRequiresGrad | kGenerator | kOut | kLayout, a);
        return finish_out(a.pinned(randperm(n, a.generator, a.options())), a.out, "randperm");
      },
      nb::arg("n"), nb::arg("kwargs"),
      nb::sig("def randperm(n: int, *, generator: Generator | None = None, out: Tensor | None = None, dtype: dtype = "
              "ember.int64, layout: layout | None = None, device: device | None = None, requires_grad: bool = False, "
              "pin_memory: bool = False) -> Tensor"),
      kRandpermDoc);
  m.def(
      "normal",
      [](nb::handle mean, nb::handle std, nb::handle size, nb::kwargs kw) -> nb::object {
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
      },
      nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::arg("size") = nb::none(), nb::arg("kwargs"),
      nb::sig("def normal(mean: Tensor | float = 0.0, std: Tensor | float = 1.0, size: Sequence[int] | None = None, *, "
              "generator: Generator | None = None, out: Tensor | None = None, dtype: dtype | None = None, layout: "
              "layout | None = None, device: device | None = None, requires_grad: bool = False) -> Tensor"),
      kNormalDoc);
  m.def(
      "bernoulli",
      [](const Tensor& p, std::optional<double> pv, Generator* g, nb::handle out) {
        Tensor r = pv ? bernoulli(p, *pv, g) : bernoulli(p, g);
        return finish_out(r, out, "bernoulli");
      },
      nb::arg("input"), nb::arg("p") = nb::none(), nb::kw_only(), nb::arg("generator") = nb::none(),
      nb::arg("out") = nb::none(),
      nb::sig("def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None, out: Tensor "
              "| None = None) -> Tensor"),
      kBernoulliDoc);
  m.def(
      "multinomial",
      [](const Tensor& p, int64_t n, bool repl, Generator* g, nb::handle out) {
        return finish_out(multinomial(p, n, repl, g), out, "multinomial");
      },
      nb::arg("input"), nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
      nb::arg("generator") = nb::none(), nb::arg("out") = nb::none(),
      nb::sig("def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | "
              "None = None, out: Tensor | None = None) -> Tensor"),
      kMultinomialDoc);

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
  m.def(
      "rand_like",
      [like_opts, finish_like](const Tensor& t, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "rand_like", kDtype | kDevice | kRequiresGrad | kGenerator | kLayout, a);
        return finish_like(rand(t.sizes(), a.generator, like_opts(t, a)), t, a);
      },
      nb::arg("input"), nb::arg("kwargs"),
      nb::sig("def rand_like(input: Tensor, *, generator: Generator | None = None, dtype: dtype | None = None, layout: "
              "layout | None = None, device: device | None = None, requires_grad: bool = False, memory_format: "
              "memory_format = ember.preserve_format) -> Tensor"),
      kRandLikeDoc);
  m.def(
      "randn_like",
      [like_opts, finish_like](const Tensor& t, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "randn_like", kDtype | kDevice | kRequiresGrad | kGenerator | kLayout, a);
        return finish_like(randn(t.sizes(), a.generator, like_opts(t, a)), t, a);
      },
      nb::arg("input"), nb::arg("kwargs"),
      nb::sig("def randn_like(input: Tensor, *, generator: Generator | None = None, dtype: dtype | None = None, "
              "layout: layout | None = None, device: device | None = None, requires_grad: bool = False, "
              "memory_format: memory_format = ember.preserve_format) -> Tensor"),
      kRandnLikeDoc);
  m.def(
      "randint_like",
      [like_opts, finish_like](const Tensor& t, std::optional<int64_t> a0, std::optional<int64_t> a1, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "randint_like", kDtype | kDevice | kRequiresGrad | kGenerator | kLayout, a);
        // randint_like(input, high), randint_like(input, low, high), or by keyword: randint_like(input, high=5)
        EMBER_CHECK_TYPE(a0 || a1, "randint_like() missing required argument 'high'");
        const int64_t low = a1 ? a0.value_or(0) : 0, high = a1 ? *a1 : *a0;
        return finish_like(randint(low, high, t.sizes(), a.generator, like_opts(t, a)), t, a);
      },
      nb::arg("input"), nb::arg("low") = nb::none(), nb::arg("high") = nb::none(), nb::arg("kwargs"),
      nb::sig("def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, generator: Generator | None = "
              "None, dtype: dtype | None = None, layout: layout | None = None, device: device | None = None, "
              "requires_grad: bool = False, memory_format: memory_format = ember.preserve_format) -> Tensor"),
      kRandintLikeDoc);

  auto cls = nb::type<Tensor>();
  cls.attr("uniform_") = nb::cpp_function(
      [](nb::handle self, double from, double to, Generator* g) {
        uniform_(nb::cast<const Tensor&>(self), from, to, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("uniform_"), nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def uniform_(self, from: float = 0, to: float = 1, *, generator: Generator | None = None) -> Tensor"),
      kUniformDoc);
  cls.attr("normal_") = nb::cpp_function(
      [](nb::handle self, double mean, double std, Generator* g) {
        normal_(nb::cast<const Tensor&>(self), mean, std, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("normal_"), nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def normal_(self, mean: float = 0, std: float = 1, *, generator: Generator | None = None) -> Tensor"),
      kNormalInplaceDoc);
  cls.attr("bernoulli_") = nb::cpp_function(
      [](nb::handle self, double p, Generator* g) {
        bernoulli_(nb::cast<const Tensor&>(self), p, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("bernoulli_"), nb::arg("p") = 0.5, nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def bernoulli_(self, p: float = 0.5, *, generator: Generator | None = None) -> Tensor"),
      kBernoulliInplaceDoc);
  cls.attr("random_") = nb::cpp_function(
      [](nb::handle self, std::optional<int64_t> a0, std::optional<int64_t> a1, Generator* g) {
        // random_(), random_(to), random_(from, to)
        const int64_t from = a1 ? a0.value_or(0) : 0;
        std::optional<int64_t> to = a1 ? a1 : a0;
        random_(nb::cast<const Tensor&>(self), from, to, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("random_"), nb::arg("from") = nb::none(), nb::arg("to") = nb::none(),
      nb::kw_only(), nb::arg("generator") = nb::none(),
      nb::sig("def random_(self, from: int = 0, to: int | None = None, *, generator: Generator | None = None) -> "
              "Tensor"),
      kRandomInplaceDoc);
  cls.attr("bernoulli") = nb::cpp_function(
      [](const Tensor& t, std::optional<double> p, Generator* g) { return p ? bernoulli(t, *p, g) : bernoulli(t, g); },
      nb::is_method(), nb::scope(cls), nb::name("bernoulli"), nb::arg("p") = nb::none(), nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def bernoulli(self, p: float | None = None, *, generator: Generator | None = None) -> Tensor"),
      kBernoulliMethodDoc);
  cls.attr("multinomial") = nb::cpp_function(
      [](const Tensor& t, int64_t n, bool r, Generator* g) { return multinomial(t, n, r, g); }, nb::is_method(),
      nb::scope(cls), nb::name("multinomial"), nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def multinomial(self, num_samples: int, replacement: bool = False, *, generator: Generator | None = "
              "None) -> Tensor"),
      method_doc(kMultinomialDoc, "multinomial").c_str());
}

}  // namespace ember::py
