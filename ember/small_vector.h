// A vector with inline storage for N elements: shapes and strides of up to N dims cost no allocation.
#pragma once

#include "ember/cxx20.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>

namespace ember {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable types only");

 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { resize(n, v); }
  SmallVector(std::initializer_list<T> l) { assign(l.begin(), l.size()); }
  SmallVector(std::span<const T> s) { assign(s.data(), s.size()); }
  SmallVector(const SmallVector& o) { assign(o.data(), o.size()); }
  SmallVector(SmallVector&& o) noexcept { move_from(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      free_heap();
      move_from(o);
    }
    return *this;
  }
  ~SmallVector() { free_heap(); }

  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  operator std::span<const T>() const { return {data(), size_}; }

  void push_back(T v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void insert(size_t pos, T v) {
    reserve(size_ + 1);
    T* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - pos) * sizeof(T));
    d[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    T* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(T));
    --size_;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = v;
    size_ = n;
  }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, 2 * cap_);
    T* h = new T[cap];
    std::memcpy(h, data(), size_ * sizeof(T));
    free_heap();
    heap_ = h;
    cap_ = cap;
  }
  bool operator==(const SmallVector& o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }

 private:
  void assign(const T* p, size_t n) {
    size_ = 0;
    reserve(n);
    if (n) std::memcpy(data(), p, n * sizeof(T));  // an empty span may have a null pointer
    size_ = n;
  }
  void move_from(SmallVector& o) {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      o.heap_ = nullptr;
      o.cap_ = N;
    } else {
      heap_ = nullptr;
      cap_ = N;
      std::memcpy(inline_, o.inline_, size_ * sizeof(T));
    }
    o.size_ = 0;
  }
  void free_heap() {
    delete[] heap_;
    heap_ = nullptr;
    cap_ = N;
  }

  T* heap_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = N;
  T inline_[N];
};

using DimVector = SmallVector<int64_t, 6>;
// A view of sizes, strides or dims: a std::span that also takes a braced list, so that libtorch's spellings work
// (ember::randn({2, 3}), x.view({-1, 4})). The list lives until the end of the full expression, as for c10::ArrayRef:
// pass it to a call, never keep it.
struct IntArrayRef : std::span<const int64_t> {
  using std::span<const int64_t>::span;
  constexpr IntArrayRef(std::span<const int64_t> s) : std::span<const int64_t>(s) {}  // NOLINT: implicit, as span
  constexpr IntArrayRef(std::initializer_list<int64_t> list) : std::span<const int64_t>(list.begin(), list.size()) {}
};

}  // namespace ember
