// The object tree of an ember checkpoint (docs/serialization.md): the containers, numbers, strings and
// torch-style values ember.save accepts, with tensors as indices into a side table so that one tensor
// object saved twice comes back as one object, and views of one storage come back sharing it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::serialize {

struct Value {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    BigInt,
    Float,
    Complex,
    Str,
    Bytes,
    List,
    Tuple,
    Dict,
    OrderedDict,
    NamedTuple,
    DType,
    Device,
    Size,
    Slice,
    Tensor
  };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;                           // Int; Tensor: the index into Document::tensors
  double re = 0, im = 0;                   // Float (re), Complex
  ScalarType dtype = ScalarType::Float32;  // DType
  std::string s;             // Str, Bytes, BigInt (decimal digits), NamedTuple (type name), Device ("cuda:1")
  std::vector<Value> items;  // List, Tuple, NamedTuple, Slice (start, stop, step); dicts: key, value, key, value...
  std::vector<std::string> fields;  // NamedTuple
  std::vector<int64_t> ints;        // Size

  static Value make(Kind k) {
    Value v;
    v.kind = k;
    return v;
  }
  static Value str(std::string text) {
    Value v = make(Kind::Str);
    v.s = std::move(text);
    return v;
  }
  static Value tensor(int64_t index) {
    Value v = make(Kind::Tensor);
    v.i = index;
    return v;
  }
};

struct TensorRecord {
  Tensor tensor;
  bool parameter = false;  // restored as nn.Parameter in Python
  int64_t storage = -1;    // load: the index into Document::storages
};

struct StorageRecord {
  Storage storage;     // load: CPU memory (a copy, or a view of a mapped file)
  std::string device;  // the location it was saved from ("cpu", "cuda:0"), for map_location
};

struct Document {
  Value root;
  std::vector<TensorRecord> tensors;
  std::vector<StorageRecord> storages;  // filled by the loader
};

const char* kind_name(Value::Kind k);  // "dict", "namedtuple" ... for error messages

}  // namespace ember::serialize
