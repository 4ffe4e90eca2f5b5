// Autograd bindings: Tensor.backward and the grad attributes, ember.autograd.backward/grad, grad modes, graph
// nodes as Python objects (grad_fn), hooks, and the node behind ember.autograd.Function (PyNode).
//
// Note [The GIL and the engine]
// The engine runs with the GIL released (backward and autograd.grad release it). Python code runs only inside
// hooks and custom functions, which take the GIL; Python objects held by C++ (hooks, a Function's ctx) are kept
// in GilObject, which takes the GIL to drop its reference, because the graph may be freed on any thread.
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/autograd/engine.h"
#include "ember/autograd/function.h"
#include "ember/autograd/functions.h"
#include "ember/dispatch_hook.h"

namespace ember::py {

using autograd::Node;
using autograd::NodePostHook;
using autograd::TensorList;

namespace {

inline bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

struct GilObject {
  PyObject* p;
  explicit GilObject(nb::handle h) : p(h.inc_ref().ptr()) {}
  GilObject(const GilObject&) = delete;
  ~GilObject() {
    if (Py_IsInitialized() || finalizing()) {  // also during shutdown, while modules are cleared
      nb::gil_scoped_acquire gil;
      Py_DECREF(p);
    }
  }
  nb::handle get() const { return p; }
};
using PyRef = std::shared_ptr<GilObject>;
PyRef py_ref(nb::handle h) { return std::make_shared<GilObject>(h); }

nb::object tensor_or_none(const Tensor& t) { return t.defined() ? nb::cast(t) : nb::none(); }

TensorList tensor_list(nb::handle seq, bool allow_none) {
  TensorList r;
  if (seq.is_none()) return r;
  if (nb::isinstance<Tensor>(seq)) {
    r.push_back(nb::cast<Tensor>(seq));
    return r;
  }
  for (nb::handle h : seq) {
    if (h.is_none() && allow_none)
      r.emplace_back();
    else
      r.push_back(nb::cast<Tensor>(h));
  }
  return r;
}

std::optional<bool> opt_bool(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return truthy(h);
}

// The Python stack where a node was created (anomaly mode).
std::string python_stack() {
  nb::gil_scoped_acquire gil;
  try {
    nb::object tb = nb::module_::import_("traceback");
    nb::list lines = nb::cast<nb::list>(tb.attr("format_stack")());
    std::string s;
    for (nb::handle l : lines) s += nb::cast<std::string>(l);
    return s;
  } catch (nb::python_error&) {
    return {};
  }
}

// The name errors give a hook (PyTorch's hook_name): its __name__, as "hook 'f' has changed the size of value".
std::string hook_name(nb::handle fn) {
  nb::object n = nb::getattr(fn, "__name__", nb::none());
  return nb::isinstance<nb::str>(n) ? nb::cast<std::string>(n) : std::string("<unknown>");
}

// PyTorch's TypeError for a hook's result of the wrong Python type.
[[noreturn]] void bad_hook_result(const char* expected, nb::handle r) {
  fail<TypeError>("expected ", expected, ", but hook returned '", nb::type_name(r.type()).c_str(), "'");
}

// Calls a Python hook with a tensor; a returned tensor replaces the gradient (the engine checks it: Note [Hook
// results] in ember/autograd/node.h).
GradHook python_grad_hook(nb::handle fn) {
  return [f = py_ref(fn)](const Tensor& g) -> Tensor {
    nb::gil_scoped_acquire gil;
    nb::object r = f->get()(nb::cast(g));
    if (r.is_none()) return {};
    if (!nb::isinstance<Tensor>(r)) bad_hook_result("Variable", r);
    return nb::cast<Tensor>(r);
  };
}

// Calls a Python node hook fn(grad_inputs, grad_outputs); a returned tuple replaces grad_inputs.
NodePostHook python_node_hook(nb::handle fn) {
  return [f = py_ref(fn)](TensorList& gin, const TensorList& gout) {
    nb::gil_scoped_acquire gil;
    nb::list a, b;
    for (auto& t : gin) a.append(tensor_or_none(t));
    for (auto& t : gout) b.append(tensor_or_none(t));
    nb::object r = f->get()(nb::tuple(a), nb::tuple(b));
    if (r.is_none()) return;
    if (!nb::isinstance<nb::tuple>(r)) bad_hook_result("tuple", r);
    TensorList repl;
    for (nb::handle h : r) {
      if (!h.is_none() && !nb::isinstance<Tensor>(h)) bad_hook_result("Variable", h);
      repl.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
    }
    gin = std::move(repl);
  };
}

// Python's RemovableHandle: remove() (idempotent), and a context manager that removes on exit.
struct RemovableHandle {
  autograd::HookRemover remover;
  int id;
  void remove() {
    if (remover) std::exchange(remover, nullptr)();
  }
};

// ---- the node of ember.autograd.Function

struct PyNode final : autograd::CustomNode {
  PyRef ctx;  // the Python ctx; saved tensors live in actx
  autograd::AutogradContext actx;
  std::string name_;

