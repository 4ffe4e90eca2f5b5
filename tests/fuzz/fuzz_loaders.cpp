// Mutation fuzzing of the checkpoint loaders (ember's format and safetensors; docs/serialization.md).
//
// LLVMFuzzerTestOneInput runs both loaders on one input: each must load it or throw ember::Error (or a
// subclass); any other exception, a crash, or an allocation larger than the input justifies aborts. Built
// with clang's -fsanitize=fuzzer -DEMBER_LIBFUZZER it is a libFuzzer target; otherwise main() below mutates
// seeds itself (bit flips, byte sets, truncation, insertion, deletion, header-length edits, JSON number and
// string edits, bracket edits, splices) for a given number of iterations per loader. scripts/fuzz runs it
// under AddressSanitizer.
//
//   fuzz_loaders [--iterations N] [--seed S] [seed files...]   (seeds are generated when none are given)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "ember/serialize/checksum.h"
#include "ember/serialize/format.h"
#include "ember/serialize/safetensors.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

using namespace ember;

namespace {

// ---- allocation bound: no single allocation may exceed what the input's size justifies (a parsed JSON value
// costs a bounded number of bytes per input byte); a size taken from a header field would blow through it.
size_t g_limit = SIZE_MAX;
const uint8_t* g_input = nullptr;
size_t g_input_size = 0;

void dump_input(const char* why) {
  if (!g_input) return;
  std::ofstream f("fuzz-crash.bin", std::ios::binary);
  f.write(reinterpret_cast<const char*>(g_input), static_cast<std::streamsize>(g_input_size));
  std::fprintf(stderr, "fuzz_loaders: %s; the input (%zu bytes) is in fuzz-crash.bin\n", why, g_input_size);
}

[[noreturn]] void die(const char* why) {
  dump_input(why);
  std::abort();
}

void* checked_alloc(size_t n) {
  if (n > g_limit) {
    std::fprintf(stderr, "fuzz_loaders: an allocation of %zu bytes for an input of %zu bytes\n", n, g_input_size);
    die("allocation larger than the input justifies");
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}

struct Stats {
  uint64_t runs = 0, loaded = 0, rejected = 0;
};
Stats g_ember, g_safetensors;

template <class F>
void run_one(Stats& st, F&& load) {
  ++st.runs;
  try {
    load();
    ++st.loaded;
  } catch (const Error&) {
    ++st.rejected;  // a clear error: what a malformed file must give
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_loaders: unexpected exception (not ember::Error): %s\n", e.what());
    die("unexpected exception type");
  }
}

}  // namespace

void* operator new(size_t n) { return checked_alloc(n); }
void* operator new[](size_t n) { return checked_alloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_input = data, g_input_size = size;
  g_limit = 256 * size + (16u << 20);
  auto src = serialize::buffer_source(data, size, "<fuzz>");
  run_one(g_ember, [&] {
    serialize::Document doc = serialize::read_document(*src);
    for (const auto& s : doc.storages)
      if (s.storage->nbytes() > size) die("a storage larger than the input");
    for (const auto& rec : doc.tensors) {  // recheck the loader's bounds check independently, in 128 bits
      const Tensor& t = rec.tensor;
      if (t.numel() == 0) continue;
      __int128 last = t.storage_offset();
      for (int64_t d = 0; d < t.dim(); ++d) last += static_cast<__int128>(t.sizes()[d] - 1) * t.strides()[d];
      if ((last + 1) * static_cast<__int128>(t.element_size()) > static_cast<__int128>(t.impl()->storage()->nbytes()))
        die("a tensor reaching past its storage");
      volatile char first = *static_cast<const char*>(t.data_ptr());  // ASan sees reads outside the storage
      volatile char end = static_cast<const char*>(t.impl()->storage()->data())[(last + 1) * t.element_size() - 1];
      (void)first, (void)end;
    }
  });
  run_one(g_safetensors, [&] {
    safetensors::File f = safetensors::read(*src);
    for (const auto& [name, t] : f.tensors)
      if (t.nbytes() > size) die("a tensor larger than the input");
  });
  g_limit = SIZE_MAX;
  g_input = nullptr;
  return 0;
}

#ifndef EMBER_LIBFUZZER

namespace {

using Bytes = std::string;

Bytes ember_seed(const serialize::Document& doc) {
  serialize::StringSink out;
  serialize::write_document(doc, out);
  return out.str();
}

std::vector<Bytes> make_ember_seeds() {
  using serialize::Value;
  std::vector<Bytes> seeds;
  serialize::Document a;  // views of one storage, a parameter, nested containers
  Tensor base = arange(24, ScalarType::Float32).reshape(DimVector{2, 3, 4});
  a.tensors.push_back({base, true});
  a.tensors.push_back({base.permute(DimVector{2, 0, 1})});
  a.tensors.push_back({base.select(1, 2)});
  a.tensors.push_back({arange(5, ScalarType::Int64)});
  a.root = Value::make(Value::Kind::Dict);
  for (int k = 0; k < 4; ++k) {
    a.root.items.push_back(Value::str("t" + std::to_string(k)));
    a.root.items.push_back(Value::tensor(k));
  }
  Value nt = Value::make(Value::Kind::NamedTuple);
  nt.s = "Point", nt.fields = {"x", "y"};
  Value f = Value::make(Value::Kind::Float);
  f.re = 2.5;
  nt.items = {Value::str("a"), f};
  a.root.items.push_back(Value::str("nt"));
  a.root.items.push_back(nt);
  Value misc = Value::make(Value::Kind::Tuple);
  Value big = Value::make(Value::Kind::BigInt);
  big.s = "123456789012345678901234567890";
  Value bytes = Value::make(Value::Kind::Bytes);
  bytes.s = "\x01\x02\x03";
  Value dt = Value::make(Value::Kind::DType);
  dt.dtype = ScalarType::BFloat16;
  Value size = Value::make(Value::Kind::Size);
  size.ints = {2, 3};
  Value sl = Value::make(Value::Kind::Slice);
  Value one = Value::make(Value::Kind::Int);
  one.i = 1;
  sl.items = {one, Value(), one};
  Value c = Value::make(Value::Kind::Complex);
  c.re = 1, c.im = NAN;
  misc.items = {big, bytes, dt, size, sl, c, Value::make(Value::Kind::Bool)};
  a.root.items.push_back(Value::str("misc"));
  a.root.items.push_back(misc);
  seeds.push_back(ember_seed(a));

  serialize::Document b;  // every dtype, 0-d, zero-size, expanded
  b.root = Value::make(Value::Kind::List);
  for (int d = 0; d < kNumScalarTypes; ++d) {
    b.root.items.push_back(Value::tensor(static_cast<int64_t>(b.tensors.size())));
    b.tensors.push_back({to(arange(6, ScalarType::Int64), static_cast<ScalarType>(d)).reshape(DimVector{2, 3})});
  }
  b.tensors.push_back({full(DimVector{}, 3.0)});
  b.tensors.push_back({empty(DimVector{0, 4})});
  b.tensors.push_back({arange(3, ScalarType::Float64).expand(DimVector{5, 3})});
  for (int k = 0; k < 3; ++k) b.root.items.push_back(Value::tensor(kNumScalarTypes + k));
  seeds.push_back(ember_seed(b));

  serialize::Document c0;  // an odict state dict
  c0.root = Value::make(Value::Kind::OrderedDict);
  c0.root.items = {Value::str("w"), Value::tensor(0)};
  c0.tensors.push_back({ones(DimVector{3, 3})});
  seeds.push_back(ember_seed(c0));
  return seeds;
}

std::vector<Bytes> make_safetensors_seeds() {
  std::vector<Bytes> seeds;
  safetensors::NamedTensors all;
  for (int d = 0; d < kNumScalarTypes; ++d)
    if (static_cast<ScalarType>(d) != ScalarType::ComplexDouble &&
        static_cast<ScalarType>(d) != ScalarType::ComplexHalf)  // safetensors has no complex128 or complex32 code
      all.emplace_back(std::string(dtype_name(static_cast<ScalarType>(d))),
                       to(arange(6, ScalarType::Int64), static_cast<ScalarType>(d)).reshape(DimVector{2, 3}));
  all.emplace_back("scalar", full(DimVector{}, 1.0));
  all.emplace_back("empty", empty(DimVector{0, 2}));
  for (bool md : {false, true}) {
    serialize::StringSink out;
    safetensors::write(all, md ? std::optional<safetensors::Metadata>({{"format", "pt"}, {"k", "v"}}) : std::nullopt,
                       out);
    seeds.push_back(out.str());
  }
  serialize::StringSink one;
  safetensors::write({{"w", ones(DimVector{4})}}, std::nullopt, one);
  seeds.push_back(one.str());
  return seeds;
}

struct Mutator {
  std::mt19937_64 rng;
  explicit Mutator(uint64_t seed) : rng(seed) {}

