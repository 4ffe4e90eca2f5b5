// __torch_function__: PyTorch's extension point for Tensor subclasses, tensor-like types and TorchFunctionModes,
// checked in front of every ember function and Tensor method (Note [Dispatching __torch_function__]).
#include <Python.h>
#include <structmember.h>

#include <array>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common.h"

namespace ember::py {
namespace {

// Note [Dispatching __torch_function__]
// A type that defines __torch_function__ (a Tensor subclass, or any "tensor-like" class such as ember.fx's Proxy), or
// a TorchFunctionMode on the current thread's mode stack, takes over any call of an ember function or Tensor method
// that it reaches (PyTorch's torch/overrides.py). ember checks for that in C in front of every such callable: the
// nanobind functions' vectorcall pointers are swapped for a trampoline that calls the original (so the functions stay
// the same objects, with the same signatures), and ember's Python functions are wrapped in a small callable type that
// does the same (ember.overrides installs both when ember is imported).
//
// The fast path is one test of a global counter, g_active. It stays zero until a Tensor subclass that does not disable
// __torch_function__ is defined (Tensor.__init_subclass__), a mode is pushed, or a tensor-like object that is not a
// Tensor reaches an ember function: that call fails to convert it, and the failure path (free for calls that succeed)
// looks for such an argument and retries through the slow path. The slow path looks at the arguments (and one level
// into lists and tuples, as cat's tensors) and hands the call to ember.overrides._dispatch, which applies PyTorch's
// rules (modes first, then subclasses before superclasses, else left to right; NotImplemented tries the next) and
// returns the result, or a sentinel when nothing overrides the call, in which case the original runs.

int g_active = 0;     // modes pushed in any thread + 1 once a type with __torch_function__ was seen
bool g_seen = false;  // a type with an overriding __torch_function__ exists
PyTypeObject* g_tensor = nullptr;
PyObject* g_name = nullptr;         // "__torch_function__", interned
PyObject* g_disabled = nullptr;     // ember._C._disabled_torch_function_impl
PyObject* g_dispatch = nullptr;     // ember.overrides._dispatch
PyObject* g_no_override = nullptr;  // what it returns when nothing overrides the call
// The object a callable is known as to __torch_function__ when it is not itself: a property's accessor is
// Tensor.<name>.__get__ / __set__ / __delete__, as in PyTorch. Read on the slow path only.
std::unordered_map<PyObject*, PyObject*> g_dispatch_as;

// PyTorch's torch function state, per thread: DisableTorchFunction (everything off, modes too),
// DisableTorchFunctionSubclass (types off, modes on), and the mode stack.
struct ThreadState {
  int disabled_all = 0;
  int disabled_subclass = 0;
  std::vector<PyObject*> modes;  // owned references
};
thread_local ThreadState tls;

void note_seen() {
  if (!g_seen) {
    g_seen = true;
    ++g_active;
  }
}

// Whether `a` is an argument whose type overrides __torch_function__ (not a plain Tensor, not a type that sets
// _disabled_torch_function_impl, as Parameter does).
bool overrides(PyObject* a) {
  PyTypeObject* t = Py_TYPE(a);
  if (t == g_tensor || a == Py_None || PyLong_CheckExact(a) || PyFloat_CheckExact(a) || PyBool_Check(a) ||
      PyUnicode_CheckExact(a) || PyType_Check(a))
    return false;
  PyObject* f = _PyType_Lookup(t, g_name);  // borrowed; the type attribute cache makes it cheap
  return f && f != g_disabled;
}

bool any_overrides(PyObject* const* a, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (overrides(a[i])) return true;
    if (PyTuple_Check(a[i]) || PyList_Check(a[i])) {
      PyObject* seq = a[i];
      const Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
      PyObject** items = PySequence_Fast_ITEMS(seq);
      for (Py_ssize_t j = 0; j < k; ++j)
        if (overrides(items[j])) return true;
    }
  }
  return false;
}

Py_ssize_t count(size_t nargsf, PyObject* kwnames, Py_ssize_t* npos) {
  *npos = PyVectorcall_NARGS(nargsf);
  return *npos + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
}

// Calls ember.overrides._dispatch(func, args, kwargs, use_types); runs the original when it answers that nothing
// overrides the call.
PyObject* dispatch(vectorcallfunc orig, PyObject* callable, PyObject* const* a, size_t nargsf, PyObject* kwnames,
                   bool use_types) {
  Py_ssize_t npos;
  const Py_ssize_t n = count(nargsf, kwnames, &npos);
  nb::object args = nb::steal(PyTuple_New(npos));
  if (!args.is_valid()) return nullptr;
  for (Py_ssize_t i = 0; i < npos; ++i) PyTuple_SET_ITEM(args.ptr(), i, Py_NewRef(a[i]));
  nb::object kwargs = nb::none();
  if (kwnames) {
    kwargs = nb::steal(PyDict_New());
    if (!kwargs.is_valid()) return nullptr;
    for (Py_ssize_t i = npos; i < n; ++i)
      if (PyDict_SetItem(kwargs.ptr(), PyTuple_GET_ITEM(kwnames, i - npos), a[i]) < 0) return nullptr;
  }
  auto as = g_dispatch_as.find(callable);
  PyObject* func = as == g_dispatch_as.end() ? callable : as->second;
  // A __torch_function__ or mode that calls its function again without disabling itself recurses through here:
  // Python's recursion limit stops it with a RecursionError before the C stack runs out.
  if (Py_EnterRecursiveCall(" in __torch_function__")) return nullptr;
  PyObject* call[] = {func, args.ptr(), kwargs.ptr(), use_types ? Py_True : Py_False};
  PyObject* r = PyObject_Vectorcall(g_dispatch, call, 4, nullptr);
  Py_LeaveRecursiveCall();
  if (r == g_no_override) {
    Py_DECREF(r);
    return orig(callable, a, nargsf, kwnames);
  }
  return r;
}

PyObject* slow(vectorcallfunc orig, PyObject* callable, PyObject* const* a, size_t nargsf, PyObject* kwnames) {
  const ThreadState& s = tls;
  if (s.disabled_all || !g_dispatch) return orig(callable, a, nargsf, kwnames);
  Py_ssize_t npos;
  const Py_ssize_t n = count(nargsf, kwnames, &npos);
  const bool types = !s.disabled_subclass && g_seen && any_overrides(a, n);
  if (!types && s.modes.empty()) return orig(callable, a, nargsf, kwnames);
  return dispatch(orig, callable, a, nargsf, kwnames, types);
}

// The call failed on the fast path: if an argument is a tensor-like object that nothing has registered (its class
// is not a Tensor subclass), that is why; from now on calls take the slow path, and this one is retried through it.
PyObject* after_error(vectorcallfunc orig, PyObject* callable, PyObject* const* a, size_t nargsf, PyObject* kwnames) {
  if (g_seen || !g_dispatch) return nullptr;
  // The error is set aside while looking: a type lookup with an exception pending clears it.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  Py_ssize_t npos;
  if (!any_overrides(a, count(nargsf, kwnames, &npos))) {
    PyErr_Restore(type, value, tb);
    return nullptr;
  }
  note_seen();
  PyObject* r = slow(orig, callable, a, nargsf, kwnames);
  if (r || PyErr_Occurred()) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
  } else {
    PyErr_Restore(type, value, tb);
  }
  return r;
}

