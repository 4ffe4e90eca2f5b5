#include "ember/serialize/safetensors.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/serialize/detail/json.h"
#include "ember/serialize/detail/tensor_bytes.h"

namespace ember::safetensors {

using serialize::detail::Json;
using serialize::detail::Reader;

namespace {

struct Code {
  ScalarType dtype;
  const char* name;
  int rank;  // the position in the reference's Dtype enum, which orders tensors in a file (largest first)
};
constexpr Code kCodes[] = {
    {ScalarType::Bool, "BOOL", 0},  {ScalarType::UInt8, "U8", 1},          {ScalarType::Int8, "I8", 2},
    {ScalarType::Int16, "I16", 5},  {ScalarType::Float16, "F16", 7},       {ScalarType::BFloat16, "BF16", 8},
    {ScalarType::Int32, "I32", 9},  {ScalarType::Float32, "F32", 11},      {ScalarType::Float64, "F64", 12},
    {ScalarType::Int64, "I64", 14}, {ScalarType::ComplexFloat, "C64", 13},  // C64 comes after F64 in the enum
};
// Codes of the format that ember has no dtype for: named in the error instead of "unknown".
constexpr const char* kForeignCodes[] = {"F8_E5M2", "F8_E4M3", "F8_E8M0", "F4", "F6_E2M3",
                                         "F6_E3M2", "U16",     "U32",     "U64"};

int rank_of(ScalarType t) {
  for (const Code& c : kCodes)
    if (c.dtype == t) return c.rank;
  return -1;
}

}  // namespace

const char* dtype_code(ScalarType t) {
  for (const Code& c : kCodes)
    if (c.dtype == t) return c.name;
  fail<TypeError>("safetensors: no code for dtype ", t);
}

bool dtype_from_code(std::string_view code, ScalarType& out) {
  for (const Code& c : kCodes)
    if (code == c.name) {
      out = c.dtype;
      return true;
    }
  return false;
}

namespace {

// A file ready to be written: its padded header and the tensors in file order, every limit checked.
struct Prepared {
  std::string header;
  std::vector<const std::pair<std::string, Tensor>*> order;
  uint64_t data_bytes = 0;
};

Prepared prepare(const NamedTensors& tensors, const std::optional<Metadata>& metadata, const char* op) {
  using serialize::CheckpointLimits;
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK_VALUE(t.defined(), op, ": tensor '", name, "' is undefined");
    EMBER_CHECK_VALUE(name != "__metadata__", op, ": '__metadata__' is reserved and can't name a tensor");
    EMBER_CHECK_VALUE(names.insert(name).second, op, ": the name '", name, "' appears twice");
    EMBER_CHECK_VALUE(t.dim() <= CheckpointLimits::kDims, op, ": tensor '", name, "' has ", t.dim(),
                      " dimensions, more than the limit of ", CheckpointLimits::kDims,
                      " that safetensors.load reads (CheckpointLimits::kDims)");
    EMBER_CHECK_VALUE(t.is_contiguous(), op, ": You are trying to save a non contiguous tensor: `", name,
                      "` which is not allowed. It either means you are trying to save tensors which are reference "
                      "of each other in which case it's recommended to save only the full tensors, and reslice at "
                      "load time, or simply call `.contiguous()` on your tensor to pack it before saving.");
  }
  // Two tensors whose bytes overlap would be written twice and come back independent: refuse, as the reference.
  std::vector<std::tuple<const StorageImpl*, int64_t, int64_t, const std::string*>> spans;
  for (const auto& [name, t] : tensors)
    if (t.numel() > 0) {
      auto [lo, hi] = serialize::byte_extent(t);
      spans.emplace_back(t.impl()->storage().get(), lo, hi, &name);
    }
  std::sort(spans.begin(), spans.end());
  for (size_t k = 1; k < spans.size(); ++k) {
    const auto& [s0, lo0, hi0, n0] = spans[k - 1];
    const auto& [s1, lo1, hi1, n1] = spans[k];
    EMBER_CHECK(s0 != s1 || lo1 >= hi0, op,
                ": Some tensors share memory, this will lead to duplicate memory on disk "
                "and potential differences when loading them again: [{'",
                *n0, "', '", *n1,
                "'}]. Save clones "
                "(or only one of them) instead.");
  }