  size_t below(size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng) : 0; }
  bool coin() { return rng() & 1; }

  // Where a format keeps its header length, and where its JSON lies.
  static bool is_ember(const Bytes& b) { return b.size() >= 8 && std::memcmp(b.data(), "EMBERCKP", 8) == 0; }
  static size_t len_at(const Bytes& b) { return is_ember(b) ? 16 : 0; }
  static size_t json_at(const Bytes& b) { return is_ember(b) ? 32 : 8; }
  static uint64_t header_len(const Bytes& b) {
    uint64_t n = 0;
    if (b.size() >= len_at(b) + 8) std::memcpy(&n, b.data() + len_at(b), 8);
    return n;
  }
  static void set_header_len(Bytes& b, uint64_t n) {
    if (b.size() >= len_at(b) + 8) std::memcpy(b.data() + len_at(b), &n, 8);
  }
  // [begin, end) of the JSON text, clipped to the buffer.
  static std::pair<size_t, size_t> json_range(const Bytes& b) {
    const size_t begin = std::min(json_at(b), b.size());
    const uint64_t n = header_len(b);
    return {begin, static_cast<size_t>(std::min<uint64_t>(b.size(), begin + std::min<uint64_t>(n, b.size())))};
  }

  // Replaces [pos, pos + len) of the JSON with `with`, keeping the header length consistent (mostly).
  void splice_json(Bytes& b, size_t pos, size_t len, const std::string& with) {
    const int64_t delta = static_cast<int64_t>(with.size()) - static_cast<int64_t>(len);
    b.replace(pos, len, with);
    if (rng() % 8) set_header_len(b, header_len(b) + delta);
  }