inline PyObject* guarded(vectorcallfunc orig, PyObject* callable, PyObject* const* a, size_t nargsf,
                         PyObject* kwnames) {
  if (g_active == 0) [[likely]] {
    PyObject* r = orig(callable, a, nargsf, kwnames);
    if (r) [[likely]]
      return r;
    return after_error(orig, callable, a, nargsf, kwnames);
  }
  return slow(orig, callable, a, nargsf, kwnames);
}

// One trampoline per distinct original vectorcall of nanobind's functions (it has six).
constexpr int kMaxOriginals = 12;
vectorcallfunc g_originals[kMaxOriginals] = {};

template <int I>
PyObject* trampoline(PyObject* callable, PyObject* const* a, size_t nargsf, PyObject* kwnames) {
  return guarded(g_originals[I], callable, a, nargsf, kwnames);
}

template <int... I>
constexpr std::array<vectorcallfunc, sizeof...(I)> make_trampolines(std::integer_sequence<int, I...>) {
  return {&trampoline<I>...};
}
constexpr auto kTrampolines = make_trampolines(std::make_integer_sequence<int, kMaxOriginals>());

bool is_trampoline(vectorcallfunc f) {
  for (vectorcallfunc t : kTrampolines)
    if (t == f) return true;
  return false;
}

