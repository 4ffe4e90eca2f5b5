#include "ember/serialize/format.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ember/ops.h"
#include "ember/serialize/checksum.h"
#include "ember/serialize/detail/json.h"
#include "ember/serialize/detail/tensor_bytes.h"

namespace ember::serialize {

static_assert(std::endian::native == std::endian::little,
              "ember's checkpoint formats store little-endian bytes; a big-endian host would need byte swaps");

using detail::Json;
using OJson = nlohmann::ordered_json;  // writing: keys stay in the order written
using detail::Reader;

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::None: return "None";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int:
    case Value::Kind::BigInt: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::Complex: return "complex";
    case Value::Kind::Str: return "str";
    case Value::Kind::Bytes: return "bytes";
    case Value::Kind::List: return "list";
    case Value::Kind::Tuple: return "tuple";
    case Value::Kind::Dict: return "dict";
    case Value::Kind::OrderedDict: return "OrderedDict";
    case Value::Kind::NamedTuple: return "namedtuple";
    case Value::Kind::DType: return "dtype";
    case Value::Kind::Device: return "device";
    case Value::Kind::Size: return "Size";
    case Value::Kind::Slice: return "slice";
    case Value::Kind::Tensor: return "Tensor";
  }
  return "?";
}

bool is_ember_checkpoint(const void* head, size_t n) {
  return n >= sizeof kMagic && std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

template <class T>
T get_le(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ---- base64 (RFC 4648, padded) for bytes objects in the manifest

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string b64_encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kB64[v & 63] : '=';
  }
  return out;
}

bool b64_decode(const std::string& in, std::string& out) {
  if (in.size() % 4) return false;
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out.clear();
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    const bool last = i + 4 == in.size();
    const int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
    uint32_t v = 0;
    for (int k = 0; k < 4 - pad; ++k) {
      const int d = val(in[i + k]);
      if (d < 0) return false;
      v |= static_cast<uint32_t>(d) << (18 - 6 * k);
    }
    out += static_cast<char>(v >> 16);
    if (pad < 2) out += static_cast<char>((v >> 8) & 255);
    if (pad < 1) out += static_cast<char>(v & 255);
  }
  return true;
}

// ---- object tree <-> JSON (docs/serialization.md lists the encoding)

