// Tensor printing: a port of torch/_tensor_str.py (_Formatter, _tensor_str_with_formatter, _add_suffixes)
// so that repr(t) reads character for character like PyTorch's.
#include "ember/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ember/ops.h"

namespace ember {

PrintOptions& print_options() {
  static PrintOptions o;
  return o;
}

namespace {

// printf's %f/%e round exactly like Python's str.format; only nan's sign differs (Python never prints "-nan").
std::string format_double(double v, char conv, int precision, int width = 0) {
  if (std::isnan(v) || std::isinf(v)) {
    std::string s = std::isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
    return std::string(std::max<size_t>(width, s.size()) - s.size(), ' ') + s;
  }
  const char spec[] = {'%', '*', '.', '*', conv, '\0'};
  int n = std::snprintf(nullptr, 0, spec, width, precision, v);
  std::string s(n, '\0');
  std::snprintf(s.data(), n + 1, spec, width, precision, v);
  return s;
}

// The printed elements in printing order: floating data as double, everything else as int64 (exact).
struct Values {
  bool floating;
  std::vector<double> f;
  std::vector<int64_t> i;

  void append(const Tensor& t) {
    Tensor c = contiguous(to(contiguous(t), kCPU, floating ? ScalarType::Float64 : ScalarType::Int64));
    if (floating)
      f.insert(f.end(), c.data<double>(), c.data<double>() + c.numel());
    else
      i.insert(i.end(), c.data<int64_t>(), c.data<int64_t>() + c.numel());
  }
};

// The first and last `edgeitems` of a dim, or all of it; Python's t[-0:] makes the tail the whole dim.
int64_t tail_start(int64_t n, int64_t e) { return e == 0 ? 0 : n - e; }

// Reads only what will be shown (get_summarized_data), so a huge tensor costs a few small copies.
void collect(const Tensor& t, bool summarize, int64_t e, Values& out) {
  if (!summarize || t.dim() == 0) return out.append(t);
  int64_t n = t.size(0);
  bool cut = n > 2 * e;
  if (t.dim() == 1) {
    if (!cut) return out.append(t);
    out.append(slice(t, 0, 0, e));
    out.append(slice(t, 0, tail_start(n, e), n));
    return;
  }
  if (!cut) {
    for (int64_t k = 0; k < n; ++k) collect(select(t, 0, k), summarize, e, out);
    return;
  }
  for (int64_t k = 0; k < e; ++k) collect(select(t, 0, k), summarize, e, out);
  for (int64_t k = n - e; k < n; ++k) collect(select(t, 0, k), summarize, e, out);
}

// _Formatter: picks int_mode / sci_mode and the common width from the values shown.
class Formatter {
 public:
  Formatter(const Values& v, ScalarType dtype, const PrintOptions& o)
      : floating_(v.floating), bool_(dtype == ScalarType::Bool), precision_(o.precision) {
    if (!floating_) {
      for (int64_t x : v.i) width_ = std::max(width_, int_str(x).size());
      return;
    }
    std::vector<double> vals;
    for (double x : v.f)
      if (std::isfinite(x) && x != 0) vals.push_back(x);
    // PyTorch returns before applying the sci_mode option when there is no nonzero finite value.
    if (vals.empty()) return;
    double lo = INFINITY, hi = 0;
    for (double x : vals) {
      lo = std::min(lo, std::fabs(x));
      hi = std::max(hi, std::fabs(x));
      if (x != std::ceil(x)) int_mode_ = false;
    }
    sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (double x : vals) {
      size_t w = sci_mode_   ? format_double(x, 'e', precision_).size()
                 : int_mode_ ? format_double(x, 'f', 0).size() + 1
                             : format_double(x, 'f', precision_).size();
      width_ = std::max(width_, w);
    }
    if (o.sci_mode) sci_mode_ = *o.sci_mode;
  }

  size_t width() const { return width_; }

  std::string format_float(double v) const {
    std::string s;
    if (sci_mode_) {
      s = format_double(v, 'e', precision_, static_cast<int>(width_));
    } else if (int_mode_) {
      s = format_double(v, 'f', 0);
      if (std::isfinite(v)) s += '.';
    } else {
      s = format_double(v, 'f', precision_);
    }
    return pad(s);
  }
  std::string format(const Values& v, size_t k) const {
    return floating_ ? format_float(v.f[k]) : pad(int_str(v.i[k]));
  }

 private:
  std::string int_str(int64_t v) const { return bool_ ? (v ? "True" : "False") : std::to_string(v); }
  std::string pad(const std::string& s) const { return std::string(width_ - std::min(width_, s.size()), ' ') + s; }

  bool floating_;
  bool bool_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t width_ = 1;
};

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string r;
  for (size_t k = 0; k < parts.size(); ++k) r += (k ? sep : "") + parts[k];
  return r;
}

// The formatter of a tensor's values; a complex tensor's real and imaginary parts each have their own (formatter1
// and formatter2 in PyTorch).
struct Part {
  Values values;
  Formatter fmt;
};

// _tensor_str_with_formatter over the shape, consuming the collected values in order.
class Printer {
 public:
  Printer(IntArrayRef sizes, const Part& re, const Part* im, const PrintOptions& o, bool summarize)
      : sizes_(sizes), re_(re), im_(im), opts_(o), summarize_(summarize) {}

