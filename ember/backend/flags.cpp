// The CUDA switches (ember/cuda.h) live in the core so that CPU-only builds have them too.
#include "ember/cuda.h"

namespace ember::cuda {

Flags& flags() {
  static Flags f;
  return f;
}

}  // namespace ember::cuda