  std::string name() const override { return name_; }
  void release_variables() override {
    for (auto& s : actx.saved) s.reset();
    released = true;
  }
  TensorList apply(TensorList&& grads) override {
    nb::gil_scoped_acquire gil;
    nb::handle c = ctx->get();
    if (truthy(c.attr("_materialize_grads"))) materialize(grads);
    nb::list args;
    for (auto& g : grads) args.append(tensor_or_none(g));
    // ctx._run_backward checks the count and returns one entry per tensor input (None: no gradient).
    nb::object r = c.attr("_run_backward")(nb::tuple(args));
    TensorList out;
    for (nb::handle h : r) out.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
    return out;
  }
};

// Holds a Function's node weakly, for ctx.saved_tensors (a strong reference would be a cycle).
struct NodeRef {
  std::weak_ptr<PyNode> node;
};

nb::list saved_tensors(const NodeRef& ref) {
  auto n = ref.node.lock();
  EMBER_CHECK(n, "the graph of this Function was freed; saved tensors are no longer available");
  nb::list l;
  for (auto& t : n->actx.get_saved_variables()) l.append(tensor_or_none(t));
  return l;
}

// Records an ember.autograd.Function call (python/ember/autograd/function.py) after its forward ran.
// Returns the outputs, where an input returned unchanged is replaced by a differentiable alias.
nb::list record_function(nb::handle ctx, const std::string& name, nb::handle inputs_seq, nb::handle outputs_seq,
                         nb::handle dirty_seq, nb::handle non_diff_seq, nb::handle to_save_seq) {
  auto node = std::make_shared<PyNode>();
  node->name_ = name;
  node->ctx = py_ref(ctx);
  autograd::AutogradContext& a = node->actx;
  a.dirty = tensor_list(dirty_seq, false);
  a.non_differentiable = tensor_list(non_diff_seq, false);
  a.to_save = tensor_list(to_save_seq, true);
  std::vector<nb::handle> items(outputs_seq.begin(), outputs_seq.end());
  TensorList outputs;
  for (nb::handle h : items) outputs.push_back(nb::isinstance<Tensor>(h) ? nb::cast<Tensor>(h) : Tensor());
  autograd::record_custom_function(node, a, tensor_list(inputs_seq, false), outputs, name.c_str());
  nb::list outs;
  for (size_t i = 0; i < items.size(); ++i)
    outs.append(outputs[i].defined() ? nb::cast(outputs[i]) : nb::borrow(items[i]));
  ctx.attr("_node") = nb::cast(NodeRef{node});
  return outs;
}

nb::object node_object(const std::shared_ptr<Node>& n) { return n ? nb::cast(n) : nb::none(); }

}  // namespace

// Note [Custom functions and the garbage collector]
// A Function whose forward keeps its output on ctx (`ctx.out = out`) makes a cycle through C++: ctx -> out ->
// TensorImpl -> AutogradMeta -> PyNode -> ctx, which Python's collector cannot see, so the whole graph leaked. As
// PyTorch does, a tensor's wrapper reports the ctx to the collector when that wrapper is the only way to it: the
// wrapper is the tensor's only owner, the tensor's metadata the node's only owner, and the node the ctx reference's
// only owner. Then the collector finds the cycle unreachable and clears ctx's __dict__, which frees the rest.
// Anything else holding one of these (another output, a later node's edge, the engine) keeps the ctx alive, and
// it is not reported. save_for_backward(out) needs none of this: a saved output holds no reference to its node.
int traverse_autograd(const Tensor& t, visitproc visit, void* arg) {
  if (!t.defined() || t.impl()->use_count() != 1) return 0;
  AutogradMeta* m = t.impl()->autograd_meta();
  if (!m || !m->grad_fn || m->grad_fn.use_count() != 1) return 0;
  auto* n = dynamic_cast<PyNode*>(m->grad_fn.get());
  if (!n || !n->ctx || n->ctx.use_count() != 1) return 0;
  Py_VISIT(n->ctx->p);
  return 0;
}

namespace {

// Tensor.detach() and ember.detach() called from Python, offered to __torch_dispatch__ as aten.detach.default (Note
// [Python dispatch]); ember's own detaches (the engine's, saved tensors') are not.
Tensor detach_offered(const Tensor& t) {
  if (dispatch::enabled()) [[unlikely]] {
    if (auto r = dispatch::call("aten.detach.default", {dispatch::value(t)}))
      return dispatch::result<Tensor>(std::move(*r));
  }
  return t.detach();
}

nb::handle detach_inplace(nb::handle self) {
  nb::cast<const Tensor&>(self).detach_();
  return self;
}

}  // namespace

constexpr const char* kDetachDoc = R"(
Returns a new tensor that shares ``input``'s data but is detached from the autograd graph.

The result never requires grad and has no ``grad_fn``; gradients do not flow through it. It shares storage with
``input``, so in-place changes to either show in both (and autograd reports a use of a saved tensor changed this way).

Args:
    input (Tensor): the tensor to detach.

Example::

