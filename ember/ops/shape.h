// Shape ops (ops/shape.cpp): movedim, broadcasting, meshgrid, and the copies that reorder or repeat (flip, roll, rot90,
// repeat, tile, repeat_interleave) or keep a triangle (tril, triu).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination);
Tensor broadcast_to(const Tensor& t, IntArrayRef size);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
// indexing: "ij" or "xy"; the results are expanded views of the inputs.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing = "ij");

// ---- reordering and repetition: new tensors
Tensor flip(const Tensor& t, IntArrayRef dims);
Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims = {});  // dims empty: over the flattened t
Tensor rot90(const Tensor& t, int64_t k = 1, IntArrayRef dims = {{0, 1}});
Tensor repeat(const Tensor& t, IntArrayRef repeats);
Tensor tile(const Tensor& t, IntArrayRef reps);
// dim nullopt: over the flattened t.
Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim = {});
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim = {});
Tensor repeat_interleave(const Tensor& repeats);  // each i repeated repeats[i] times
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
const Tensor& tril_(const Tensor& t, int64_t diagonal = 0);
const Tensor& triu_(const Tensor& t, int64_t diagonal = 0);

}  // namespace ember
