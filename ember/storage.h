// A reference-counted block of device memory that tensors view. Memory comes from the device's
// allocator, or from outside (NumPy, DLPack), in which case a deleter releases the owner.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "ember/allocator.h"
#include "ember/device.h"
#include "ember/intrusive_ptr.h"

namespace ember {

class StorageImpl final : public RefCounted {
 public:
  StorageImpl(size_t nbytes, Device device);  // allocates through get_allocator(device)
  StorageImpl(void* data, size_t nbytes, Device device, std::function<void()> deleter);  // external
  ~StorageImpl() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool is_external() const { return allocator_ == nullptr; }
  // Moves the storage to other memory of the same size in place, so that every tensor viewing it follows
  // (Tensor.share_memory_ moves a storage into a shared-memory segment): releases the old memory and takes
  // over `data`, released later by `deleter`. The caller has copied the bytes.
  void set_external_data(void* data, std::function<void()> deleter);

  // Note [Version counter]: in-place writes bump the counter of the storage they write to; views of a
  // storage share it, which is what autograd's saved-tensor check needs (PyTorch shares it between a
  // view and its base the same way). A tensor made with `.data`-style aliasing would also share it,
  // a deliberate difference from PyTorch, where `.data` gets a fresh counter.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Allocator* allocator_;
  std::function<void()> deleter_;
  std::atomic<uint32_t> version_{0};
};

using Storage = IntrusivePtr<StorageImpl>;

}  // namespace ember
