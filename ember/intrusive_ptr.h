// Reference counting embedded in the object: one allocation per object, a pointer-sized handle,
// and the object is destroyed the moment the last handle goes (the PyTorch paper, section 5.5).
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;
  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }
  // Takes a reference unless the count already reached zero (the object is being destroyed): for a raw pointer
  // whose owner's destructor clears it under a lock that the caller holds (AccumulateGrad::variable).
  bool try_retain() const {
    uint32_t c = refcount_.load(std::memory_order_relaxed);
    while (c != 0)
      if (refcount_.compare_exchange_weak(c, c + 1, std::memory_order_relaxed)) return true;
    return false;
  }

 private:
  template <class T>
  friend class IntrusivePtr;
  mutable std::atomic<uint32_t> refcount_{0};
};

template <class T>
class IntrusivePtr {
 public:
  IntrusivePtr() = default;
  explicit IntrusivePtr(T* p) : p_(p) { retain(); }
  IntrusivePtr(const IntrusivePtr& o) : p_(o.p_) { retain(); }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  IntrusivePtr(IntrusivePtr<U> o) : p_(o.release()) {}
  ~IntrusivePtr() { reset(); }
  IntrusivePtr& operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const IntrusivePtr& o) const { return p_ == o.p_; }
  void reset() {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
    p_ = nullptr;
  }
  T* release() { return std::exchange(p_, nullptr); }  // the caller takes over one reference
  static IntrusivePtr adopt(T* p) {                    // takes over a reference released earlier
    IntrusivePtr r;
    r.p_ = p;
    return r;
  }

 private:
  void retain() {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  T* p_ = nullptr;
};

template <class T, class... A>
IntrusivePtr<T> make_intrusive(A&&... a) {
  return IntrusivePtr<T>(new T(std::forward<A>(a)...));
}

}  // namespace ember