  void edit_number(Bytes& b) {
    static const char* kNumbers[] = {"-1",
                                     "0",
                                     "1",
                                     "7",
                                     "63",
                                     "64",
                                     "65",
                                     "9223372036854775807",
                                     "9223372036854775808",
                                     "18446744073709551615",
                                     "18446744073709551616",
                                     "-9223372036854775808",
                                     "4611686018427387904",
                                     "1e400",
                                     "1.5",
                                     "-0",
                                     "1e2",
                                     "2147483648",
                                     "4294967296",
                                     "100000000"};
    auto [lo, hi] = json_range(b);
    std::vector<std::pair<size_t, size_t>> nums;
    for (size_t i = lo; i < hi;) {
      if ((b[i] >= '0' && b[i] <= '9') || b[i] == '-') {
        size_t j = i;
        while (j < hi && ((b[j] >= '0' && b[j] <= '9') || b[j] == '-' || b[j] == '.' || b[j] == 'e')) ++j;
        nums.emplace_back(i, j - i);
        i = j;
      } else {
        ++i;
      }
    }
    if (nums.empty()) return;
    auto [pos, len] = nums[below(nums.size())];
    splice_json(b, pos, len, kNumbers[below(std::size(kNumbers))]);
  }

  void edit_string(Bytes& b) {
    static const char* kStrings[] = {
        "float33", "float64",    "int8",          "bool",         "F64",          "BOOL",  "U16",
        "F8_E4M3", "",           "tensor",        "storages",     "tensors",      "root",  "dict",
        "odict",   "namedtuple", "int",           "bytes",        "size",         "slice", "device",
        "dtype",   "float",      "complex",       "tuple",        "cuda:1",       "tpu",   "nan",
        "-inf",    "\\u0000",    "\\ud800",       "__metadata__", "data_offsets", "shape", "offset",
        "nbytes",  "stride",     "requires_grad", "parameter",    "import os",    "x y",   "AAE=",
        "!!"};
    auto [lo, hi] = json_range(b);
    std::vector<std::pair<size_t, size_t>> strs;
    for (size_t i = lo; i < hi; ++i)
      if (b[i] == '"') {
        size_t j = i + 1;
        while (j < hi && b[j] != '"') ++j;
        if (j < hi) strs.emplace_back(i + 1, j - i - 1);
        i = j;
      }
    if (strs.empty()) return;
    auto [pos, len] = strs[below(strs.size())];
    splice_json(b, pos, len, kStrings[below(std::size(kStrings))]);
  }

  void edit_structure(Bytes& b) {
    static const char* kTokens[] = {"[", "]", "{", "}", ",", ":", "null", "true", "[]", "{}", "\"", "[[[[[[[["};
    auto [lo, hi] = json_range(b);
    if (hi <= lo) return;
    const size_t pos = lo + below(hi - lo);
    if (coin())
      splice_json(b, pos, 1, kTokens[below(std::size(kTokens))]);
    else
      splice_json(b, pos, 0, kTokens[below(std::size(kTokens))]);
  }

  // Recomputes an ember file's preamble and manifest checksums (Note [Checkpoint checksums]) in most inputs, so
  // that mutations reach the manifest's parser and checks instead of stopping at the checksum.
  void fix_checksums(Bytes& b) {
    if (!is_ember(b) || b.size() < 32 || below(5) == 0) return;
    const auto [begin, end] = json_range(b);
    uint32_t crc = serialize::crc32c(0, b.data() + begin, end - begin);
    std::memcpy(b.data() + 24, &crc, 4);
    crc = serialize::crc32c(0, b.data(), 28);
    std::memcpy(b.data() + 28, &crc, 4);
  }