  std::string str(size_t level, int64_t indent) {
    if (level == sizes_.size()) return element(pos_++);
    // A run of size-1 dims only adds brackets: walked in a loop, so that the recursion is at most as deep as the
    // dims of size > 1 (at most 63 of them hold fewer than 2**63 elements), whatever the number of dims.
    size_t ones = 0;
    while (level + ones + 1 < sizes_.size() && sizes_[level + ones] == 1) ++ones;
    if (ones) {
      std::string inner = str(level + ones, indent + static_cast<int64_t>(ones));
      return std::string(ones, '[') + inner + std::string(ones, ']');
    }
    int64_t n = sizes_[level], e = opts_.edgeitems;
    bool cut = summarize_ && n > 2 * e;
    if (level + 1 == sizes_.size()) return vector_str(n, cut, indent);
    std::vector<std::string> parts;
    int64_t head = cut ? e : n;
    for (int64_t k = 0; k < head; ++k) parts.push_back(str(level + 1, indent + 1));
    if (cut) {
      parts.push_back("...");
      for (int64_t k = 0; k < e; ++k) parts.push_back(str(level + 1, indent + 1));
    }
    size_t ndim = sizes_.size() - level;
    return "[" + join(parts, "," + std::string(ndim - 1, '\n') + std::string(indent + 1, ' ')) + "]";
  }

 private:
  // _val_formatter: a complex number is its real part, then its imaginary part (spaces stripped) with a sign and j.
  std::string element(size_t k) const {
    std::string s = re_.fmt.format(re_.values, k);
    if (!im_) return s;
    std::string i = im_->fmt.format(im_->values, k) + "j";
    i.erase(0, i.find_first_not_of(' '));
    return s + (i[0] == '+' || i[0] == '-' ? "" : "+") + i;
  }

  std::string vector_str(int64_t n, bool cut, int64_t indent) {
    auto element_length = static_cast<double>(re_.fmt.width() + 2 + (im_ ? im_->fmt.width() + 1 : 0));
    auto per_line = std::max<int64_t>(1, static_cast<int64_t>(std::floor((opts_.linewidth - indent) / element_length)));
    std::vector<std::string> data;
    int64_t e = opts_.edgeitems;
    int64_t head = cut ? e : n;
    for (int64_t k = 0; k < head; ++k) data.push_back(element(pos_++));
    if (cut) {
      data.push_back(" ...");
      for (int64_t k = tail_start(n, e); k < n; ++k) data.push_back(element(pos_++));
    }
    std::vector<std::string> lines;
    for (size_t k = 0; k < data.size(); k += per_line) {
      auto end = data.begin() + static_cast<int64_t>(std::min(data.size(), k + per_line));
      lines.push_back(join(std::vector<std::string>(data.begin() + k, end), ", "));
    }
    return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
  }

  IntArrayRef sizes_;
  const Part& re_;
  const Part* im_;
  const PrintOptions& opts_;
  bool summarize_;
  size_t pos_ = 0;
};

std::string tensor_str(const Tensor& t, int64_t indent) {
  const PrintOptions& o = print_options();
  bool summarize = t.numel() > o.threshold;
  // Size-1 dims do not change which values are shown; without them collect() recurses once per dim of size > 1.
  const Tensor s = t.dim() > 1 ? squeeze(t) : t;
  auto part = [&](const Tensor& x) {
    Values v{x.is_floating_point()};
    collect(x, summarize, o.edgeitems, v);
    Formatter f(v, x.dtype(), o);
    return Part{std::move(v), f};
  };
  if (!is_complex(t.dtype())) return Printer(t.sizes(), part(s), nullptr, o, summarize).str(0, indent);
  const Part re = part(real(s)), im = part(imag(s));
  return Printer(t.sizes(), re, &im, o, summarize).str(0, indent);
}

std::string size_tuple(IntArrayRef s) {
  std::string r = "(";
  for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
  return r + (s.size() == 1 ? ",)" : ")");
}

// _add_suffixes, including its count of the last line (two more than its length).
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes, int64_t indent) {
  size_t nl = s.rfind('\n');
  auto last_line_len = static_cast<int64_t>(s.size() - (nl == std::string::npos ? 0 : nl + 1)) + 2;
  for (const std::string& suffix : suffixes) {
    auto len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > print_options().linewidth) {
      s += ",\n" + std::string(indent, ' ') + suffix;
      last_line_len = indent + len;
    } else {
      s += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

}  // namespace

std::string tensor_repr(const Tensor& t, std::string_view grad_fn, std::string_view prefix) {
  auto indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (!t.device().is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  std::string dtype = "dtype=ember." + std::string(dtype_name(t.dtype()));
  std::string body;
  if (t.device().is_meta()) {  // no values to show: PyTorch prints the size instead
    suffixes.push_back("size=" + size_tuple(t.sizes()));
    if (t.dtype() != default_dtype()) suffixes.push_back(dtype);
    body = "...";
  } else if (t.numel() == 0) {
    if (t.dim() != 1) suffixes.push_back("size=" + size_tuple(t.sizes()));
    // No element says whether an integer tensor is int64, so only the default dtype goes unnamed.
    if (t.dtype() != default_dtype()) suffixes.push_back(dtype);
    body = "[]";
  } else {
    const ScalarType d = t.dtype();
    if (d != default_dtype() && d != default_complex_dtype() && d != ScalarType::Int64 && d != ScalarType::Bool)
      suffixes.push_back(dtype);
    body = tensor_str(t, indent);
  }
  if (!grad_fn.empty())
    suffixes.push_back("grad_fn=<" + std::string(grad_fn) + ">");
  else if (t.requires_grad())
    suffixes.push_back("requires_grad=True");
  return add_suffixes(std::string(prefix) + body, suffixes, indent);
}

}  // namespace ember
