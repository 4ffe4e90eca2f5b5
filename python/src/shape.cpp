// Bindings of the shape and indexing ops: functions (ember.cat), methods (t.split), in-place forms
// (t.scatter_) and out=, with PyTorch's signatures.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

// An int or a sequence of ints.
DimVector ints(nb::handle h, const char* fn, const char* what) {
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return to_int_list(h, fn, what);
  return {to_int(h, fn, what)};
}

Tensor out_of(nb::handle out) { return out.is_valid() && !out.is_none() ? nb::cast<Tensor>(out) : Tensor(); }

// A value that PyTorch accepts as a number or a 0-d tensor (masked_fill, index_fill).
Scalar value_of(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.dim() == 0, fn, " only supports a 0-dimensional value tensor, but got tensor with ", t.dim(),
                " dimension(s).");
    return item(t);
  }
  return to_scalar(h, fn);
}

std::optional<std::string_view> opt_str(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(PyUnicode_Check(h.ptr()), "reduce must be a str, not ", nb::inst_name(h).c_str());
  return std::string_view(utf8(h));
}

std::vector<Tensor> optional_tensors(nb::handle h, const char* fn) {
  EMBER_CHECK_TYPE(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()), fn,
                   "(): argument 'indices' must be tuple of Tensors, not ", nb::inst_name(h).c_str());
  std::vector<Tensor> r;
  for (nb::handle item : nb::borrow<nb::sequence>(h)) {
    if (item.is_none()) {
      r.emplace_back();
      continue;
    }
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(item), fn, "(): expected Tensor or None in argument 'indices', but got ",
                     nb::inst_name(item).c_str());
    r.push_back(nb::cast<const Tensor&>(item));
  }
  return r;
}

void init_joining(nb::module_& m, nb::handle cls) {
  using Join = Tensor (*)(const std::vector<Tensor>&, int64_t, const Tensor&);
  for (auto [name, f] : {std::pair<const char*, Join>{"cat", &cat}, {"concat", &cat}, {"concatenate", &cat},
                         {"stack", &stack}}) {
    const char* fn = name;
    m.attr(name) = nb::cpp_function([f, fn](nb::handle tensors, int64_t dim, nb::handle out) -> nb::object {
      Tensor r = f(tensor_list(tensors, fn), dim, out_of(out));
      return out.is_none() ? nb::cast(std::move(r)) : nb::borrow(out);
    }, nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(), nb::arg("out") = nb::none());
  }
  using Join2 = Tensor (*)(const std::vector<Tensor>&, const Tensor&);
  for (auto [name, f] :
       {std::pair<const char*, Join2>{"hstack", &hstack}, {"vstack", &vstack}, {"row_stack", &vstack}}) {
    const char* fn = name;
    m.attr(name) = nb::cpp_function([f, fn](nb::handle tensors, nb::handle out) -> nb::object {
      Tensor r = f(tensor_list(tensors, fn), out_of(out));
      return out.is_none() ? nb::cast(std::move(r)) : nb::borrow(out);
    }, nb::arg("tensors"), nb::kw_only(), nb::arg("out") = nb::none());
  }

  auto split_fn = [](const Tensor& t, nb::handle size, int64_t dim) {
    if (PyTuple_Check(size.ptr()) || PyList_Check(size.ptr()))
      return to_tuple(split_with_sizes(t, to_int_list(size, "split", "split_size_or_sections"), dim));
    return to_tuple(split(t, to_int(size, "split", "split_size_or_sections"), dim));
  };
  m.attr("split") = nb::cpp_function(split_fn, nb::arg("tensor"), nb::arg("split_size_or_sections"),
                                     nb::arg("dim") = 0);
  cls.attr("split") = nb::cpp_function(split_fn, nb::is_method(), nb::arg("split_size"), nb::arg("dim") = 0);
  def_both(m, cls, "split_with_sizes", [](const Tensor& t, nb::handle sizes, int64_t dim) {
    return to_tuple(split_with_sizes(t, to_int_list(sizes, "split_with_sizes", "split_sizes"), dim));
  }, nb::arg("split_sizes"), nb::arg("dim") = 0);
  def_both(m, cls, "chunk",
           [](const Tensor& t, int64_t chunks, int64_t dim) { return to_tuple(chunk(t, chunks, dim)); },
           nb::arg("chunks"), nb::arg("dim") = 0);
  def_both(m, cls, "unbind", [](const Tensor& t, int64_t dim) { return to_tuple(unbind(t, dim)); },
           nb::arg("dim") = 0);
}

