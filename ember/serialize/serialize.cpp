#include "ember/serialize/serialize.h"

#include "ember/ops.h"
#include "ember/serialize/format.h"

namespace ember {

using serialize::Document;
using serialize::Value;

namespace {

void write_file(const Document& doc, const std::string& path) {
  const serialize::PreparedDocument prepared = serialize::prepare_document(doc, "ember::save");  // may throw
  serialize::AtomicFile out(path);
  serialize::write_document(prepared, out);
  out.commit();
}

Document read_file(const std::string& path, const LoadOptions& o) {
  auto in = o.mmap ? serialize::map_file(path) : serialize::open_file(path);
  Document doc = serialize::read_document(*in, "ember::load", o.verify);
  serialize::relocate(
      doc,
      [&](const Tensor& bytes, const std::string& tag) {
        const Device d = o.map_location.value_or(Device(tag));
        return d.is_cpu() ? bytes : to(bytes, d);
      },
      "ember::load");
  return doc;
}

Document state_document(const std::vector<std::pair<std::string, Tensor>>& state) {
  Document doc;
  doc.root = Value::make(Value::Kind::OrderedDict);
  for (const auto& [name, t] : state) {
    doc.root.items.push_back(Value::str(name));
    doc.root.items.push_back(Value::tensor(static_cast<int64_t>(doc.tensors.size())));
    doc.tensors.push_back({t});
  }
  return doc;
}

}  // namespace

void save(const Tensor& t, const std::string& path) {
  Document doc;
  doc.root = Value::tensor(0);
  doc.tensors.push_back({t});
  write_file(doc, path);
}

void save(const std::vector<std::pair<std::string, Tensor>>& state, const std::string& path) {
  write_file(state_document(state), path);
}

void save(const std::map<std::string, Tensor>& state, const std::string& path) {
  write_file(state_document({state.begin(), state.end()}), path);
}

Tensor load(const std::string& path, const LoadOptions& options) {
  Document doc = read_file(path, options);
  EMBER_CHECK(doc.root.kind == Value::Kind::Tensor, "ember::load: '", path, "' holds a ",
              serialize::kind_name(doc.root.kind), ", not a Tensor");
  return doc.tensors[doc.root.i].tensor;
}

std::vector<std::pair<std::string, Tensor>> load_state_dict(const std::string& path, const LoadOptions& options) {
  Document doc = read_file(path, options);
  const Value& root = doc.root;
  EMBER_CHECK(root.kind == Value::Kind::Dict || root.kind == Value::Kind::OrderedDict, "ember::load: '", path,
              "' holds a ", serialize::kind_name(root.kind), ", not a state dict (a dict of str to Tensor)");
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t k = 0; k + 1 < root.items.size(); k += 2) {
    const Value& key = root.items[k];
    const Value& val = root.items[k + 1];
    EMBER_CHECK(key.kind == Value::Kind::Str, "ember::load: '", path, "' is not a state dict: it has a key of type ",
                serialize::kind_name(key.kind));
    EMBER_CHECK(val.kind == Value::Kind::Tensor, "ember::load: '", path, "' is not a state dict: the value of '", key.s,
                "' is a ", serialize::kind_name(val.kind));
    out.emplace_back(key.s, doc.tensors[val.i].tensor);
  }
  return out;
}

}  // namespace ember
