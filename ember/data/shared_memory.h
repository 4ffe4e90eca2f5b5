// Shared-memory storages: Tensor.share_memory_(), and mapping a segment another process created
// (ember.multiprocessing sends a tensor as a segment handle plus its geometry; docs/data.md).
#pragma once

#include <cstddef>
#include <string>

#include "ember/tensor.h"

namespace ember::data {

// How new segments are made (PyTorch's sharing strategies):
//   FileDescriptor: an anonymous memfd; other processes get a duplicate of its descriptor (sent over a Unix
//                   socket). Nothing appears in /dev/shm; the kernel frees it with the last descriptor/mapping.
//   FileSystem:     a POSIX segment /dev/shm/ember_<pid>_<counter>, opened by name. A reference count in the
//                   segment unlinks it when the last holder lets go (Note [Named segments]).
enum class SharingStrategy { FileDescriptor, FileSystem };
void set_sharing_strategy(SharingStrategy s);
SharingStrategy sharing_strategy();

// True when the storage's memory is a segment this process has mapped (CUDA storages: always, as PyTorch).
bool is_shared(const Storage& s);
// Moves the storage's bytes into a new segment in place (every tensor viewing it follows); no-op when already
// shared or on CUDA.
void share_storage_(const Storage& s);
const Tensor& share_memory_(const Tensor& t);

// A tensor of the given shape (contiguous) in a fresh segment, for batches that cross a process boundary.
Tensor empty_shared(IntArrayRef size, ScalarType dtype);

// What a receiver needs to map a shared storage. For named segments, taking a handle also takes a reference
// for the message in flight (the receiver's attach_name takes it over), so the sender may drop its tensor
// before the receiver maps the segment.
struct SegmentHandle {
  bool named = false;
  int fd = -1;        // memfd segments: this process's descriptor (still owned by the segment)
  std::string name;   // named segments
  size_t nbytes = 0;  // the storage's size
};
SegmentHandle share_handle(const Storage& s);  // shares the storage first when needed

// Map a segment sent by another process (or this one). attach_fd takes ownership of fd. Storages of one segment
// in one process share one mapping, so views sent in one message stay views of the same memory.
Storage attach_fd(int fd, size_t nbytes);
Storage attach_name(const std::string& name, size_t nbytes);

// A tensor over a storage with the given geometry (checked against the storage's size).
Tensor tensor_from_storage(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

// Waits until the messages this process sent with named segments were received (or their names are gone), at most
// timeout_s seconds; false on a timeout. Run at a child process's exit, before the tracker unlinks its names.
bool wait_for_sent_names(double timeout_s);

// Connects this process to the tracker named by $EMBER_SHM_TRACKER now (otherwise on its first named segment).
void connect_tracker();

// Segments mapped by this process (for tests and leak checks).
size_t live_segments();

}  // namespace ember::data