OJson float_json(double x) {
  if (std::isfinite(x)) return OJson(x);
  return OJson(std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
}

OJson tagged(const char* tag, OJson v) {
  OJson o = OJson::object();
  o[tag] = std::move(v);
  return o;
}

// The nesting of j as detail::parse_json counts it: each array or object is one level.
int json_depth(const OJson& j) {
  if (!j.is_structured()) return 0;
  int d = 0;
  for (const OJson& x : j) d = std::max(d, json_depth(x));
  return d + 1;
}

OJson to_json(const Value& v, int depth, size_t ntensors, const char* op) {
  // A Value level is at least one JSON level, so this bounds the recursion; the exact JSON depth, which is
  // what the reader limits, is checked on the finished manifest (prepare_document).
  EMBER_CHECK_VALUE(depth <= kMaxDepth, op, ": the object nests deeper than ", kMaxDepth,
                    " levels (does it contain itself?)");
  auto items = [&](const std::vector<Value>& xs) {
    OJson a = OJson::array();
    for (const Value& x : xs) a.push_back(to_json(x, depth + 1, ntensors, op));
    return a;
  };
  auto pairs = [&] {
    OJson a = OJson::array();
    for (size_t k = 0; k + 1 < v.items.size(); k += 2)
      a.push_back(OJson::array(
          {to_json(v.items[k], depth + 1, ntensors, op), to_json(v.items[k + 1], depth + 1, ntensors, op)}));
    return a;
  };
  switch (v.kind) {
    case Value::Kind::None: return OJson(nullptr);
    case Value::Kind::Bool: return OJson(v.b);
    case Value::Kind::Int: return OJson(v.i);
    case Value::Kind::BigInt:
      EMBER_CHECK_VALUE(v.s.size() - (!v.s.empty() && v.s[0] == '-') <= CheckpointLimits::kIntDigits, op,
                        ": an int of ", v.s.size(), " digits exceeds the limit of ", CheckpointLimits::kIntDigits,
                        " decimal digits that ember.load reads (CheckpointLimits::kIntDigits)");
      return tagged("int", v.s);
    case Value::Kind::Float: return std::isfinite(v.re) ? OJson(v.re) : tagged("float", float_json(v.re));
    case Value::Kind::Complex: return tagged("complex", OJson::array({float_json(v.re), float_json(v.im)}));
    case Value::Kind::Str: return OJson(v.s);
    case Value::Kind::Bytes: return tagged("bytes", b64_encode(v.s));
    case Value::Kind::List: return items(v.items);
    case Value::Kind::Tuple: return tagged("tuple", items(v.items));
    case Value::Kind::Dict: return tagged("dict", pairs());
    case Value::Kind::OrderedDict: return tagged("odict", pairs());
    case Value::Kind::NamedTuple:
      EMBER_CHECK_VALUE(v.fields.size() == v.items.size(), op, ": namedtuple ", v.s, " has ", v.fields.size(),
                        " fields but ", v.items.size(), " values");
      return tagged("namedtuple", OJson{{"name", v.s}, {"fields", v.fields}, {"values", items(v.items)}});
    case Value::Kind::DType: return tagged("dtype", std::string(dtype_name(v.dtype)));
    case Value::Kind::Device: try { (void)Device(v.s);
      } catch (const Error&) {
        fail<ValueError>(op, ": invalid device '", v.s, "'");
      }
      return tagged("device", v.s);
    case Value::Kind::Size: return tagged("size", v.ints);
    case Value::Kind::Slice:
      EMBER_CHECK_VALUE(v.items.size() == 3, op, ": a slice has 3 parts, got ", v.items.size());
      return tagged("slice", items(v.items));
    case Value::Kind::Tensor:
      EMBER_CHECK_VALUE(v.i >= 0 && static_cast<size_t>(v.i) < ntensors, op, ": tensor reference ", v.i,
                        " is out of range");
      return tagged("tensor", v.i);
  }
  fail<Error>(op, ": unknown value kind");
}

struct TreeReader {
  const Reader& r;
  size_t ntensors;

  double to_float(const Json& j, const std::string& where) const {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
      const auto& s = j.get_ref<const std::string&>();
      if (s == "nan") return NAN;
      if (s == "inf") return INFINITY;
      if (s == "-inf") return -INFINITY;
    }
    r.fail(where, ": expected a number or \"nan\"/\"inf\"/\"-inf\", got ", j.type_name());
  }

  Value read(const Json& j, const std::string& where) const {
    Value v;
    switch (j.type()) {
      case Json::value_t::null: return v;
      case Json::value_t::boolean: v.kind = Value::Kind::Bool, v.b = j.get<bool>(); return v;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned: v.kind = Value::Kind::Int, v.i = r.to_int(j, where); return v;
      case Json::value_t::number_float: v.kind = Value::Kind::Float, v.re = j.get<double>(); return v;
      case Json::value_t::string: return Value::str(j.get<std::string>());
      case Json::value_t::array:
        v.kind = Value::Kind::List;
        for (size_t k = 0; k < j.size(); ++k) v.items.push_back(read(j[k], where + "[" + std::to_string(k) + "]"));
        return v;
      case Json::value_t::object: return read_tagged(j, where);
      default: r.fail(where, ": unexpected JSON ", j.type_name());
    }
  }

  void read_items(const Json& j, const std::string& where, Value& v) const {
    const auto& a = r.to_array(j, where);
    for (size_t k = 0; k < a.size(); ++k) v.items.push_back(read(a[k], where + "[" + std::to_string(k) + "]"));
  }

  Value read_tagged(const Json& j, const std::string& where) const {
    r.check(j.size() == 1, where, ": a tagged value has exactly one key, got ", j.size());
    const std::string& tag = j.begin().key();
    const Json& x = j.begin().value();
    const std::string at = where + "<" + tag + ">";
    Value v;
    if (tag == "int") {
      const std::string& s = r.to_str(x, at);
      const size_t sign = !s.empty() && s[0] == '-';
      r.check(s.size() > sign && s.size() - sign <= static_cast<size_t>(CheckpointLimits::kIntDigits) &&
                  std::all_of(s.begin() + sign, s.end(), [](char c) { return c >= '0' && c <= '9'; }),
              at, ": not a decimal integer");
      v.kind = Value::Kind::BigInt, v.s = s;
    } else if (tag == "float") {
      v.kind = Value::Kind::Float, v.re = to_float(x, at);
    } else if (tag == "complex") {
      const auto& a = r.to_array(x, at);
      r.check(a.size() == 2, at, ": expected [real, imag]");
      v.kind = Value::Kind::Complex, v.re = to_float(a[0], at), v.im = to_float(a[1], at);
    } else if (tag == "bytes") {
      v.kind = Value::Kind::Bytes;
      r.check(b64_decode(r.to_str(x, at), v.s), at, ": not valid base64");
    } else if (tag == "tuple") {
      v.kind = Value::Kind::Tuple;
      read_items(x, at, v);
    } else if (tag == "dict" || tag == "odict") {
      v.kind = tag == "dict" ? Value::Kind::Dict : Value::Kind::OrderedDict;
      const auto& a = r.to_array(x, at);
      for (size_t k = 0; k < a.size(); ++k) {
        const std::string item = at + "[" + std::to_string(k) + "]";
        const auto& kv = r.to_array(a[k], item);
        r.check(kv.size() == 2, item, ": expected a [key, value] pair");
        v.items.push_back(read(kv[0], item + ".key"));
        const std::string sub = v.items.back().kind == Value::Kind::Str ? where + "['" + v.items.back().s + "']" : item;
        v.items.push_back(read(kv[1], sub));
      }
    } else if (tag == "namedtuple") {
      v.kind = Value::Kind::NamedTuple;
      v.s = r.to_str(r.field(x, "name", at), at + ".name");
      for (const Json& f : r.to_array(r.field(x, "fields", at), at + ".fields"))
        v.fields.push_back(r.to_str(f, at + ".fields"));
      read_items(r.field(x, "values", at), at + ".values", v);
      r.check(v.fields.size() == v.items.size(), at, ": ", v.fields.size(), " field names for ", v.items.size(),
              " values");
    } else if (tag == "dtype") {
      v.kind = Value::Kind::DType;
      const std::string& name = r.to_str(x, at);
      r.check(detail::dtype_from_name(name, v.dtype), at, ": unknown dtype '", name, "'");
    } else if (tag == "device") {
      v.kind = Value::Kind::Device, v.s = r.to_str(x, at);
      try {
        (void)Device(v.s);
      } catch (const Error&) {
        r.fail(at, ": invalid device '", v.s, "'");
      }
    } else if (tag == "size") {
      v.kind = Value::Kind::Size;
      for (const Json& d : r.to_array(x, at)) v.ints.push_back(r.to_int(d, at));
    } else if (tag == "slice") {
      v.kind = Value::Kind::Slice;
      read_items(x, at, v);
      r.check(v.items.size() == 3, at, ": expected [start, stop, step]");
    } else if (tag == "tensor") {
      v.kind = Value::Kind::Tensor, v.i = r.to_int(x, at);
      r.check(v.i >= 0 && static_cast<size_t>(v.i) < ntensors, at, ": tensor ", v.i, " does not exist (the file has ",
              ntensors, ")");
    } else {
      r.fail(at, ": unknown tag '", tag, "'");
    }
    return v;
  }
};

}  // namespace

