#include "ember/allocator.h"

#include "ember/cuda.h"

namespace ember {

Allocator* get_allocator(Device d) {
  if (d.is_cpu()) [[likely]]
    return cpu_allocator();
  if (d.is_meta()) return meta_allocator();
  return cuda::allocator(d.index);
}

}  // namespace ember