// Swaps a nanobind function's vectorcall for the trampoline of its original (idempotent).
void hook(nb::handle f) {
  PyTypeObject* t = Py_TYPE(f.ptr());
  EMBER_CHECK_TYPE(t->tp_vectorcall_offset > 0 && PyType_HasFeature(t, Py_TPFLAGS_HAVE_VECTORCALL),
                   "_torch_function_hook: ", t->tp_name, " has no vectorcall slot");
  auto* slot = reinterpret_cast<vectorcallfunc*>(reinterpret_cast<char*>(f.ptr()) + t->tp_vectorcall_offset);
  if (is_trampoline(*slot)) return;
  for (int i = 0; i < kMaxOriginals; ++i) {
    if (!g_originals[i]) g_originals[i] = *slot;
    if (g_originals[i] == *slot) {
      *slot = kTrampolines[i];
      return;
    }
  }
  EMBER_CHECK(false, "_torch_function_hook: more distinct vectorcall implementations than trampolines");
}

// ---- a Python function wrapped with the same check (ember's functions written in Python) ----------------------------

struct Wrapped {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* inner;
};

PyObject* call_inner(PyObject* self, PyObject* const* a, size_t nargsf, PyObject* kwnames) {
  return PyObject_Vectorcall(reinterpret_cast<Wrapped*>(self)->inner, a, nargsf, kwnames);
}

// A Python function may not fail on a tensor-like argument (or fail inside, in a function it calls, which would then
// take the call over): it looks at its arguments even before anything registered, which costs little beside Python.
PyObject* wrapped_vectorcall(PyObject* self, PyObject* const* a, size_t nargsf, PyObject* kwnames) {
  if (g_active == 0) {
    Py_ssize_t npos;
    if (!g_dispatch || !any_overrides(a, count(nargsf, kwnames, &npos))) return call_inner(self, a, nargsf, kwnames);
    note_seen();
  }
  return slow(&call_inner, self, a, nargsf, kwnames);
}

PyObject* wrapped_new_error(PyObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "cannot create '_TorchFunctionWrapper' instances");
  return nullptr;
}

void wrapped_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(reinterpret_cast<Wrapped*>(self)->inner);
  PyTypeObject* t = Py_TYPE(self);
  t->tp_free(self);
  Py_DECREF(t);
}

int wrapped_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<Wrapped*>(self)->inner);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int wrapped_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<Wrapped*>(self)->inner);
  return 0;
}

// Binds as a Python function does (a method of Tensor written in Python).
PyObject* wrapped_descr_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

// Attributes are the wrapped function's (__name__, __doc__, __module__, __signature__ ...): __doc__ and __module__
// first, as the type's own would be found before them; __wrapped__ lets inspect.signature reach it.
PyObject* wrapped_getattro(PyObject* self, PyObject* name) {
  PyObject* inner = reinterpret_cast<Wrapped*>(self)->inner;
  if (PyUnicode_CompareWithASCIIString(name, "__wrapped__") == 0) return Py_NewRef(inner);
  if (PyUnicode_CompareWithASCIIString(name, "__doc__") == 0 ||
      PyUnicode_CompareWithASCIIString(name, "__module__") == 0)
    return PyObject_GetAttr(inner, name);
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  PyErr_Clear();
  return PyObject_GetAttr(inner, name);
}

int wrapped_setattro(PyObject* self, PyObject* name, PyObject* value) {
  return PyObject_SetAttr(reinterpret_cast<Wrapped*>(self)->inner, name, value);
}

PyObject* wrapped_repr(PyObject* self) { return PyObject_Repr(reinterpret_cast<Wrapped*>(self)->inner); }

PyMemberDef wrapped_members[] = {{"__vectorcalloffset__", T_PYSSIZET, offsetof(Wrapped, vectorcall), READONLY, nullptr},
                                 {nullptr, 0, 0, 0, nullptr}};