    >>> x = ember.ones(2, requires_grad=True)
    >>> y = (x * 2).detach()
    >>> y.requires_grad
    False
)";

constexpr const char* kDetachInplaceDoc = R"(
Detaches ``input`` from the autograd graph in place: it becomes a leaf that does not require grad. Returns it.

Views cannot be detached in place.

Args:
    input (Tensor): the tensor to detach.
)";

constexpr const char* kRegisterHookDoc = R"(
Registers a backward hook: ``hook(grad)`` is called each time the gradient with respect to ``self`` is computed.

The hook receives the gradient and may return a tensor to replace it (or ``None`` to keep it); it must not modify
its argument. On a non-leaf the hook runs before ``self``'s ``grad_fn``; on a leaf, before the gradient is
accumulated into ``.grad``. Several hooks run in registration order, each seeing the previous one's result.

Args:
    hook (Callable[[Tensor], Tensor | None]): the hook.

Returns:
    A handle whose ``remove()`` unregisters the hook (also a context manager that removes it on exit).

Example::

    >>> v = ember.tensor([0.0, 0.0, 0.0], requires_grad=True)
    >>> h = v.register_hook(lambda grad: grad * 2)
    >>> v.backward(ember.tensor([1.0, 2.0, 3.0]))
    >>> v.grad
    tensor([2., 4., 6.])
    >>> h.remove()
)";

constexpr const char* kPostAccumulateHookDoc = R"(
Registers a hook that runs after the gradient of the leaf ``self`` was accumulated into ``self.grad``.

``hook(self)`` receives the tensor itself (whose ``.grad`` holds the new gradient) and must return ``None``; an
optimizer step fused into backward is the usual use. Only leaves that require grad accept it.

Args:
    hook (Callable[[Tensor], None]): the hook.

Returns:
    A handle whose ``remove()`` unregisters the hook.
)";

