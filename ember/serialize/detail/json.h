// Strict JSON reading shared by the ember-format and safetensors loaders (internal: nlohmann stays out of
// the public headers). Every getter names the file and the field in its error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ember/dtype.h"

namespace ember::serialize::detail {

using Json = nlohmann::json;

// Parses `text`, raising `[what] 'name': ...` on malformed JSON or invalid UTF-8, nesting deeper than
// max_depth (the parser itself is iterative, but our walks of the result are not), and objects that repeat
// a key (nlohmann would keep the last silently; a checkpoint where two entries claim a name is corrupt).
Json parse_json(std::string_view text, int max_depth, const char* what, const std::string& name);

// `op` and `file` prefix every message: "ember.load: 'x.ckpt': tensor 3: 'size' must be ...".
struct Reader {
  const char* op;
  const std::string& file;

  template <class... A>
  [[noreturn]] void fail(const A&... a) const {
    ::ember::fail<Error>(op, ": '", file, "': ", a...);
  }
  template <class... A>
  void check(bool cond, const A&... a) const {
    if (!cond) [[unlikely]]
      fail(a...);
  }
  const Json& field(const Json& obj, const char* key, const std::string& where) const;
  int64_t to_int(const Json& j, const std::string& where) const;  // an integer that fits int64
  uint64_t to_uint(const Json& j, const std::string& where) const;
  bool to_bool(const Json& j, const std::string& where) const;
  const std::string& to_str(const Json& j, const std::string& where) const;
  const Json::array_t& to_array(const Json& j, const std::string& where) const;
};

// ember's dtype names ("float32") <-> ScalarType; false for names ember doesn't know.
bool dtype_from_name(std::string_view name, ScalarType& out);

// a * b and a + b on non-negative values, false on overflow of int64.
inline bool mul_ok(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
inline bool add_ok(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }

}  // namespace ember::serialize::detail
