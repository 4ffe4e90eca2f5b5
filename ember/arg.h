// EMBER_ARG: an options struct's field with a chainable setter, as libtorch's TORCH_ARG:
//   struct SGDOptions { EMBER_ARG(double, momentum) = 0; };   SGDOptions().momentum(0.9).momentum() == 0.9
// Used by every layer's options (optim, data, ...), so it lives in the core.
#pragma once

// A field `name_` of type T with a setter `name(v)` that returns *this and a getter `name()`.
#define EMBER_ARG(T, name)                  \
  auto& name(const T& v) {                  \
    name##_ = v;                            \
    return *this;                           \
  }                                         \
  const T& name() const { return name##_; } \
  T name##_
