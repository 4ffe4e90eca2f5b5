// ember::save / ember::load (ember/serialize): the format's bytes against a hand-written file (the same bytes the
// Python tests expect from ember.save, which is what makes C++ and Python files interchangeable), views
// sharing storage, module round trips and load_state_dict's all-at-once errors, mmap, atomic replacement,
// safetensors against the reference implementation's own test vectors, and the loaders' error messages.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/nn/modules/serialize.h"
#include "ember/ops.h"
#include "ember/serialize/checksum.h"
#include "ember/serialize/format.h"
#include "ember/serialize/safetensors.h"
#include "ember/serialize/serialize.h"

using namespace ember;

namespace {

std::string temp_dir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/ember_serialize_XXXXXX";
    EXPECT_NE(mkdtemp(tmpl), nullptr);
    return std::string(tmpl);
  }();
  return dir;
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

// CRC-32C bit by bit, from its definition (reflected polynomial 0x82F63B78): the reference for ember's checksums.
uint32_t crc32c_ref(const std::string& s) {
  uint32_t c = 0xFFFFFFFF;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0x82F63B78 : c >> 1;
  }
  return ~c;
}

// An ember checkpoint assembled by hand from docs/serialization.md: preamble (with the manifest's and its own
// CRC-32C), manifest, zero padding to 64, each storage's bytes at its 64-aligned offset, each storage's CRC-32C.
std::string ember_file(const std::string& manifest, const std::vector<std::pair<uint64_t, std::string>>& storages) {
  std::string out = "EMBERCKP" + le32(2) + le32(0) + le64(manifest.size()) + le32(crc32c_ref(manifest));
  out += le32(crc32c_ref(out)) + manifest;
  out.resize((out.size() + 63) / 64 * 64, '\0');
  const size_t data = out.size();
  for (const auto& [offset, bytes] : storages) {
    out.resize(data + offset, '\0');
    out += bytes;
  }
  for (const auto& [offset, bytes] : storages) out += le32(crc32c_ref(bytes));
  return out;
}

template <class T>
std::string raw(std::initializer_list<T> xs) {
  std::string s;
  for (T x : xs) s.append(reinterpret_cast<const char*>(&x), sizeof x);
  return s;
}

template <class T>
std::vector<T> values(const Tensor& t) {
  Tensor c = contiguous(t);
  return std::vector<T>(c.data<T>(), c.data<T>() + c.numel());
}

bool same(const Tensor& a, const Tensor& b) {
  return DimVector(a.sizes()) == DimVector(b.sizes()) && a.dtype() == b.dtype() && all(eq(a, b)).item<bool>();
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The state dict the Python test (test_serialization.py::test_cpp_compatible_bytes) saves too.
const char* kStateManifest =
    R"({"storages":[{"offset":0,"nbytes":16,"device":"cpu"},{"offset":64,"nbytes":16,"device":"cpu"}],)"
    R"("tensors":[{"storage":0,"offset":0,"size":[4],"stride":[1],"dtype":"float32","requires_grad":false,)"
    R"("parameter":false},{"storage":1,"offset":0,"size":[2],"stride":[1],"dtype":"int64","requires_grad":false,)"
    R"("parameter":false}],"root":{"odict":[["w",{"tensor":0}],["b",{"tensor":1}]]}})";

// A small residual network's worth of state: conv/bn blocks with a downsampling shortcut, registered by hand
// (parameters, buffers, children) so that the test depends only on Module.
struct Block : nn::Module {
  Block(int64_t cin, int64_t cout, bool down) : nn::Module("Block") {
    register_parameter("conv1_weight", randn(DimVector{cout, cin, 3, 3}));
    register_parameter("bn1_weight", ones(DimVector{cout}));
    register_parameter("bn1_bias", zeros(DimVector{cout}));
    register_buffer("bn1_running_mean", randn(DimVector{cout}));
    register_buffer("bn1_running_var", ones(DimVector{cout}));
    register_buffer("bn1_num_batches_tracked", zeros(DimVector{}, ScalarType::Int64));
    if (down) register_parameter("downsample_weight", randn(DimVector{cout, cin, 1, 1}));
  }
};
struct ResNetish : nn::Module {
  ResNetish() : nn::Module("ResNetish") {
    register_parameter("stem_weight", randn(DimVector{8, 3, 3, 3}));
    register_module("layer1", std::make_shared<Block>(8, 8, false));
    register_module("layer2", std::make_shared<Block>(8, 16, true));
    register_parameter("fc_weight", randn(DimVector{10, 16}));
    register_parameter("fc_bias", randn(DimVector{10}));
  }
};

}  // namespace