void init_views(nb::module_& m, nb::handle cls) {
  auto movedim_fn = [](const Tensor& t, nb::handle src, nb::handle dst) {
    return movedim(t, ints(src, "movedim", "source"), ints(dst, "movedim", "destination"));
  };
  def_both(m, cls, "movedim", movedim_fn, nb::arg("source"), nb::arg("destination"));
  def_both(m, cls, "moveaxis", movedim_fn, nb::arg("source"), nb::arg("destination"));
  if (!nb::hasattr(m, "swapdims"))
    m.def("swapdims", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("input"),
          nb::arg("dim0"), nb::arg("dim1"));
  m.def("broadcast_to", [](const Tensor& t, nb::handle size) {
    return broadcast_to(t, to_int_list(size, "broadcast_to", "size"));
  }, nb::arg("input"), nb::arg("size"));
  cls.attr("broadcast_to") = nb::cpp_function([](const Tensor& t, nb::args size) {
    return broadcast_to(t, parse_size(size, 0, "broadcast_to"));
  }, nb::is_method());
  m.def("broadcast_tensors", [](nb::args args) {
    return to_tuple(broadcast_tensors(tensor_varargs(args, "broadcast_tensors")));
  });
  m.def("meshgrid", [](nb::args args, nb::kwargs kw) {
    nb::handle indexing;
    FactoryArgs unused;
    parse_factory_kwargs(kw, "meshgrid", 0, unused, {{"indexing", &indexing}});
    std::string mode = indexing.is_valid() && !indexing.is_none() ? nb::cast<std::string>(indexing) : "ij";
    return to_tuple(meshgrid(tensor_varargs(args, "meshgrid"), mode));
  });
}