void init_autograd(nb::module_& m) {
  autograd::set_stack_provider(&python_stack);

  nb::class_<RemovableHandle>(m, "RemovableHandle",
                              "The handle of a hook registered on a tensor or a graph node: ``remove()`` unregisters "
                              "it.\n\nAlso a context manager that removes the hook on exit. Made by "
                              ":meth:`Tensor.register_hook` and its kin, not by users.")
      .def(
          "__init__",
          [](RemovableHandle*) {
            fail<TypeError>("cannot create 'ember.RemovableHandle' instances: register_hook() returns them");
          },
          nb::sig("def __init__(self) -> None"))
      .def("remove", &RemovableHandle::remove, "Unregisters the hook; calling it again does nothing.")
      .def_ro("id", &RemovableHandle::id)
      .def("__enter__", [](nb::handle self) { return self; })
      .def("__exit__", [](RemovableHandle& h, nb::args) { h.remove(); });

  nb::class_<Node>(m, "Node", nb::dynamic_attr(),
                   "A node of the autograd graph: the backward function of an operation (a tensor's ``grad_fn``).\n\n"
                   "``next_functions`` gives the nodes its gradients flow to, ``name()`` its name "
                   "(``\"MulBackward0\"``), and\n``register_hook`` a hook on its gradients. Made by autograd, not "
                   "by users.")
      .def(
          "__init__",
          [](Node*) { fail<TypeError>("cannot create 'ember.Node' instances: autograd makes them (Tensor.grad_fn)"); },
          nb::sig("def __init__(self) -> None"))
      .def("name", &Node::name, "Returns the node's name, such as ``\"AddBackward0\"``.")
      .def_prop_ro("next_functions",
                   [](const Node& n) {
                     nb::list l;
                     for (auto& e : n.next_edges) l.append(nb::make_tuple(node_object(e.fn), e.input_nr));
                     return nb::tuple(l);
                   })
      .def_prop_ro(
          "variable",
          [](const Node& n) -> nb::object {
            if (!n.is_accumulate_grad()) {  // AttributeError, so that hasattr/getattr(node, "variable", None) work
              const std::string msg = "'" + n.name() + "' object has no attribute 'variable'";
              PyErr_SetString(PyExc_AttributeError, msg.c_str());
              throw nb::python_error();
            }
            return tensor_or_none(static_cast<const autograd::AccumulateGrad&>(n).variable());
          })
      .def_prop_ro("_sequence_nr", [](const Node& n) { return n.sequence_nr; })
      .def("_saved_tensors_released", [](const Node& n) { return n.released.load(); })
      .def(
          "register_hook",
          [](Node& n, nb::handle fn) {
            auto remover = autograd::register_node_hook(n, python_node_hook(fn), hook_name(fn));
            return RemovableHandle{std::move(remover), 0};
          },
          nb::arg("fn"),
          nb::sig("def register_hook(self, fn: Callable[[tuple, tuple], tuple | None]) -> RemovableHandle"),
          "Registers ``fn(grad_inputs, grad_outputs)``, called after the node ran; it may return new ``grad_inputs``.")
      .def("__repr__", [](nb::handle self) {
        return "<" + nb::cast<const Node&>(self).name() + " object at " +
               nb::cast<std::string>(
                   nb::str(nb::int_(reinterpret_cast<uintptr_t>(self.ptr())).attr("__format__")("#x"))) +
               ">";
      });

  nb::class_<NodeRef>(m, "_FunctionNodeRef");
  m.def("_record_function", &record_function, nb::arg("ctx"), nb::arg("name"), nb::arg("inputs"), nb::arg("outputs"),
        nb::arg("dirty"), nb::arg("non_differentiable"), nb::arg("to_save"));
  m.def("_saved_tensors", &saved_tensors);

  m.def("is_grad_enabled", &autograd::is_grad_enabled,
        "Returns whether autograd records operations in this thread (``False`` inside :class:`ember.no_grad`).");
  m.def("_set_grad_enabled", &autograd::set_grad_enabled, nb::arg("mode"));
  m.def("is_inference_mode_enabled", &autograd::is_inference_mode,
        "Returns whether this thread is inside :class:`ember.inference_mode`.");
  m.def("_set_inference_mode", &autograd::set_inference_mode, nb::arg("mode"));
  m.def("is_anomaly_enabled", &autograd::is_anomaly_enabled,
        "Returns whether anomaly detection (:class:`ember.autograd.detect_anomaly`) is on in this thread.");
  m.def("is_anomaly_check_nan_enabled", &autograd::is_anomaly_check_nan,
        "Returns whether anomaly detection also checks backward results for NaN values.");
  // PyTorch's top-level forms of Tensor.detach/detach_, named as PyTorch's (input).
  m.def(
      "detach", [](const Tensor& t) { return detach_offered(t); }, nb::arg("input"), kDetachDoc);
  m.def("detach_", &detach_inplace, nb::arg("input"), nb::sig("def detach_(input: Tensor) -> Tensor"),
        kDetachInplaceDoc);
  m.def("_set_anomaly_enabled", &autograd::set_anomaly_enabled, nb::arg("enabled"), nb::arg("check_nan") = true);

  m.def(
      "_queue_callback",
      [](nb::handle fn) {
        autograd::queue_callback([f = py_ref(fn)] {
          nb::gil_scoped_acquire gil;
          f->get()();
        });
      },
      nb::arg("callback"));

  m.def(
      "_autograd_backward",
      [](nb::handle tensors, nb::handle grad_tensors, nb::handle retain_graph, bool create_graph, nb::handle inputs) {
        TensorList roots = tensor_list(tensors, false), grads = tensor_list(grad_tensors, true);
        TensorList ins = tensor_list(inputs, false);
        EMBER_CHECK_VALUE(inputs.is_none() || !ins.empty(), "'inputs' argument to backward() cannot be empty.");
        std::optional<bool> retain = opt_bool(retain_graph);
        nb::gil_scoped_release nogil;
        autograd::backward(roots, grads, retain, create_graph, ins);
      },
      nb::arg("tensors"), nb::arg("grad_tensors").none(), nb::arg("retain_graph").none(), nb::arg("create_graph"),
      nb::arg("inputs").none());
  m.def(
      "_autograd_grad",
      [](nb::handle outputs, nb::handle inputs, nb::handle grad_outputs, nb::handle retain_graph, bool create_graph,
         bool allow_unused) {
        TensorList roots = tensor_list(outputs, false), ins = tensor_list(inputs, false);
        TensorList grads = tensor_list(grad_outputs, true);
        std::optional<bool> retain = opt_bool(retain_graph);
        TensorList r;
        {
          nb::gil_scoped_release nogil;
          r = autograd::grad(roots, ins, grads, retain, create_graph, allow_unused);
        }
        nb::list l;
        for (auto& t : r) l.append(tensor_or_none(t));
        return nb::tuple(l);
      },
      nb::arg("outputs"), nb::arg("inputs"), nb::arg("grad_outputs").none(), nb::arg("retain_graph").none(),
      nb::arg("create_graph"), nb::arg("allow_unused"));
}

