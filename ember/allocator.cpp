#include "ember/allocator.h"

#include "ember/cuda.h"

namespace ember {

Allocator* get_allocator(Device d) {
  if (d.is_cpu()) [[likely]]
    return cpu_allocator();
  return cuda::allocator(d.index);
}

}  // namespace ember
