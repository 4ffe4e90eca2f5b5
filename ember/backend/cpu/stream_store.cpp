// Streaming stores for outputs larger than the last-level cache (Note [Streaming stores] in stream_store.h).
#include "ember/backend/cpu/stream_store.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace ember::cpu {
namespace {

// "32768K" (sysfs's cache sizes) in bytes, or 0.
int64_t parse_size(const std::string& s) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || v <= 0) return 0;
  return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : v;
}

// The largest cache of CPU 0 as sysfs lists it (what this machine, a VM included, gives one core's group; sysconf's
// L3 can be the whole host's), else sysconf's, else 32 MiB. EMBER_STREAM_STORE_BYTES overrides it (0: never stream).
int64_t threshold() {
  if (const char* env = std::getenv("EMBER_STREAM_STORE_BYTES"); env && *env) {
    const long long v = std::atoll(env);
    return v > 0 ? v : INT64_MAX;
  }
  int64_t llc = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    if (std::string size; f >> size) llc = std::max(llc, parse_size(size));
  }
  if (llc <= 0) llc = std::max<long>(sysconf(_SC_LEVEL3_CACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE));
  return llc > 0 ? llc : int64_t{32} << 20;
}

}  // namespace

bool streams_output(int64_t bytes) {
#if defined(__AVX__)
  static const int64_t t = threshold();
  return bytes >= t;
#else
  (void)bytes;
  return false;
#endif
}

void stream_copy(char* dst, const char* src, int64_t bytes) {
#if defined(__AVX__)
  const int64_t head = std::min<int64_t>(bytes, (32 - reinterpret_cast<uintptr_t>(dst) % 32) % 32);
  std::memcpy(dst, src, head);
  int64_t i = head;
  for (; i + 32 <= bytes; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void stream_fence() {
#if defined(__AVX__)
  _mm_sfence();
#endif
}

}  // namespace ember::cpu