void init_reordering(nb::module_& m, nb::handle cls) {
  m.def("flip", [](const Tensor& t, nb::handle dims) { return flip(t, ints(dims, "flip", "dims")); }, nb::arg("input"),
        nb::arg("dims"));
  cls.attr("flip") = nb::cpp_function([](const Tensor& t, nb::args dims) {
    return flip(t, parse_size(dims, 0, "flip"));
  }, nb::is_method());
  def_both(m, cls, "fliplr", [](const Tensor& t) {
    EMBER_CHECK(t.dim() >= 2, "fliplr: Input must be >= 2-d (got shape ", shape_str(t.sizes()), ")");
    return flip(t, {{1}});
  });
  def_both(m, cls, "flipud", [](const Tensor& t) {
    EMBER_CHECK(t.dim() >= 1, "flipud: Input must be >= 1-d.");
    return flip(t, {{0}});
  });
  def_both(m, cls, "roll", [](const Tensor& t, nb::handle shifts, nb::handle dims) {
    return roll(t, ints(shifts, "roll", "shifts"), dims.is_none() ? DimVector{} : ints(dims, "roll", "dims"));
  }, nb::arg("shifts"), nb::arg("dims") = nb::none());
  cls.attr("repeat") = nb::cpp_function([](const Tensor& t, nb::args sizes) {
    return repeat(t, parse_size(sizes, 0, "repeat"));
  }, nb::is_method());
  m.def("tile", [](const Tensor& t, nb::handle dims) { return tile(t, ints(dims, "tile", "dims")); }, nb::arg("input"),
        nb::arg("dims"));
  cls.attr("tile") = nb::cpp_function([](const Tensor& t, nb::args dims) {
    return tile(t, parse_size(dims, 0, "tile"));
  }, nb::is_method());
  // output_size is a hint that spares PyTorch a device sync; ember computes the size either way.
  auto rep = [](const Tensor& t, nb::handle repeats, nb::handle dim, nb::handle) {
    if (repeats.is_none()) return repeat_interleave(t);
    const auto d = opt_int(dim, "repeat_interleave", "dim");
    if (nb::isinstance<Tensor>(repeats)) return repeat_interleave(t, nb::cast<const Tensor&>(repeats), d);
    return repeat_interleave(t, to_int(repeats, "repeat_interleave", "repeats"), d);
  };
  def_both(m, cls, "repeat_interleave", rep, nb::arg("repeats") = nb::none(), nb::arg("dim") = nb::none(),
           nb::kw_only(), nb::arg("output_size") = nb::none());

  for (bool lower : {true, false}) {
    const char* name = lower ? "tril" : "triu";
    m.attr(name) = nb::cpp_function([lower](const Tensor& t, int64_t diagonal, nb::handle out) {
      return finish_out(lower ? tril(t, diagonal) : triu(t, diagonal), out, lower ? "tril" : "triu");
    }, nb::arg("input"), nb::arg("diagonal") = 0, nb::kw_only(), nb::arg("out") = nb::none());
    cls.attr(name) = nb::cpp_function([lower](const Tensor& t, int64_t diagonal) {
      return lower ? tril(t, diagonal) : triu(t, diagonal);
    }, nb::is_method(), nb::arg("diagonal") = 0);
    def_inplace<int64_t>(cls, lower ? "tril_" : "triu_", [lower](const Tensor& t, int64_t diagonal) {
      lower ? tril_(t, diagonal) : triu_(t, diagonal);
    }, nb::arg("diagonal") = 0);
  }
}