// The autograd attributes and methods of Tensor.
void init_tensor_autograd(nb::class_<Tensor>& cls) {
  cls.def_prop_ro("grad_fn", [](const Tensor& t) { return node_object(autograd::grad_fn(t)); })
      .def_prop_ro("retains_grad", &Tensor::retains_grad)
      .def_prop_ro("_grad_fn_name",
                   [](const Tensor& t) -> nb::object {
                     auto& fn = autograd::grad_fn(t);
                     return fn ? nb::cast(fn->name()) : nb::none();
                   })
      .def("retain_grad", &Tensor::retain_grad,
           "Makes a non-leaf tensor keep its gradient in ``.grad`` after backward (leaves always do).")
      .def("detach", &detach_offered, method_doc(kDetachDoc, "detach").c_str())
      .def("detach_", &detach_inplace, method_doc(kDetachInplaceDoc, "detach_").c_str())
      .def(
          "register_hook",
          [](const Tensor& t, nb::handle fn) {
            auto remover = autograd::register_hook(t, python_grad_hook(fn), hook_name(fn));
            return RemovableHandle{std::move(remover), 0};
          },
          nb::arg("hook"),
          nb::sig("def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle"),
          kRegisterHookDoc)
      .def(
          "register_post_accumulate_grad_hook",
          [](const Tensor& t, nb::handle fn) {
            auto hook = [f = py_ref(fn)](const Tensor& v) {
              nb::gil_scoped_acquire gil;
              nb::object r = f->get()(nb::cast(v));
              if (r.is_none()) return;
              // As PyTorch: the tensor itself is accepted too (nothing to replace), anything else is refused.
              if (!nb::isinstance<Tensor>(r)) bad_hook_result("Variable", r);
              EMBER_CHECK(nb::cast<const Tensor&>(r).is_same(v),
                          "Tensor post accumulate grad hooks should return None.");
            };
            auto remover = autograd::register_post_accumulate_grad_hook(t, std::move(hook), hook_name(fn));
            return RemovableHandle{std::move(remover), 0};
          },
          nb::arg("hook"),
          nb::sig("def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle"),
          kPostAccumulateHookDoc);
}

}  // namespace ember::py