TEST(Serialize, StateDictBytesMatchTheDocumentedFormat) {
  const std::string path = temp_dir() + "/state.ckpt";
  save(std::vector<std::pair<std::string, Tensor>>{{"w", arange(4, ScalarType::Float32)},
                                                   {"b", arange(1, 3, 1, ScalarType::Int64)}},
       path);
  const std::string expected = ember_file(kStateManifest, {{0, raw<float>({0, 1, 2, 3})}, {64, raw<int64_t>({1, 2})}});
  EXPECT_EQ(read_bytes(path), expected);
  auto back = load_state_dict(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].first, "w");
  EXPECT_EQ(values<float>(back[0].second), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(back[1].first, "b");
  EXPECT_EQ(values<int64_t>(back[1].second), (std::vector<int64_t>{1, 2}));
}

TEST(Serialize, HandWrittenFileLoads) {
  // A file written by hand (as Python's ember.save writes a dict {'x': t, 'y': t[1:3] transposed view}).
  const std::string manifest =
      R"({"storages":[{"offset":0,"nbytes":48,"device":"cpu"}],"tensors":[)"
      R"({"storage":0,"offset":0,"size":[2,3],"stride":[3,1],"dtype":"float64","requires_grad":true,"parameter":true},)"
      R"({"storage":0,"offset":1,"size":[2,2],"stride":[1,3],"dtype":"float64","requires_grad":false,"parameter":false}],)"
      R"("root":{"dict":[["x",{"tensor":0}],["y",{"tensor":1}]]}})";
  const std::string path = temp_dir() + "/hand.ckpt";
  write_bytes(path, ember_file(manifest, {{0, raw<double>({1, 2, 3, 4, 5, 6})}}));
  auto sd = load_state_dict(path);
  ASSERT_EQ(sd.size(), 2u);
  const Tensor& x = sd[0].second;
  const Tensor& y = sd[1].second;
  EXPECT_EQ(values<double>(x), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(x.requires_grad());
  EXPECT_EQ(values<double>(y), (std::vector<double>{2, 5, 3, 6}));
  EXPECT_EQ(DimVector(y.strides()), (DimVector{1, 3}));
  EXPECT_EQ(x.impl()->storage().get(), y.impl()->storage().get());
}

TEST(Serialize, ViewsShareOneStorageAndOnlyNeededBytesAreWritten) {
  const std::string path = temp_dir() + "/views.ckpt";
  Tensor x = arange(100, ScalarType::Float32);
  save(std::vector<std::pair<std::string, Tensor>>{{"a", x.slice(0, 11, 20)}, {"b", x.slice(0, 12, 15)}}, path);
  const std::string bytes = read_bytes(path);
  uint64_t mlen;
  std::memcpy(&mlen, bytes.data() + 16, 8);
  const uint64_t data = (32 + mlen + 63) / 64 * 64;
  // Elements 11..19 start at byte 44, rounded down to 40 (a multiple of 8): bytes [40, 80) of the storage,
  // then the storage's checksum.
  EXPECT_EQ(bytes.size(), data + 40 + 4);
  auto sd = load_state_dict(path);
  EXPECT_EQ(values<float>(sd[0].second), (std::vector<float>{11, 12, 13, 14, 15, 16, 17, 18, 19}));
  EXPECT_EQ(sd[0].second.storage_offset(), 1);
  sd[1].second.fill_(-1);  // a view of 'a' once loaded, as before saving
  EXPECT_EQ(values<float>(sd[0].second), (std::vector<float>{11, -1, -1, -1, 15, 16, 17, 18, 19}));
}

TEST(Serialize, TensorRoundTripEveryDtypeAndLayout) {
  const std::string path = temp_dir() + "/t.ckpt";
  for (int d = 0; d < kNumScalarTypes; ++d) {
    const auto dt = static_cast<ScalarType>(d);
    Tensor t =
        to(remainder(arange(24, ScalarType::Int64), 7), dt).reshape(DimVector{2, 3, 4}).permute(DimVector{2, 0, 1});
    save(t, path);
    Tensor back = load(path);
    EXPECT_TRUE(same(back, t)) << dtype_name(dt);
    EXPECT_EQ(DimVector(back.strides()), DimVector(t.strides())) << dtype_name(dt);
  }
  save(full(DimVector{}, 2.5), path);  // 0-d
  EXPECT_EQ(load(path).dim(), 0);
  EXPECT_EQ(load(path).item<double>(), 2.5);
  save(empty(DimVector{0, 3}), path);  // zero-size
  EXPECT_EQ(DimVector(load(path).sizes()), (DimVector{0, 3}));
  save(arange(3, ScalarType::Float32).expand(DimVector{4, 3}), path);  // stride 0 stays stride 0, 3 values on disk
  Tensor e = load(path);
  EXPECT_EQ(DimVector(e.strides()), (DimVector{0, 1}));
  EXPECT_EQ(values<float>(e), (std::vector<float>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

TEST(Serialize, ModuleRoundTripAndStrictErrorsLeaveTheModuleUnchanged) {
  const std::string path = temp_dir() + "/model.ckpt";
  ResNetish a, b;
  save(a, path);
  load(b, path);
  auto sa = a.state_dict(), sb = b.state_dict();
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    EXPECT_EQ(sa[i].first, sb[i].first);
    EXPECT_TRUE(same(sa[i].second, sb[i].second)) << sa[i].first;
  }
  // A checkpoint with a missing key, an unexpected key and a mis-shaped one: all three reported, nothing copied.
  auto state = a.state_dict();
  state.erase(state.begin());  // stem_weight
  state.emplace_back("extra", zeros(DimVector{1}));
  for (auto& [k, t] : state)
    if (k == "fc_bias") t = zeros(DimVector{11});
  save(state, path);
  ResNetish c;
  auto before = c.state_dict();
  std::vector<Tensor> copies;
  for (auto& [k, t] : before) copies.push_back(t.clone());
  const std::string msg = error_of([&] { load(c, path); });
  EXPECT_NE(msg.find("Missing key(s) in state_dict: \"stem_weight\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("Unexpected key(s) in state_dict: \"extra\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("size mismatch for fc_bias: copying a param with shape [11] from checkpoint, the shape in "
                     "current model is [10]"),
            std::string::npos)
      << msg;
  for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(same(before[i].second, copies[i])) << before[i].first;
}

TEST(Serialize, MapLocationAndMmap) {
  const std::string path = temp_dir() + "/mm.ckpt";
  Tensor t = arange(1000, ScalarType::Float32);
  save(t, path);
  const std::string on_disk = read_bytes(path);
  Tensor m = load(path, LoadOptions{kCPU, true});
  EXPECT_TRUE(same(m, t));
  EXPECT_TRUE(m.impl()->storage()->is_external());  // points into the mapping, not a copy
  m.fill_(7);                                       // copy-on-write: the file keeps its bytes
  EXPECT_EQ(read_bytes(path), on_disk);
  EXPECT_TRUE(same(load(path), t));
}

TEST(Serialize, SavingReplacesAtomicallyAndLeavesNoTemporaryFile) {
  const std::string dir = temp_dir() + "/atomic";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string path = dir + "/x.ckpt";
  save(ones(DimVector{5}), path);
  save(zeros(DimVector{5}), path);
  EXPECT_TRUE(same(load(path), zeros(DimVector{5})));
  // A save that fails part-way (an undefined tensor is found after the file was opened) keeps the old file.
  EXPECT_NE(error_of([&] { save(std::vector<std::pair<std::string, Tensor>>{{"a", Tensor()}}, path); }), "(no error)");
  EXPECT_TRUE(same(load(path), zeros(DimVector{5})));
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.' || std::strlen(e->d_name) > 2) names.push_back(e->d_name);
  closedir(d);
  EXPECT_EQ(names, (std::vector<std::string>{"x.ckpt"}));
  EXPECT_NE(
      error_of([&] { save(ones(DimVector{1}), dir + "/no/such/dir/x.ckpt"); }).find("cannot create a temporary file"),
      std::string::npos);
}

TEST(Serialize, LoaderErrorsNameTheFileAndTheProblem) {
  const std::string path = temp_dir() + "/bad.ckpt";
  auto load_error = [&](const std::string& bytes) {
    write_bytes(path, bytes);
    return error_of([&] { load(path); });
  };
  auto has = [](const std::string& msg, const char* what) {
    return msg.find(what) != std::string::npos && msg.find("bad.ckpt") != std::string::npos;
  };
  const std::string one = R"({"storages":[{"offset":0,"nbytes":8,"device":"cpu"}],"tensors":[{"storage":0,)"
                          R"("offset":0,"size":[2],"stride":[1],"dtype":"DTYPE","requires_grad":false,)"
                          R"("parameter":false}],"root":{"tensor":0}})";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string m = one;
    if (from != "DTYPE") m.replace(m.find("DTYPE"), 5, "float32");
    m.replace(m.find(from), from.size(), to);
    return m;
  };
  const std::string good = ember_file(with("DTYPE", "float32"), {{0, raw<float>({1, 2})}});
  write_bytes(path, good);
  EXPECT_EQ(values<float>(load(path)), (std::vector<float>{1, 2}));

  EXPECT_TRUE(has(load_error("EMBERCK"), "too small")) << load_error("EMBERCK");
  EXPECT_TRUE(has(load_error("XMBERCKP" + good.substr(8)), "wrong magic"));
  std::string v3 = good;
  v3[8] = 3;
  EXPECT_TRUE(has(load_error(v3), "format version 3 is not supported"));
  EXPECT_TRUE(
      has(load_error(ember_file(with("DTYPE", "float33"), {{0, raw<float>({1, 2})}})), "unknown dtype 'float33'"));
  EXPECT_TRUE(
      has(load_error(ember_file(with("\"nbytes\":8", "\"nbytes\":4611686018427387904"), {{0, raw<float>({1, 2})}})),
          "run past the end of the file"));
  EXPECT_TRUE(has(load_error(ember_file(with("DTYPE", "float64"), {{0, raw<float>({1, 2})}})),
                  "need 16 bytes, but the storage has 8"));
  EXPECT_TRUE(
      has(load_error(ember_file(with("\"size\":[2]", "\"size\":[-2]"), {{0, raw<float>({1, 2})}})), "negative size"));
  EXPECT_TRUE(has(load_error(ember_file(with("{\"tensor\":0}", "{\"tensor\":1}"), {{0, raw<float>({1, 2})}})),
                  "tensor 1 does not exist"));
  EXPECT_TRUE(has(load_error(ember_file(with("{\"tensor\":0}", "{\"lambda\":0}"), {{0, raw<float>({1, 2})}})),
                  "unknown tag 'lambda'"));
  std::string broken = with("DTYPE", "float32");
  broken[0] = '!';
  EXPECT_TRUE(has(load_error(ember_file(broken, {{0, raw<float>({1, 2})}})), "not valid JSON"));
  EXPECT_TRUE(has(load_error(good + "x"), "1 unexpected bytes after its data"));
  // Every truncation of a valid file is refused with an error naming the file.
  for (size_t cut = 0; cut < good.size(); ++cut) {
    const std::string msg = load_error(good.substr(0, cut));
    EXPECT_NE(msg.find("bad.ckpt"), std::string::npos) << "cut at " << cut << ": " << msg;
  }
  EXPECT_NE(error_of([&] { load(temp_dir() + "/missing.ckpt"); }).find("cannot open"), std::string::npos);
  save(arange(3, ScalarType::Float32), path);
  EXPECT_NE(error_of([&] { load_state_dict(path); }).find("holds a Tensor, not a state dict"), std::string::npos);
}

// zip's CRC-32 (reflected 0xEDB88320), bit by bit.
uint32_t crc32_ref(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
  }
  return ~c;
}

TEST(Serialize, ZipCrc32MatchesTheBitwiseDefinition) {
  EXPECT_EQ(serialize::crc32(0, "123456789", 9), 0xCBF43926u);  // the standard check value
  EXPECT_EQ(serialize::crc32(0, "", 0), 0u);
  std::string big((1 << 20) + 77, '\0');
  for (size_t k = 0; k < big.size(); ++k) big[k] = static_cast<char>(k * 13 + (k >> 9));
  const uint32_t want = crc32_ref(big);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{63}, size_t{4097}, big.size()})  // continued across calls
    EXPECT_EQ(serialize::crc32(serialize::crc32(0, big.data(), cut), big.data() + cut, big.size() - cut), want);
  for (size_t n = 0; n < 300; ++n)  // every length of the short tails, from an odd address
    ASSERT_EQ(serialize::crc32(0, big.data() + 3, n), crc32_ref(big.substr(3, n))) << n;
}

