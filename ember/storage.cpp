#include "ember/storage.h"

#include "ember/profiler/profiler.h"
#include "ember/storage_watch.h"

namespace ember {

StorageImpl::StorageImpl(size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device), allocator_(get_allocator(device)) {
  if (profiler::active()) [[unlikely]] {
    // Recorded as PyTorch's aten::empty is, so that the memory of an op's output has a row of its own.
    profiler::RecordScope scope("ember::empty");
    data_ = allocator_->allocate(nbytes);
    return;
  }
  data_ = allocator_->allocate(nbytes);
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device, std::function<void()> deleter)
    : data_(data), nbytes_(nbytes), device_(device), allocator_(nullptr), deleter_(std::move(deleter)) {}

void StorageImpl::set_external_data(void* data, std::function<void()> deleter) {
  if (allocator_)
    allocator_->deallocate(data_, nbytes_);
  else if (deleter_)
    deleter_();
  data_ = data;
  allocator_ = nullptr;
  deleter_ = std::move(deleter);
}

StorageImpl::~StorageImpl() {
  detail::storage_released(this);  // Note [Caches derived from a storage]
  if (allocator_)
    allocator_->deallocate(data_, nbytes_);
  else if (deleter_)
    deleter_();
}

}  // namespace ember