  Prepared out;
  auto& order = out.order;
  for (const auto& p : tensors) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    const int ra = rank_of(a->second.dtype()), rb = rank_of(b->second.dtype());
    return ra != rb ? ra > rb : a->first < b->first;
  });
  // The header is written entry by entry: nlohmann's ordered_json finds a key by a linear search, which made
  // a save of n tensors O(n^2). Names are unique (checked above), metadata keys are checked here.
  std::string& text = out.header;
  uint64_t offset = 0;
  try {
    auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(); };
    text = "{";
    if (metadata) {
      std::set<std::string> keys;
      text += "\"__metadata__\":{";
      for (const auto& [k, v] : *metadata) {
        EMBER_CHECK_VALUE(keys.insert(k).second, op, ": the metadata key '", k, "' appears twice");
        text += (keys.size() > 1 ? "," : "") + quoted(k) + ":" + quoted(v);
      }
      text += "}";
    }
    for (const auto* p : order) {
      const Tensor& t = p->second;
      if (text.size() > 1) text += ",";
      text += quoted(p->first) + ":{\"dtype\":\"" + dtype_code(t.dtype()) + "\",\"shape\":[";
      for (int64_t d = 0; d < t.dim(); ++d) text += (d ? "," : "") + std::to_string(t.sizes()[d]);
      text += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + t.nbytes()) + "]}";
      offset += t.nbytes();
    }
    text += "}";
  } catch (const nlohmann::json::exception& e) {  // names or metadata that are not valid UTF-8
    fail<ValueError>(op, ": names and metadata must be valid UTF-8 (", e.what(), ")");
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  EMBER_CHECK_VALUE(text.size() <= static_cast<uint64_t>(CheckpointLimits::kSafetensorsHeaderBytes), op,
                    ": the header would take ", text.size(), " bytes, more than the limit of ",
                    CheckpointLimits::kSafetensorsHeaderBytes,
                    " that safetensors.load reads (CheckpointLimits::kSafetensorsHeaderBytes): fewer tensors or "
                    "shorter names and metadata");
  out.data_bytes = offset;
  return out;
}

void write_prepared(const Prepared& p, serialize::Sink& out) {
  const uint64_t n = p.header.size();
  out.reserve(8 + n + p.data_bytes);
  out.write(&n, sizeof n);
  out.write(p.header.data(), p.header.size());
  for (const auto* e : p.order) {
    const Tensor& t = e->second;
    if (t.numel() > 0) serialize::write_bytes(t.impl()->storage(), serialize::byte_extent(t).first, t.nbytes(), out);
  }
}

}  // namespace

void write(const NamedTensors& tensors, const std::optional<Metadata>& metadata, serialize::Sink& out, const char* op) {
  write_prepared(prepare(tensors, metadata, op), out);
}