TEST(Serialize, ChecksumsCatchDamageAndVerifyFalseSkipsTheData) {
  EXPECT_EQ(serialize::crc32c(0, "123456789", 9), 0xE3069283u);  // the standard check value
  const std::string tails(320, 'x');
  for (size_t n = 0; n < 300; ++n)  // every length of the short tails, from an odd address
    ASSERT_EQ(serialize::crc32c(0, tails.data() + 3, n), crc32c_ref(tails.substr(3, n))) << n;
  std::string big(3 << 20, '\0');  // several of the reader's 1 MiB pieces, continued across calls
  for (size_t k = 0; k < big.size(); ++k) big[k] = static_cast<char>(k * 7 + (k >> 11));
  EXPECT_EQ(serialize::crc32c(serialize::crc32c(0, big.data(), 12345), big.data() + 12345, big.size() - 12345),
            crc32c_ref(big));
  const std::string path = temp_dir() + "/crc.ckpt";
  save(arange(1000, ScalarType::Float32), path);
  const std::string good = read_bytes(path);
  std::string bad = good;
  bad[bad.size() - 4 - 40] ^= 1;  // a bit of the data
  write_bytes(path, bad);
  EXPECT_NE(error_of([&] { load(path); }).find("storage 0 (4000 bytes) fails its CRC-32C check"), std::string::npos)
      << error_of([&] { load(path); });
  EXPECT_NE(error_of([&] { load(path, {.mmap = true}); }).find("fails its CRC-32C check"), std::string::npos);
  const std::vector<float> unverified = values<float>(load(path, {.verify = false}));  // loads as it is
  EXPECT_EQ(unverified[989], 989.0f);
  EXPECT_NE(unverified[990], 990.0f);
  bad = good;
  bad[40] ^= 1;  // the manifest
  write_bytes(path, bad);
  EXPECT_NE(error_of([&] { load(path, {.verify = false}); }).find("the manifest fails its CRC-32C check"),
            std::string::npos);
  bad = good;
  bad[17] ^= 1;  // the manifest length
  write_bytes(path, bad);
  EXPECT_NE(error_of([&] { load(path); }).find("the preamble fails its CRC-32C check"), std::string::npos);
}

