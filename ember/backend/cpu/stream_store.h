// Note [Streaming stores]
// A plain store to memory that is not in cache first reads the line it writes into (a read for ownership), so an
// elementwise op over tensors larger than the last-level cache moves each output byte twice: a copy costs three
// transfers per element instead of two, `a + b` four instead of three. Non-temporal ("streaming") stores write
// whole lines without reading them. They also bypass the cache, which is a loss when the output would have stayed
// there for the next op, so they are used only when the output is at least as large as the last-level cache (then
// nothing of it stays anyway). The contiguous loops (loops.h) compute a block of outputs into a buffer in L1 and
// stream the block out; a run ends with a store fence, so the job's completion (Note [Intra-op parallelism])
// publishes the data as it does for plain stores.
#pragma once

#include <cstdint>

namespace ember::cpu {

// Whether an output of `bytes` is written with streaming stores: at least the last-level cache's size.
bool streams_output(int64_t bytes);
// Copies `bytes` from src (a buffer in cache) to dst with streaming stores, the unaligned edges with plain ones.
void stream_copy(char* dst, const char* src, int64_t bytes);
// Orders the streaming stores before what follows (call at the end of a run).
void stream_fence();

}  // namespace ember::cpu