File read(const serialize::Source& in, const char* op) {
  const Reader r{op, in.name()};
  const uint64_t size = in.size();
  r.check(size >= 8, "the file is too small to be a safetensors file (", size,
          " bytes; the header length alone "
          "takes 8)");
  uint64_t n;
  in.read(0, &n, sizeof n);
  r.check(n <= kMaxHeaderSize, "the header length ", n, " is larger than the limit of ", kMaxHeaderSize,
          " bytes (CheckpointLimits::kSafetensorsHeaderBytes)");
  r.check(n <= size - 8, "the header length ", n, " runs past the end of the file (", size, " bytes)");
  r.check(n >= 2, "the header length ", n, " is too small for a JSON object");
  std::string text(n, '\0');
  in.read(8, text.data(), n);
  r.check(text[0] == '{', "the header does not start with '{'");
  const Json h = serialize::detail::parse_json(text, serialize::CheckpointLimits::kSafetensorsDepth, op, in.name());
  r.check(h.is_object(), "the header must be a JSON object");

  File f;
  struct Entry {
    const std::string* name;
    ScalarType dtype = ScalarType::UInt8;
    DimVector shape = {};
    uint64_t begin = 0, end = 0;
  };
  std::vector<Entry> entries;  // in name order, as Json's std::map iterates
  r.check(h.size() < (uint64_t{1} << 32), "the header lists ", h.size(), " entries");
  entries.reserve(h.size());
  for (const auto& [name, info] : h.items()) {
    if (name == "__metadata__") {
      if (info.is_null()) continue;
      r.check(info.is_object(), "'__metadata__' must be an object of strings");
      Metadata md;
      for (const auto& [k, v] : info.items()) md.emplace_back(k, r.to_str(v, "'__metadata__' entry '" + k + "'"));
      f.metadata = std::move(md);
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    Entry e{&name};
    const std::string& code = r.to_str(r.field(info, "dtype", where), where + " 'dtype'");
    if (!dtype_from_code(code, e.dtype)) {
      const bool foreign = std::ranges::any_of(kForeignCodes, [&](const char* c) { return code == c; });
      r.fail(where, ": ", foreign ? "ember has no dtype for the safetensors dtype '" : "unknown dtype '", code, "'");
    }
    int64_t numel = 1;
    for (const Json& d : r.to_array(r.field(info, "shape", where), where + " 'shape'")) {
      const int64_t s = r.to_int(d, where + " 'shape'");
      r.check(s >= 0, where, ": negative size ", s);
      e.shape.push_back(s);
      r.check(e.shape.size() <= serialize::CheckpointLimits::kDims, where, ": more than ",
              serialize::CheckpointLimits::kDims, " dimensions");
      r.check(serialize::detail::mul_ok(numel, s, numel), where, ": the number of elements of ", shape_str(e.shape),
              " overflows");
    }
    const auto& offs = r.to_array(r.field(info, "data_offsets", where), where + " 'data_offsets'");
    r.check(offs.size() == 2, where, ": 'data_offsets' must be [begin, end]");
    e.begin = r.to_uint(offs[0], where + " 'data_offsets'");
    e.end = r.to_uint(offs[1], where + " 'data_offsets'");
    r.check(e.begin <= e.end, where, ": data_offsets [", e.begin, ", ", e.end, "] end before they begin");
    int64_t nbytes;
    r.check(serialize::detail::mul_ok(numel, static_cast<int64_t>(element_size(e.dtype)), nbytes), where,
            ": the byte size of shape ", shape_str(e.shape), " overflows");
    r.check(e.end - e.begin == static_cast<uint64_t>(nbytes), where, ": data_offsets [", e.begin, ", ", e.end,
            "] hold ", e.end - e.begin, " bytes, but shape ", shape_str(e.shape), " of ", code, " needs ", nbytes);
    entries.push_back(std::move(e));
  }
  // The tensors must tile the data section exactly: in offset order, each begins where the previous ended.
  // The tensors must tile the data section exactly: in offset order, each begins where the previous ended. One
  // sort of indices (O(n log n)); the entries themselves stay in name order (the JSON object's order).
  std::vector<uint32_t> by_offset(entries.size());
  for (size_t k = 0; k < entries.size(); ++k) by_offset[k] = static_cast<uint32_t>(k);
  std::sort(by_offset.begin(), by_offset.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(entries[a].begin, entries[a].end) < std::tie(entries[b].begin, entries[b].end);
  });
  uint64_t at = 0;
  for (uint32_t k : by_offset) {
    const Entry& e = entries[k];
    r.check(e.begin == at, "tensor '", *e.name, "': data_offsets [", e.begin, ", ", e.end, "] ",
            e.begin < at ? "overlap the previous tensor" : "leave a hole after the previous tensor", " (which ends at ",
            at, ")");
    at = e.end;
  }
  const uint64_t data = 8 + n;
  r.check(at <= size - data, "the tensors need ", at, " bytes of data but the file has ", size - data,
          ": the file is truncated");
  r.check(at == size - data, "the file has ", size - data - at, " bytes after the last tensor's data");

  // One storage for the data section (one read, or a view of the mapping); each tensor views its part, unless
  // its offset is not a multiple of its element size (only a hand-made file does that): then it gets a copy.
  const Storage whole = in.storage(data, at, 8);
  f.tensors.reserve(entries.size());
  for (const Entry& e : entries) {
    const size_t es = element_size(e.dtype);
    const DimVector strides = contiguous_strides(e.shape);
    if (e.begin % es == 0) {
      f.tensors.emplace_back(
          *e.name, serialize::view_storage(whole, e.dtype, e.shape, strides, static_cast<int64_t>(e.begin / es)));
    } else {
      Storage s = make_intrusive<StorageImpl>(e.end - e.begin, kCPU);
      std::memcpy(s->data(), static_cast<const char*>(whole->data()) + e.begin, e.end - e.begin);
      f.tensors.emplace_back(*e.name, serialize::view_storage(s, e.dtype, e.shape, strides, 0));
    }
  }
  return f;
}

void save_file(const NamedTensors& tensors, const std::string& path, const std::optional<Metadata>& metadata) {
  const Prepared prepared = prepare(tensors, metadata, "safetensors.save_file");  // before any file exists
  serialize::AtomicFile out(path);
  write_prepared(prepared, out);
  out.commit();
}

File load_file(const std::string& path, bool mmap) {
  auto in = mmap ? serialize::map_file(path) : serialize::open_file(path);
  return read(*in, "safetensors.load_file");
}

}  // namespace ember::safetensors