TEST(Serialize, NothingIsSavedThatCannotBeLoaded) {
  // Note [Checkpoint limits]: the writer refuses what the reader would, before any file is created.
  const std::string dir = temp_dir() + "/limits";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string path = dir + "/x.ckpt";
  const DimVector dims65(65, 1), dims64(64, 1);
  const std::string msg = error_of([&] { save(ones(dims65), path); });
  EXPECT_NE(msg.find("65 dimensions exceeds the limit of 64"), std::string::npos) << msg;
  DIR* d = opendir(dir.c_str());
  int entries = 0;
  while (dirent* e = readdir(d)) entries += e->d_name[0] != '.' || std::strlen(e->d_name) > 2;
  closedir(d);
  EXPECT_EQ(entries, 0);  // not even a temporary file
  save(ones(dims64), path);
  EXPECT_EQ(load(path).dim(), 64);
  EXPECT_NE(error_of([&] {
              safetensors::save_file({{"x", ones(dims65)}}, dir + "/x.safetensors");
            }).find("more than the limit of 64"),
            std::string::npos);
  // Nesting: each dict level is three JSON levels; the manifest object is one more.
  auto nested = [](int levels) {
    serialize::Document doc;
    serialize::Value v = serialize::Value::make(serialize::Value::Kind::Dict);
    for (int k = 1; k < levels; ++k) {
      serialize::Value outer = serialize::Value::make(serialize::Value::Kind::Dict);
      outer.items.push_back(serialize::Value::str("a"));
      outer.items.push_back(std::move(v));
      v = std::move(outer);
    }
    doc.root = std::move(v);
    return doc;
  };
  for (int levels : {100, 170, 171, 200}) {
    serialize::StringSink out;
    const std::string err = error_of([&] { serialize::write_document(nested(levels), out); });
    if (levels <= 170) {  // the manifest, 169 dicts of 3 levels and an empty one of 2: 510 JSON levels
      EXPECT_EQ(err, "(no error)") << levels;
      auto src = serialize::buffer_source(out.str().data(), out.str().size());
      EXPECT_EQ(serialize::read_document(*src).root.kind, serialize::Value::Kind::Dict);
    } else {
      EXPECT_NE(err.find("more than the 512 that ember.load reads"), std::string::npos) << err;
    }
  }
}