  void mutate(Bytes& b, const std::vector<Bytes>& pool) {
    mutate_bytes(b, pool);
    fix_checksums(b);
  }

  void mutate_bytes(Bytes& b, const std::vector<Bytes>& pool) {
    const int steps = 1 + static_cast<int>(below(3));
    for (int s = 0; s < steps; ++s) {
      switch (below(12)) {
        case 0:
          if (!b.empty()) b[below(b.size())] ^= static_cast<char>(1u << below(8));
          break;
        case 1: {
          static const uint8_t kBytes[] = {0, 1, 0x7f, 0x80, 0xff, '{', '[', '"', '-', '9', ' ', '\\'};
          if (!b.empty()) b[below(b.size())] = static_cast<char>(kBytes[below(sizeof kBytes)]);
          break;
        }
        case 2: b.resize(below(b.size() + 1)); break;
        case 3: {
          Bytes ins(1 + below(16), '\0');
          for (char& c : ins) c = static_cast<char>(rng());
          b.insert(below(b.size() + 1), ins);
          break;
        }
        case 4:
          if (!b.empty()) {
            const size_t at = below(b.size());
            b.erase(at, 1 + below(std::min<size_t>(64, b.size() - at)));
          }
          break;
        case 5: {  // header length
          const uint64_t n = header_len(b);
          const uint64_t choices[] = {
              n + 1, n - 1, n + 8, n - 8, 0, 1, UINT64_MAX, uint64_t{1} << 63, static_cast<uint64_t>(b.size()), rng()};
          set_header_len(b, choices[below(std::size(choices))]);
          break;
        }
        case 6:
        case 7: edit_number(b); break;
        case 8: edit_string(b); break;
        case 9: edit_structure(b); break;
        case 10:
          if (!b.empty()) {  // duplicate a chunk
            const size_t at = below(b.size()), len = 1 + below(std::min<size_t>(32, b.size() - at));
            b.insert(below(b.size() + 1), b.substr(at, len));
          }
          break;
        case 11: {  // splice with another seed of the same pool
          const Bytes& o = pool[below(pool.size())];
          const size_t cut = below(std::min(b.size(), o.size()) + 1);
          b = b.substr(0, cut) + o.substr(std::min(cut, o.size()));
          break;
        }
      }
    }
  }
};

Bytes read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t iterations = 100000, seed = 1;
  std::vector<Bytes> ember_pool, st_pool;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc) {
      iterations = std::strtoull(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      Bytes b = read_file(argv[i]);
      (Mutator::is_ember(b) ? ember_pool : st_pool).push_back(std::move(b));
    }
  }
#if defined(__SANITIZE_ADDRESS__)
  __asan_set_death_callback([] { dump_input("AddressSanitizer report"); });
  std::printf("fuzz_loaders: built with AddressSanitizer\n");
#endif
  if (ember_pool.empty()) ember_pool = make_ember_seeds();
  if (st_pool.empty()) st_pool = make_safetensors_seeds();
  // The unmutated seeds must load.
  for (const auto* pool : {&ember_pool, &st_pool})
    for (const Bytes& b : *pool) {
      const Stats e = g_ember, s = g_safetensors;
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      if (g_ember.loaded == e.loaded && g_safetensors.loaded == s.loaded) {
        std::fprintf(stderr, "fuzz_loaders: a seed of %zu bytes does not load\n", b.size());
        return 1;
      }
    }
  g_ember = g_safetensors = Stats{};
  Mutator m(seed);
  const auto t0 = std::chrono::steady_clock::now();
  double slowest = 0;
  for (const auto* pool : {&ember_pool, &st_pool}) {
    Stats& target = pool == &ember_pool ? g_ember : g_safetensors;
    const Stats before = target;
    for (uint64_t it = 0; it < iterations; ++it) {
      Bytes b = (*pool)[m.below(pool->size())];
      m.mutate(b, *pool);
      const auto s0 = std::chrono::steady_clock::now();
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      slowest = std::max(slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count());
    }
    std::printf("fuzz_loaders: %-11s %llu mutated inputs: %llu loaded, %llu rejected with ember::Error\n",
                pool == &ember_pool ? "ember" : "safetensors", static_cast<unsigned long long>(iterations),
                static_cast<unsigned long long>(target.loaded - before.loaded),
                static_cast<unsigned long long>(target.rejected - before.rejected));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "fuzz_loaders: %llu inputs through both loaders in %.1f s (slowest input %.3f s); no crash, no "
      "unexpected exception, no oversized allocation\n",
      static_cast<unsigned long long>(2 * iterations), secs, slowest);
  return 0;
}

#endif  // EMBER_LIBFUZZER
