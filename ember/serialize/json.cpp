#include "ember/serialize/detail/json.h"

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

// Builds the DOM from nlohmann's SAX events, refusing repeated keys (found by the object's own insertion) and
// deep nesting on the way. (nlohmann's parse-with-callback could check these too, but its end_object scans
// the enclosing object for discarded values, which made a safetensors header of n tensors take O(n^2) time:
// 45 s for 40,000 tensors.)
struct CheckedBuilder {
  Json& root;
  int max_depth;
  std::vector<Json*> open;  // the containers being filled; a child is placed only while it is the innermost
  Json* slot = nullptr;     // where an object's next value goes (set by key())

  Json* place(Json&& v) {
    if (open.empty()) return &(root = std::move(v));
    Json& top = *open.back();
    if (top.is_array()) {
      auto& a = top.get_ref<Json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    *slot = std::move(v);
    return slot;
  }
  bool null() { return place(Json(nullptr)), true; }
  bool boolean(bool v) { return place(Json(v)), true; }
  bool number_integer(Json::number_integer_t v) { return place(Json(v)), true; }
  bool number_unsigned(Json::number_unsigned_t v) { return place(Json(v)), true; }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return place(Json(v)), true; }
  bool string(Json::string_t& v) { return place(Json(std::move(v))), true; }
  bool binary(Json::binary_t& v) { return place(Json::binary(std::move(v))), true; }
  bool start_object(std::size_t) { return open_container(Json::value_t::object); }
  bool start_array(std::size_t) { return open_container(Json::value_t::array); }
  bool open_container(Json::value_t t) {
    if (static_cast<int>(open.size()) >= max_depth) throw TooDeep{};
    open.push_back(place(Json(t)));
    return true;
  }
  bool key(Json::string_t& k) {
    auto [it, fresh] = open.back()->get_ref<Json::object_t&>().emplace(std::move(k), nullptr);
    if (!fresh) throw DuplicateKey{it->first};
    slot = &it->second;
    return true;
  }
  bool end_object() { return open.pop_back(), true; }
  bool end_array() { return open.pop_back(), true; }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e;
  }
};

Json parse_json(std::string_view text, int max_depth, const char* what, const std::string& name) {
  try {
    Json out;
    CheckedBuilder sax{out, max_depth};
    Json::sax_parse(text.begin(), text.end(), &sax);
    return out;
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