// The reference implementation's own test vectors (huggingface/safetensors, safetensors/src/tensor.rs).
TEST(SerializeSafetensors, BytesMatchTheReferenceImplementation) {
  using safetensors::write;
  auto bytes_of = [](const safetensors::NamedTensors& t, const std::optional<safetensors::Metadata>& md) {
    serialize::StringSink out;
    write(t, md, out);
    return out.str();
  };
  Tensor attn = arange(6, ScalarType::Float32).reshape(DimVector{1, 2, 3});
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  EXPECT_EQ(bytes_of({{"attn.0", attn}}, {}), le64(64) + header + raw<float>({0, 1, 2, 3, 4, 5}));
  const std::string header2 = R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  EXPECT_EQ(bytes_of({{"attn0", attn.reshape(DimVector{1, 1, 2, 3})}}, {}),
            le64(72) + header2 + std::string(7, ' ') + raw<float>({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(bytes_of({}, {}), le64(8) + "{}" + std::string(6, ' '));
  EXPECT_EQ(bytes_of({}, safetensors::Metadata{{"framework", "pt"}}),
            le64(40) + R"({"__metadata__":{"framework":"pt"}})" + std::string(5, ' '));
  // Order: descending dtype alignment (I64 > F64 > F32 > U8 in the reference's enum), then name.
  const std::string mixed = bytes_of({{"c", zeros(DimVector{3}, ScalarType::UInt8)},
                                      {"a", ones(DimVector{2})},
                                      {"d", ones(DimVector{1}, ScalarType::Float64)},
                                      {"b", ones(DimVector{1}, ScalarType::Int64)},
                                      {"e", ones(DimVector{1})}},
                                     {});
  const std::string h = R"({"b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
                        R"("d":{"dtype":"F64","shape":[1],"data_offsets":[8,16]},)"
                        R"("a":{"dtype":"F32","shape":[2],"data_offsets":[16,24]},)"
                        R"("e":{"dtype":"F32","shape":[1],"data_offsets":[24,28]},)"
                        R"("c":{"dtype":"U8","shape":[3],"data_offsets":[28,31]}})";
  const std::string padded = h + std::string((8 - h.size() % 8) % 8, ' ');
  EXPECT_EQ(mixed, le64(padded.size()) + padded + raw<int64_t>({1}) + raw<double>({1}) + raw<float>({1, 1, 1}) +
                       std::string(3, '\0'));
}

TEST(SerializeSafetensors, RoundTripAndErrors) {
  const std::string path = temp_dir() + "/x.safetensors";
  safetensors::NamedTensors in;
  for (int d = 0; d < kNumScalarTypes; ++d) {
    const auto dt = static_cast<ScalarType>(d);
    if (dt == ScalarType::ComplexDouble || dt == ScalarType::ComplexHalf) continue;  // no codes in safetensors
    in.emplace_back(std::string(dtype_name(dt)),
                    to(remainder(arange(12, ScalarType::Int64), 5), dt).reshape(DimVector{3, 4}));
  }
  safetensors::save_file(in, path, safetensors::Metadata{{"format", "pt"}});
  for (bool mmap : {false, true}) {
    auto f = safetensors::load_file(path, mmap);
    ASSERT_EQ(f.tensors.size(), in.size());
    ASSERT_TRUE(f.metadata.has_value());
    EXPECT_EQ(*f.metadata, (safetensors::Metadata{{"format", "pt"}}));
    for (auto& [name, t] : f.tensors) {
      auto it = std::ranges::find_if(in, [&](auto& p) { return p.first == name; });
      ASSERT_NE(it, in.end());
      EXPECT_TRUE(same(t, it->second)) << name;
    }
  }
  auto st_error = [&](const std::string& header, const std::string& data) {
    write_bytes(path, le64(header.size()) + header + data);
    return error_of([&] { safetensors::load_file(path); });
  };
  auto has = [](const std::string& msg, const char* what) {
    return msg.find(what) != std::string::npos && msg.find("x.safetensors") != std::string::npos;
  };
  const std::string f8(8, '\0');
  EXPECT_EQ(st_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f8), "(no error)");
  EXPECT_TRUE(has(
      st_error(
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
          f8),
      "repeats the key \"a\""));
  EXPECT_TRUE(has(st_error(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", f8), "needs 12"));
  EXPECT_TRUE(has(st_error(R"({"a":{"dtype":"F31","shape":[2],"data_offsets":[0,8]}})", f8), "unknown dtype 'F31'"));
  EXPECT_TRUE(has(st_error(R"({"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}})", f8), "no dtype for"));
  EXPECT_TRUE(has(
      st_error(
          R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
          f8),
      "overlap"));
  EXPECT_TRUE(has(st_error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", f8), "leave a hole"));
  EXPECT_TRUE(has(st_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", f8), "truncated"));
  EXPECT_TRUE(has(st_error(R"([{"a":1}])", ""), "does not start with '{'"));
  EXPECT_TRUE(has(st_error(R"({"a":)", ""), "not valid JSON"));
  write_bytes(path, le64(1000) + "{}");
  EXPECT_TRUE(has(error_of([&] { safetensors::load_file(path); }), "runs past the end of the file"));
  // Saving refuses what the reference refuses.
  Tensor x = arange(6, ScalarType::Float32).reshape(DimVector{2, 3});
  EXPECT_NE(error_of([&] { safetensors::save_file({{"t", x.t()}}, path); }).find("non contiguous"), std::string::npos);
  EXPECT_NE(error_of([&] {
              safetensors::save_file({{"a", x}, {"b", x.select(0, 1)}}, path);
            }).find("share memory"),
            std::string::npos);
}

TEST(SerializeFormat, FuzzSeedsRoundTripThroughBuffers) {
  // write_document -> read_document on an in-memory buffer: the path the fuzz driver mutates.
  serialize::Document doc;
  doc.root = serialize::Value::make(serialize::Value::Kind::List);
  doc.root.items.push_back(serialize::Value::tensor(0));
  doc.root.items.push_back(serialize::Value::str("x"));
  doc.tensors.push_back({arange(5, ScalarType::Float64), true});
  serialize::StringSink out;
  serialize::write_document(doc, out);
  auto src = serialize::buffer_source(out.str().data(), out.str().size());
  serialize::Document back = serialize::read_document(*src);
  ASSERT_EQ(back.root.items.size(), 2u);
  EXPECT_EQ(back.root.items[1].s, "x");
  EXPECT_TRUE(back.tensors[0].parameter);
  EXPECT_EQ(values<double>(back.tensors[0].tensor), (std::vector<double>{0, 1, 2, 3, 4}));
}