PyType_Slot wrapped_slots[] = {{Py_tp_new, reinterpret_cast<void*>(&wrapped_new_error)},
                               {Py_tp_dealloc, reinterpret_cast<void*>(&wrapped_dealloc)},
                               {Py_tp_traverse, reinterpret_cast<void*>(&wrapped_traverse)},
                               {Py_tp_clear, reinterpret_cast<void*>(&wrapped_clear)},
                               {Py_tp_descr_get, reinterpret_cast<void*>(&wrapped_descr_get)},
                               {Py_tp_getattro, reinterpret_cast<void*>(&wrapped_getattro)},
                               {Py_tp_setattro, reinterpret_cast<void*>(&wrapped_setattro)},
                               {Py_tp_repr, reinterpret_cast<void*>(&wrapped_repr)},
                               {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
                               {Py_tp_members, wrapped_members},
                               {0, nullptr}};

PyType_Spec wrapped_spec = {
    "ember._C._TorchFunctionWrapper", sizeof(Wrapped), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR, wrapped_slots};
PyTypeObject* g_wrapped_type = nullptr;

nb::object wrap(nb::handle f) {
  EMBER_CHECK_TYPE(PyCallable_Check(f.ptr()), "_torch_function_wrap: expected a callable, got ",
                   nb::inst_name(f).c_str());
  if (Py_TYPE(f.ptr()) == g_wrapped_type) return nb::borrow(f);
  auto* w = PyObject_GC_New(Wrapped, g_wrapped_type);
  if (!w) throw nb::python_error();
  w->vectorcall = &wrapped_vectorcall;
  w->inner = Py_NewRef(f.ptr());
  PyObject_GC_Track(w);
  return nb::steal(reinterpret_cast<PyObject*>(w));
}

// ---- the state's context managers and the mode stack (torch._C's names) --------------------------------------------

struct DisableTorchFunction {};
struct DisableTorchFunctionSubclass {};

void push_mode(nb::handle mode) {
  tls.modes.push_back(Py_NewRef(mode.ptr()));
  ++g_active;
}

nb::object pop_mode() {
  EMBER_CHECK(!tls.modes.empty(), "Trying to pop from an empty mode stack");
  PyObject* m = tls.modes.back();
  tls.modes.pop_back();
  --g_active;
  return nb::steal(m);
}

// ember._C._disabled_torch_function_impl: what a subclass sets as its __torch_function__ to opt out (Parameter):
// runs the function with subclass handling off and returns its result as it is.
nb::object disabled_impl(nb::handle func, nb::handle, nb::handle args, nb::handle kwargs) {
  ++tls.disabled_subclass;
  struct Restore {
    ~Restore() { --tls.disabled_subclass; }
  } restore;
  nb::object a = nb::steal(args.is_none() ? PyTuple_New(0) : PySequence_Tuple(args.ptr()));
  if (!a.is_valid()) throw nb::python_error();
  PyObject* r = PyObject_Call(func.ptr(), a.ptr(), kwargs.is_none() ? nullptr : kwargs.ptr());
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

// Tensor.as_subclass / Tensor._make_subclass: a `cls` object for a new TensorImpl over t's storage (PyTorch's
// as_subclass keeps the autograd history through a view; _make_subclass starts a new leaf).
nb::object make_instance(nb::handle cls, Tensor t) {
  if (!PyType_Check(cls.ptr()))
    throw nb::type_error(("cls must be a type (got " + std::string(Py_TYPE(cls.ptr())->tp_name) + ")").c_str());
  if (!PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), g_tensor))
    throw nb::type_error(
        "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure your "
        "class inherits from Tensor.");
  nb::object o = nb::inst_alloc(cls);
  new (nb::inst_ptr<Tensor>(o)) Tensor(std::move(t));
  nb::inst_mark_ready(o);
  Tensor* p = nb::inst_ptr<Tensor>(o);
  p->impl()->pyobj = p;  // Note [One Python object per tensor]
  return o;
}

constexpr const char* kAsSubclassDoc = R"(
Makes a ``cls`` instance with the same data as ``self``: changes to one show in the other, and the result stays on
the autograd graph (its gradient flows back to ``self``). ``cls`` must be a subclass of Tensor; its ``__init__`` is
not called.

Args:
    cls (type): the Tensor subclass of the result.

Example::

    >>> class Tagged(ember.Tensor):
    ...     pass
    >>> t = ember.ones(2).as_subclass(Tagged)
    >>> type(t).__name__
    'Tagged'
)";

}  // namespace

