// Note [Caches derived from a storage]
// A cache of data computed from a storage's bytes (oneDNN's blocked copy of a convolution's weight, Note [Blocked
// weights] in backend/cpu/dnnl.cpp) keys on the StorageImpl and trusts its version counter (Note [Version counter])
// to tell when the bytes changed. Two things make that safe. The cache hears of the destruction of each storage it
// watches (its listener runs in the storage's destructor), so a later storage at the same address never finds an
// old entry. And memory that is written without bumping the version is never trusted: external memory (from_numpy,
// DLPack, shared memory) and memory handed out as a NumPy array or a DLPack capsule (mark_shared_outside).
#pragma once

namespace ember {

class StorageImpl;

// s's memory was handed outside ember, writable.
void mark_shared_outside(const StorageImpl* s);
// Whether writes to s's memory may bypass its version counter (external memory, or mark_shared_outside).
bool shared_outside(const StorageImpl* s);

// The function told of a watched storage's destruction (one per process: the blocked weights cache).
void set_storage_release_listener(void (*listener)(const StorageImpl*));
// Tells the listener when s is destroyed.
void watch_storage(const StorageImpl* s);

namespace detail {
// Called by ~StorageImpl.
void storage_released(const StorageImpl* s);
}  // namespace detail

}  // namespace ember