PreparedDocument prepare_document(const Document& doc, const char* op) {
  PreparedDocument out;
  std::vector<PreparedDocument::Range>& slots = out.storages;
  std::unordered_map<StorageImpl*, size_t> slot_of;
  std::vector<size_t> tensor_slot;
  for (size_t k = 0; k < doc.tensors.size(); ++k) {
    const Tensor& t = doc.tensors[k].tensor;
    EMBER_CHECK_VALUE(t.defined(), op, ": cannot save an undefined tensor");
    EMBER_CHECK_VALUE(t.dim() <= CheckpointLimits::kDims, op, ": a tensor of ", t.dim(),
                      " dimensions exceeds the limit of ", CheckpointLimits::kDims,
                      " dimensions that ember.load reads (CheckpointLimits::kDims)");
    StorageImpl* s = t.impl()->storage().get();
    auto [it, fresh] = slot_of.try_emplace(s, slots.size());
    if (fresh) slots.push_back({t.impl()->storage(), INT64_MAX, 0, 0});
    tensor_slot.push_back(it->second);
    if (t.numel() > 0) {
      auto [lo, hi] = byte_extent(t);
      slots[it->second].lo = std::min(slots[it->second].lo, lo);
      slots[it->second].hi = std::max(slots[it->second].hi, hi);
    }
  }
  OJson storages = OJson::array();
  uint64_t cursor = 0;
  for (auto& s : slots) {
    // Rounding down to 8 keeps every element offset a whole number of elements of any dtype.
    s.lo = s.lo > s.hi ? 0 : s.lo / 8 * 8;
    s.hi = std::max(s.hi, s.lo);
    s.offset = align_up(cursor, kAlignment);
    cursor = s.offset + (s.hi - s.lo);
    storages.push_back(OJson{{"offset", s.offset}, {"nbytes", s.hi - s.lo}, {"device", s.storage->device().str()}});
  }
  OJson tensors = OJson::array();
  for (size_t k = 0; k < doc.tensors.size(); ++k) {
    const Tensor& t = doc.tensors[k].tensor;
    const auto& s = slots[tensor_slot[k]];
    const int64_t es = static_cast<int64_t>(t.element_size());
    const int64_t offset = t.numel() > 0 ? (t.storage_offset() * es - s.lo) / es : 0;
    OJson entry{{"storage", tensor_slot[k]},
                {"offset", offset},
                {"size", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                {"stride", std::vector<int64_t>(t.strides().begin(), t.strides().end())},
                {"dtype", std::string(dtype_name(t.dtype()))},
                {"requires_grad", t.requires_grad()},
                {"parameter", doc.tensors[k].parameter}};
    if (t.is_conj()) entry["conj"] = true;  // only then: files without conjugate views are as before
    tensors.push_back(std::move(entry));
  }
  OJson manifest = {{"storages", std::move(storages)},
                    {"tensors", std::move(tensors)},
                    {"root", to_json(doc.root, 0, doc.tensors.size(), op)}};
  const int depth = json_depth(manifest);
  EMBER_CHECK_VALUE(depth <= CheckpointLimits::kManifestDepth, op, ": the object nests too deeply: its manifest would ",
                    "nest ", depth, " levels of JSON, more than the ", CheckpointLimits::kManifestDepth,
                    " that ember.load reads (CheckpointLimits::kManifestDepth; a dict, tuple or other tagged value "
                    "takes 3 levels, a list 1)");
  try {
    out.manifest = manifest.dump();
  } catch (const OJson::exception& e) {  // strings that are not valid UTF-8 (from C++ callers)
    fail<ValueError>(op, ": strings must be valid UTF-8 (", e.what(), ")");
  }
  return out;
}

// Note [Checkpoint checksums]: the preamble ends with the CRC-32C of the manifest and the CRC-32C of its own
// first 28 bytes, and a table of each storage's CRC-32C follows the data, so that a file that was damaged
// after it was written fails to load instead of loading other values (tested by mutating every byte of a file).
// The storages' checksums are computed as their bytes are written (the bytes are in the cache then) and come
// last so that nothing is read twice; the reader checks each storage as it reads it, unless told not to.
void write_document(const PreparedDocument& doc, Sink& out) {
  const std::string& text = doc.manifest;
  const uint64_t data_start = align_up(kPreambleSize + text.size(), kAlignment);
  const uint64_t data_end = doc.storages.empty()
                                ? 0
                                : doc.storages.back().offset + (doc.storages.back().hi - doc.storages.back().lo);
  out.reserve(data_start + data_end + 4 * doc.storages.size());
  unsigned char pre[kPreambleSize];
  std::memcpy(pre, kMagic, sizeof kMagic);
  const uint32_t version = kFormatVersion, flags = 0, manifest_crc = crc32c(0, text.data(), text.size());
  const uint64_t mlen = text.size();
  std::memcpy(pre + 8, &version, 4);  // the host is little-endian (static_assert above)
  std::memcpy(pre + 12, &flags, 4);
  std::memcpy(pre + 16, &mlen, 8);
  std::memcpy(pre + 24, &manifest_crc, 4);
  const uint32_t pre_crc = crc32c(0, pre, 28);
  std::memcpy(pre + 28, &pre_crc, 4);
  out.write(pre, sizeof pre);
  out.write(text.data(), text.size());
  out.zeros(data_start - out.position());
  std::vector<uint32_t> crcs;
  for (const auto& s : doc.storages) {
    out.zeros(data_start + s.offset - out.position());
    crcs.push_back(write_bytes(s.storage, s.lo, s.hi - s.lo, out, true));
  }
  out.write(crcs.data(), crcs.size() * sizeof(uint32_t));
}

void write_document(const Document& doc, Sink& out, const char* op) { write_document(prepare_document(doc, op), out); }

Document read_document(const Source& in, const char* op, bool verify) {
  const Reader r{op, in.name()};
  const uint64_t size = in.size();
  constexpr uint64_t kPreambleV1 = 24;
  r.check(size >= kPreambleV1, "the file is too small to be an ember checkpoint (", size, " bytes)");
  unsigned char pre[kPreambleSize];
  in.read(0, pre, kPreambleV1);
  r.check(is_ember_checkpoint(pre, sizeof pre), "not an ember checkpoint (wrong magic bytes)");
  const uint32_t version = get_le<uint32_t>(pre + 8), flags = get_le<uint32_t>(pre + 12);
  r.check(version == kFormatVersion || version == 1, "format version ", version,
          " is not supported (this ember reads versions 1 and ", kFormatVersion, ")");
  // Version 1 (written before Note [Checkpoint checksums]) has a 24-byte preamble and no checksums.
  const bool checked = version == kFormatVersion;
  const uint64_t preamble = checked ? kPreambleSize : kPreambleV1;
  if (checked) {
    r.check(size >= kPreambleSize, "the file is too small to be an ember checkpoint (", size, " bytes)");
    in.read(kPreambleV1, pre + kPreambleV1, kPreambleSize - kPreambleV1);
    const uint32_t want = get_le<uint32_t>(pre + 28), got = crc32c(0, pre, 28);
    r.check(got == want, "the preamble fails its CRC-32C check (computed ", got, ", stored ", want,
            "): the file is corrupt");
  }
  r.check(flags == 0, "unknown flags ", flags, " in the preamble");
  const uint64_t mlen = get_le<uint64_t>(pre + 16);
  r.check(mlen <= size - preamble, "the manifest length ", mlen, " runs past the end of the file (", size,
          " bytes): the file is truncated or corrupt");
  std::string text(mlen, '\0');
  in.read(preamble, text.data(), mlen);
  if (checked) {
    const uint32_t want = get_le<uint32_t>(pre + 24), got = crc32c(0, text.data(), text.size());
    r.check(got == want, "the manifest fails its CRC-32C check (computed ", got, ", stored ", want,
            "): the file is corrupt");
  }
  const Json m = detail::parse_json(text, kMaxDepth, op, in.name());
  r.check(m.is_object(), "the manifest must be a JSON object, got ", m.type_name());
  const uint64_t data_start = align_up(preamble + mlen, kAlignment);
  if (checked && data_start <= size) {  // the padding is zeros (a changed byte there is damage too)
    char pad[kAlignment];
    const uint64_t n = data_start - preamble - mlen;
    in.read(preamble + mlen, pad, n);
    r.check(std::all_of(pad, pad + n, [](char c) { return c == 0; }),
            "the padding after the manifest is not zeros: ", "the file is corrupt");
  }

  Document doc;
  // Storages: each inside the file, in order, aligned, not overlapping.
  const auto& storages = r.to_array(r.field(m, "storages", "the manifest"), "'storages'");
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // (file offset, nbytes)
  uint64_t end = 0;
  for (size_t k = 0; k < storages.size(); ++k) {
    const std::string where = "storage " + std::to_string(k);
    const Json& e = storages[k];
    const uint64_t off = r.to_uint(r.field(e, "offset", where), where + " 'offset'");
    const uint64_t nbytes = r.to_uint(r.field(e, "nbytes", where), where + " 'nbytes'");
    const std::string& device = r.to_str(r.field(e, "device", where), where + " 'device'");
    r.check(off % kAlignment == 0, where, ": offset ", off, " is not a multiple of ", kAlignment);
    r.check(off >= end, where, ": offset ", off, " overlaps the previous storage (which ends at ", end, ")");
    r.check(data_start <= size && off <= size - data_start && nbytes <= size - data_start - off, where, ": bytes [",
            off, ", ", off, " + ", nbytes, ") of the data section run past the end of the file (the data section has ",
            data_start <= size ? size - data_start : 0, " bytes): the file is truncated or corrupt");
    try {
      (void)Device(device);
    } catch (const Error&) {
      r.fail(where, ": invalid device '", device, "'");
    }
    end = off + nbytes;
    ranges.emplace_back(data_start + off, nbytes);
    doc.storages.push_back(StorageRecord{Storage(), device});
  }
  const uint64_t table = checked ? 4 * storages.size() : 0;  // the storages' CRC-32Cs
  const uint64_t expected = (storages.empty() ? data_start : data_start + end) + table;
  r.check(size >= expected, "the file is truncated (", size, " bytes, expected ", expected, ")");
  r.check(size == expected, "the file has ", size - expected, " unexpected bytes after its data");

  // Tensors: a known dtype and a geometry inside their storage.
  struct Geometry {
    size_t storage;
    ScalarType dtype;
    DimVector size, stride;
    int64_t offset;
    bool requires_grad, parameter;
    bool conj = false;  // the conjugate bit (Note [The conjugate bit]); optional, absent means false
  };
  std::vector<Geometry> geo;
  const auto& tensors = r.to_array(r.field(m, "tensors", "the manifest"), "'tensors'");
  for (size_t k = 0; k < tensors.size(); ++k) {
    const std::string where = "tensor " + std::to_string(k);
    const Json& e = tensors[k];
    Geometry g;
    const int64_t s = r.to_int(r.field(e, "storage", where), where + " 'storage'");
    r.check(s >= 0 && static_cast<size_t>(s) < storages.size(), where, ": storage ", s,
            " does not exist (the file has ", storages.size(), ")");
    g.storage = static_cast<size_t>(s);
    const std::string& dt = r.to_str(r.field(e, "dtype", where), where + " 'dtype'");
    r.check(detail::dtype_from_name(dt, g.dtype), where, ": unknown dtype '", dt, "'");
    const auto& size_j = r.to_array(r.field(e, "size", where), where + " 'size'");
    const auto& stride_j = r.to_array(r.field(e, "stride", where), where + " 'stride'");
    r.check(size_j.size() <= kMaxDims, where, ": ", size_j.size(), " dimensions (at most ", kMaxDims, ")");
    r.check(size_j.size() == stride_j.size(), where, ": 'size' has ", size_j.size(), " entries but 'stride' has ",
            stride_j.size());
    for (size_t d = 0; d < size_j.size(); ++d) {
      g.size.push_back(r.to_int(size_j[d], where + " 'size'"));
      g.stride.push_back(r.to_int(stride_j[d], where + " 'stride'"));
    }
    g.offset = r.to_int(r.field(e, "offset", where), where + " 'offset'");
    g.requires_grad = r.to_bool(r.field(e, "requires_grad", where), where + " 'requires_grad'");
    g.parameter = r.to_bool(r.field(e, "parameter", where), where + " 'parameter'");
    r.check(!g.requires_grad || is_inexact(g.dtype), where, ": a ", dtype_name(g.dtype),
            " tensor can't require gradients");
    if (e.contains("conj")) g.conj = r.to_bool(e["conj"], where + " 'conj'");
    r.check(!g.conj || is_complex(g.dtype), where, ": a ", dtype_name(g.dtype), " tensor can't have the conjugate bit");
    const std::string bad = check_geometry(g.size, g.stride, g.offset, g.dtype, ranges[g.storage].second);
    r.check(bad.empty(), where, ": ", bad);
    geo.push_back(std::move(g));
  }
  doc.root = TreeReader{r, tensors.size()}.read(r.field(m, "root", "the manifest"), "root");

  // Everything checked: now read (or map) the bytes, checking each storage's CRC-32C.
  std::vector<uint32_t> crcs(checked ? storages.size() : 0);
  if (!crcs.empty()) in.read(expected - table, crcs.data(), table);
  for (size_t k = 0; k < ranges.size(); ++k) {
    const auto [off, n] = ranges[k];
    Storage s = in.view(off, n);
    uint32_t crc = 0;
    if (s) {
      if (checked && verify) crc = crc32c(0, s->data(), n);
    } else {  // read in pieces, each checksummed while it is in the cache
      s = make_intrusive<StorageImpl>(n, kCPU);
      constexpr uint64_t kPiece = uint64_t{1} << 20;
      for (uint64_t at = 0; at < n; at += kPiece) {
        const uint64_t len = std::min(kPiece, n - at);
        char* dst = static_cast<char*>(s->data()) + at;
        in.read(off + at, dst, len);
        if (checked && verify) crc = crc32c(crc, dst, len);
      }
    }
    r.check(!checked || !verify || crc == crcs[k], "storage ", k, " (", n, " bytes) fails its CRC-32C check (computed ",
            crc, ", stored ", checked ? crcs[k] : 0, "): the file is corrupt");
    doc.storages[k].storage = std::move(s);
  }
  for (const Geometry& g : geo) {
    Tensor t(make_intrusive<TensorImpl>(doc.storages[g.storage].storage, g.dtype, g.size, g.stride, g.offset));
    t.impl()->set_conj(g.conj);
    if (g.requires_grad) t.set_requires_grad(true);
    doc.tensors.push_back(TensorRecord{std::move(t), g.parameter, static_cast<int64_t>(g.storage)});
  }
  return doc;
}

}  // namespace ember::serialize

