#include "ember/serialize/detail/json.h"

#include <unordered_set>
#include <vector>

namespace ember::serialize::detail {

namespace {
// A value's JSON text for a message, cut short: a fuzzed file may put a megabyte where a number belongs.
std::string brief(const Json& j) {
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}
// nlohmann's messages quote the bytes it last read, which in a corrupt file need not be UTF-8: escape them
// so that the message is text (Python decodes it as UTF-8).
std::string printable(const char* msg) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char* p = msg; *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}
struct DuplicateKey {
  std::string key;
};
struct TooDeep {};
}  // namespace

Json parse_json(std::string_view text, int max_depth, const char* what, const std::string& name) {
  std::vector<std::unordered_set<std::string>> keys;  // one set per object being parsed
  int depth = 0;
  auto cb = [&](int, Json::parse_event_t ev, Json& parsed) -> bool {
    switch (ev) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (++depth > max_depth) throw TooDeep{};
        if (ev == Json::parse_event_t::object_start) keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        --depth;
        if (ev == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get_ref<const std::string&>()).second)
          throw DuplicateKey{parsed.get<std::string>()};
        break;
      default: break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), cb);
  } catch (const Json::exception& e) {
    fail<Error>(what, ": '", name, "': the header is not valid JSON (", printable(e.what()), ")");
  } catch (const DuplicateKey& d) {
    fail<Error>(what, ": '", name, "': the header repeats the key \"", d.key, "\" in one object");
  } catch (const TooDeep&) {
    fail<Error>(what, ": '", name, "': the header nests deeper than ", max_depth, " levels");
  }
}

const Json& Reader::field(const Json& obj, const char* key, const std::string& where) const {
  check(obj.is_object(), where, " must be a JSON object, got ", obj.type_name());
  auto it = obj.find(key);
  check(it != obj.end(), where, " has no '", key, "'");
  return *it;
}

int64_t Reader::to_int(const Json& j, const std::string& where) const {
  if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<int64_t>();
  if (j.is_number_unsigned() && j.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX))
    return static_cast<int64_t>(j.get<uint64_t>());
  fail(where, " must be an integer in the int64 range, got ", brief(j));
}

uint64_t Reader::to_uint(const Json& j, const std::string& where) const {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  fail(where, " must be a non-negative integer, got ", brief(j));
}

bool Reader::to_bool(const Json& j, const std::string& where) const {
  check(j.is_boolean(), where, " must be true or false, got ", brief(j));
  return j.get<bool>();
}

const std::string& Reader::to_str(const Json& j, const std::string& where) const {
  check(j.is_string(), where, " must be a string, got ", j.type_name());
  return j.get_ref<const std::string&>();
}

const Json::array_t& Reader::to_array(const Json& j, const std::string& where) const {
  check(j.is_array(), where, " must be a JSON array, got ", j.type_name());
  return j.get_ref<const Json::array_t&>();
}

bool dtype_from_name(std::string_view name, ScalarType& out) {
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (dtype_name(static_cast<ScalarType>(i)) == name) {
      out = static_cast<ScalarType>(i);
      return true;
    }
  return false;
}

}  // namespace ember::serialize::detail