void init_torch_function(nb::module_& m) {
  g_tensor = reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr());
  g_name = PyUnicode_InternFromString("__torch_function__");
  g_wrapped_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&wrapped_spec));
  if (!g_wrapped_type) throw nb::python_error();
  m.attr("_TorchFunctionWrapper") = nb::handle(reinterpret_cast<PyObject*>(g_wrapped_type));

  m.def("_disabled_torch_function_impl", &disabled_impl, nb::arg("func"), nb::arg("types"),
        nb::arg("args") = nb::tuple(), nb::arg("kwargs").none() = nb::none(),
        "The __torch_function__ of a Tensor subclass that opts out of __torch_function__ (``nn.Parameter``): "
        "runs ``func`` with subclass handling disabled and returns its result unchanged.");
  g_disabled = m.attr("_disabled_torch_function_impl").ptr();

  m.def("_torch_function_hook", &hook, nb::arg("function"));
  m.def("_torch_function_wrap", &wrap, nb::arg("function"));
  m.def(
      "_torch_function_dispatch_as",
      [](nb::handle callable, nb::handle as) {
        if (g_dispatch_as.emplace(callable.ptr(), as.ptr()).second) {
          Py_INCREF(callable.ptr());
          Py_INCREF(as.ptr());
        }
      },
      nb::arg("callable"), nb::arg("as"));
  m.def(
      "_torch_function_set_dispatcher",
      [](nb::handle dispatch, nb::handle no_override) {
        g_dispatch = Py_NewRef(dispatch.ptr());
        g_no_override = Py_NewRef(no_override.ptr());
      },
      nb::arg("dispatch"), nb::arg("no_override"));
  m.def("_note_torch_function_type", &note_seen);
  // Whether calls take the slow path (0: no type with __torch_function__ seen and no mode pushed), for tests.
  m.def("_torch_function_active", [] { return g_active; });
  m.def(
      "_torch_function_overrides", [](nb::handle a) { return overrides(a.ptr()); }, nb::arg("obj"));
  m.def(
      "_has_torch_function",
      [](nb::handle args) {
        if (tls.disabled_all) return false;
        if (!tls.modes.empty()) return true;
        if (tls.disabled_subclass) return false;
        nb::object seq = nb::steal(PySequence_Fast(args.ptr(), "has_torch_function: expected a sequence"));
        if (!seq.is_valid()) throw nb::python_error();
        const bool r = any_overrides(PySequence_Fast_ITEMS(seq.ptr()), PySequence_Fast_GET_SIZE(seq.ptr()));
        if (r) note_seen();
        return r;
      },
      nb::arg("relevant_args"));

  m.def("_is_torch_function_enabled", [] { return !tls.disabled_all && !tls.disabled_subclass; });
  m.def("_is_torch_function_all_disabled", [] { return tls.disabled_all > 0; });
  m.def("_is_torch_function_mode_enabled", [] { return !tls.disabled_all && !tls.modes.empty(); });
  m.def("_push_on_torch_function_stack", &push_mode, nb::arg("mode"));
  m.def("_pop_torch_function_stack", &pop_mode);
  m.def("_len_torch_function_stack", [] { return tls.modes.size(); });
  m.def(
      "_get_function_stack_at",
      [](int64_t i) {
        const int64_t n = static_cast<int64_t>(tls.modes.size());
        EMBER_CHECK_INDEX(i >= -n && i < n, "_get_function_stack_at: index ", i, " out of range for a stack of ", n);
        return nb::borrow(tls.modes[i < 0 ? i + n : i]);
      },
      nb::arg("index"));

  nb::class_<DisableTorchFunction>(m, "DisableTorchFunction",
                                   "A context manager that turns __torch_function__ off entirely, modes included, "
                                   "on this thread.")
      .def(nb::init<>())
      .def("__enter__",
           [](nb::handle self) {
             ++tls.disabled_all;
             return nb::borrow(self);
           })
      .def("__exit__", [](nb::handle, nb::args) { --tls.disabled_all; });
  nb::class_<DisableTorchFunctionSubclass>(m, "DisableTorchFunctionSubclass",
                                           "A context manager that turns off the __torch_function__ of Tensor "
                                           "subclasses and tensor-like types on this thread; modes still apply.")
      .def(nb::init<>())
      .def("__enter__",
           [](nb::handle self) {
             ++tls.disabled_subclass;
             return nb::borrow(self);
           })
      .def("__exit__", [](nb::handle, nb::args) { --tls.disabled_subclass; });

  nb::handle cls = nb::type<Tensor>();
  nb::setattr(
      cls, "as_subclass",
      nb::cpp_function([](const Tensor& self, nb::handle c) { return make_instance(c, view_alias(self)); },
                       nb::is_method(), nb::arg("cls"), nb::name("as_subclass"), nb::scope(cls), kAsSubclassDoc));
  nb::setattr(
      cls, "_make_subclass",
      nb::cpp_function(
          [](nb::handle c, const Tensor& data, bool require_grad) {
            Tensor t = alias(data);
            if (require_grad) t.set_requires_grad(true);
            return make_instance(c, std::move(t));
          },
          nb::arg("cls"), nb::arg("data"), nb::arg("require_grad") = false, nb::name("_make_subclass"), nb::scope(cls),
          "Makes a ``cls`` instance that shares ``data``'s memory, as a new leaf (no history) with "
          "``requires_grad=require_grad``."));
}

}  // namespace ember::py