void init_gather_scatter(nb::module_& m, nb::handle cls) {
  m.def("gather", [](const Tensor& t, int64_t dim, const Tensor& index, bool, nb::handle out) {
    return finish_out(gather(t, dim, index), out, "gather");
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false,
        nb::arg("out") = nb::none());
  cls.attr("gather") = nb::cpp_function([](const Tensor& t, int64_t dim, const Tensor& index, bool) {
    return gather(t, dim, index);
  }, nb::is_method(), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);

  // scatter(input, dim, index, src) or scatter(input, dim, index, value), with reduce='add'|'multiply'.
  auto scatter_fn = [](bool in_place) {
    return [in_place](const Tensor& t, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                      nb::handle reduce) {
      if (src.is_none()) src = value;
      EMBER_CHECK_TYPE(!src.is_none(), "scatter(): expected an argument 'src' (a tensor) or 'value' (a number)");
      const auto r = opt_str(reduce);
      if (nb::isinstance<Tensor>(src)) {
        const Tensor& s = nb::cast<const Tensor&>(src);
        return in_place ? scatter_(t, dim, index, s, r) : scatter(t, dim, index, s, r);
      }
      const Scalar v = to_scalar(src, "scatter");
      return in_place ? scatter_(t, dim, index, v, r) : scatter(t, dim, index, v, r);
    };
  };
  def_both(m, cls, "scatter", scatter_fn(false), nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(),
           nb::kw_only(), nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none());
  def_inplace<int64_t, const Tensor&, nb::handle, nb::handle, nb::handle>(
      cls, "scatter_", scatter_fn(true), nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(), nb::kw_only(),
      nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none());

  def_both(m, cls, "scatter_add", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
    return scatter_add(t, dim, index, src);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  def_inplace<int64_t, const Tensor&, const Tensor&>(cls, "scatter_add_", &scatter_add_, nb::arg("dim"),
                                                     nb::arg("index"), nb::arg("src"));

  auto reduce_fn = [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, std::string reduce,
                      bool include_self) { return scatter_reduce(t, dim, index, src, reduce, include_self); };
  def_both(m, cls, "scatter_reduce", reduce_fn, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"),
           nb::kw_only(), nb::arg("include_self") = true);
  def_inplace<int64_t, const Tensor&, const Tensor&, std::string, bool>(
      cls, "scatter_reduce_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, std::string reduce, bool include_self) {
        scatter_reduce_(t, dim, index, src, reduce, include_self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);
}

void init_index_ops(nb::module_& m, nb::handle cls) {
  m.def("index_select", [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle out) {
    return finish_out(index_select(t, dim, index), out, "index_select");
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("index_select") = nb::cpp_function([](const Tensor& t, int64_t dim, const Tensor& index) {
    return index_select(t, dim, index);
  }, nb::is_method(), nb::arg("dim"), nb::arg("index"));

  m.def("index_add", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, nb::handle alpha,
                        nb::handle out) {
    return finish_out(index_add(t, dim, index, source, to_scalar(alpha, "index_add")), out, "index_add");
  }, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1,
        nb::arg("out") = nb::none());
  cls.attr("index_add") = nb::cpp_function([](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                                              nb::handle alpha) {
    return index_add(t, dim, index, source, to_scalar(alpha, "index_add"));
  }, nb::is_method(), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);
  def_inplace<int64_t, const Tensor&, const Tensor&, nb::handle>(
      cls, "index_add_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, nb::handle alpha) {
        index_add_(t, dim, index, source, to_scalar(alpha, "index_add_"));
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);

  def_both(m, cls, "index_copy", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
    return index_copy(t, dim, index, source);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  def_inplace<int64_t, const Tensor&, const Tensor&>(cls, "index_copy_", &index_copy_, nb::arg("dim"),
                                                     nb::arg("index"), nb::arg("source"));

  def_both(m, cls, "index_fill", [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) return index_fill(t, dim, index, nb::cast<const Tensor&>(value));
    return index_fill(t, dim, index, value_of(value, "index_fill"));
  }, nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  def_inplace<int64_t, const Tensor&, nb::handle>(cls, "index_fill_",
      [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle value) {
        if (nb::isinstance<Tensor>(value))
          index_fill_(t, dim, index, nb::cast<const Tensor&>(value));
        else
          index_fill_(t, dim, index, value_of(value, "index_fill_"));
      }, nb::arg("dim"), nb::arg("index"), nb::arg("value"));

  def_both(m, cls, "index_put", [](const Tensor& t, nb::handle indices, const Tensor& values, bool accumulate) {
    return index_put(t, optional_tensors(indices, "index_put"), values, accumulate);
  }, nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  def_inplace<nb::handle, const Tensor&, bool>(cls, "index_put_",
      [](const Tensor& t, nb::handle indices, const Tensor& values, bool accumulate) {
        index_put_(t, optional_tensors(indices, "index_put_"), values, accumulate);
      }, nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  m.def("index_put_", [](nb::handle self, nb::handle indices, const Tensor& values, bool accumulate) {
    index_put_(nb::cast<const Tensor&>(self), optional_tensors(indices, "index_put_"), values, accumulate);
    return nb::borrow(self);
  }, nb::arg("input"), nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);

  m.def("take", [](const Tensor& t, const Tensor& index, nb::handle out) {
    return finish_out(take(t, index), out, "take");
  }, nb::arg("input"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("take") = nb::cpp_function([](const Tensor& t, const Tensor& index) { return take(t, index); },
                                      nb::is_method(), nb::arg("index"));
  m.def("take_along_dim", [](const Tensor& t, const Tensor& indices, nb::handle dim, nb::handle out) {
    return finish_out(take_along_dim(t, indices, opt_int(dim, "take_along_dim", "dim")), out, "take_along_dim");
  }, nb::arg("input"), nb::arg("indices"), nb::arg("dim") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("take_along_dim") = nb::cpp_function([](const Tensor& t, const Tensor& indices, nb::handle dim) {
    return take_along_dim(t, indices, opt_int(dim, "take_along_dim", "dim"));
  }, nb::is_method(), nb::arg("indices"), nb::arg("dim") = nb::none());

  m.def("_one_hot", [](const Tensor& t, int64_t num_classes) { return one_hot(t, num_classes); }, nb::arg("tensor"),
        nb::arg("num_classes") = -1);
}

void init_masks(nb::module_& m, nb::handle cls) {
  m.def("masked_select", [](const Tensor& t, const Tensor& mask, nb::handle out) {
    return finish_out(masked_select(t, mask), out, "masked_select");
  }, nb::arg("input"), nb::arg("mask"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("masked_select") = nb::cpp_function([](const Tensor& t, const Tensor& mask) {
    return masked_select(t, mask);
  }, nb::is_method(), nb::arg("mask"));
  def_both(m, cls, "masked_scatter", [](const Tensor& t, const Tensor& mask, const Tensor& source) {
    return masked_scatter(t, mask, source);
  }, nb::arg("mask"), nb::arg("source"));
  def_inplace<const Tensor&, const Tensor&>(cls, "masked_scatter_", &masked_scatter_, nb::arg("mask"),
                                            nb::arg("source"));
  def_both(m, cls, "masked_fill", [](const Tensor& t, const Tensor& mask, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) return masked_fill(t, mask, nb::cast<const Tensor&>(value));
    return masked_fill(t, mask, value_of(value, "masked_fill"));
  }, nb::arg("mask"), nb::arg("value"));
  def_inplace<const Tensor&, nb::handle>(cls, "masked_fill_",
      [](const Tensor& t, const Tensor& mask, nb::handle value) {
        if (nb::isinstance<Tensor>(value))
          masked_fill_(t, mask, nb::cast<const Tensor&>(value));
        else
          masked_fill_(t, mask, value_of(value, "masked_fill_"));
      },
      nb::arg("mask"), nb::arg("value"));

  auto nonzero_fn = [](const Tensor& t, nb::handle out, bool as_tuple) -> nb::object {
    if (as_tuple) return to_tuple(nonzero_tuple(t));
    return finish_out(nonzero(t), out, "nonzero");
  };
  m.def("nonzero", nonzero_fn, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none(),
        nb::arg("as_tuple") = false);
  cls.attr("nonzero") = nb::cpp_function([nonzero_fn](const Tensor& t, bool as_tuple) {
    return nonzero_fn(t, nb::none(), as_tuple);
  }, nb::is_method(), nb::kw_only(), nb::arg("as_tuple") = false);
  def_both(m, cls, "argwhere", [](const Tensor& t) { return argwhere(t); });

  // ember.where(condition) is nonzero(condition, as_tuple=True); the three-argument form stays as it was (with
  // PyTorch's keyword names accepted).
  nb::object where3 = m.attr("where");
  m.attr("where") = nb::cpp_function([where3](nb::args args, nb::kwargs kw) -> nb::object {
    nb::list pos;
    for (nb::handle a : args) pos.append(a);
    for (const char* name : {"condition", "input", "other"}) {
      if (!kw.contains(name)) continue;
      EMBER_CHECK_TYPE(nb::len(pos) < 3, "where() got multiple values for argument '", name, "'");
      pos.append(kw[name]);
      PyDict_DelItemString(kw.ptr(), name);
    }
    EMBER_CHECK_TYPE(nb::len(kw) == 0, "where() got an unexpected keyword argument");
    if (nb::len(pos) == 1 && nb::isinstance<Tensor>(pos[0]))
      return to_tuple(nonzero_tuple(nb::cast<const Tensor&>(pos[0])));
    return where3(*nb::tuple(pos));
  });
}

}  // namespace

void init_shape(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  init_joining(m, cls);
  init_views(m, cls);
  init_reordering(m, cls);
  init_gather_scatter(m, cls);
  init_index_ops(m, cls);
  init_masks(m, cls);
}

}  // namespace ember::py
