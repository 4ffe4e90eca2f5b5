// Docstring helpers of the nn bindings (python/src/nn_*.cpp): the forms PyTorch has both in torch.nn.functional and
// at top level or as a Tensor method, and the argument texts the loss functions share (Note [Python surface]).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace ember::py {

// A docstring template with each `$key` replaced by its value (keys are tried in the order given, so a key that is a
// prefix of another comes after it).
inline std::string fill(std::string_view t, std::initializer_list<std::pair<std::string_view, std::string_view>> subs) {
  std::string r;
  for (size_t i = 0; i < t.size();) {
    bool hit = false;
    for (const auto& [key, value] : subs)
      if (!key.empty() && t.substr(i, key.size()) == key) {
        r += value;
        i += key.size();
        hit = true;
        break;
      }
    if (!hit) r += t[i++];
  }
  return r;
}

// A docstring for another form of a documented function: the function's first line, then `see` (one or more
// sentences naming the function and how this form differs).
inline std::string see_doc(std::string_view doc, std::string_view see) {
  while (!doc.empty() && doc.front() == '\n') doc.remove_prefix(1);
  return std::string(doc.substr(0, doc.find('\n'))) + "\n\n" + std::string(see);
}

// The docstring of an in-place function of torch.nn.functional (relu_, elu_) or at top level (torch.celu_).
inline std::string inplace_fn_doc(std::string_view function) {
  return "In-place version of :func:`" + std::string(function) + "`: writes the result into ``input`` and returns it.";
}

// Per-element losses' `reduction` (with the deprecated size_average and reduce before it).
constexpr const char* kLegacyReductionArgs =
    R"doc(    size_average (bool, optional): deprecated (see ``reduction``). ``False`` sums instead of averaging; given
        with ``reduce``, the two choose the reduction and a warning says which. Default: ``None``
    reduce (bool, optional): deprecated (see ``reduction``). ``False`` returns the loss per element. Default:
        ``None``
    reduction (str, optional): ``'none'`` (the loss per element), ``'mean'`` (their mean) or ``'sum'`` (their
        sum). Default: ``'mean'``
)doc";
constexpr const char* kReductionArg =
    R"doc(    reduction (str, optional): ``'none'`` (the loss per element), ``'mean'`` (their mean) or ``'sum'`` (their
        sum). Default: ``'mean'``
)doc";
// The top-level (ATen) forms take the reduction as PyTorch's enum value.
constexpr const char* kEnumReductionArg =
    R"doc(    reduction (int or str, optional): 0 (none), 1 (mean) or 2 (sum), or the name of one. Default: 1
)doc";

}  // namespace ember::py