namespace ember::serialize {

void relocate(Document& doc, const std::function<Tensor(const Tensor& bytes, const std::string& device)>& place,
              const char* op) {
  std::vector<Storage> moved(doc.storages.size());
  std::vector<int64_t> base(doc.storages.size(), 0);  // the byte offset of the storage's bytes in moved[k]
  bool any = false;
  for (size_t k = 0; k < doc.storages.size(); ++k) {
    const Storage& s = doc.storages[k].storage;
    const int64_t n = static_cast<int64_t>(s->nbytes());
    const int64_t size[1] = {n}, stride[1] = {1};
    Tensor r = place(view_storage(s, ScalarType::UInt8, size, stride, 0), doc.storages[k].device);
    EMBER_CHECK(r.defined() && r.dtype() == ScalarType::UInt8 && r.numel() == n, op,
                ": map_location must return "
                "the storage's bytes (a uint8 tensor of ",
                n, " elements), got ", r.defined() ? "a " : "an undefined ",
                r.defined() ? ::ember::detail::cat(dtype_name(r.dtype()), " tensor of shape ", shape_str(r.sizes()))
                            : "tensor");
    if (!r.is_contiguous()) r = contiguous(r);
    if (r.storage_offset() % 8 != 0) r = clone(r);  // views need whole elements of any dtype
    moved[k] = r.impl()->storage();
    base[k] = r.storage_offset();
    any |= moved[k].get() != s.get();
  }
  if (!any) return;
  for (TensorRecord& rec : doc.tensors) {
    const Tensor& t = rec.tensor;
    const size_t k = static_cast<size_t>(rec.storage);
    const int64_t es = static_cast<int64_t>(t.element_size());
    Tensor v = view_storage(moved[k], t.dtype(), t.sizes(), t.strides(), t.storage_offset() + base[k] / es);
    v.impl()->set_conj(t.is_conj());
    if (t.requires_grad()) v.set_requires_grad(true);
    rec.tensor = std::move(v);
  }
  for (size_t k = 0; k < doc.storages.size(); ++k) doc.storages[k].storage = moved[k];
}

}  // namespace ember::serialize
