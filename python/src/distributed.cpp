// ember._C._distributed: the stores, process groups and Work handles behind ember.distributed (thin bindings; the
// Python package holds torch.distributed's API). Every call that can block releases the GIL.
#include <nanobind/stl/chrono.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/distributed/process_group.h"

namespace ember::py {

namespace {

using namespace ember::distributed;
using Release = nb::call_guard<nb::gil_scoped_release>;

Bytes to_bytes(nb::handle v) {
  if (nb::isinstance<nb::str>(v)) {
    std::string s = nb::cast<std::string>(v);
    return Bytes(s.begin(), s.end());
  }
  if (nb::isinstance<nb::bytes>(v)) {
    nb::bytes b = nb::borrow<nb::bytes>(v);
    auto p = static_cast<const uint8_t*>(b.data());
    return Bytes(p, p + b.size());
  }
  if (PyByteArray_Check(v.ptr())) {
    auto p = reinterpret_cast<const uint8_t*>(PyByteArray_AsString(v.ptr()));
    return Bytes(p, p + PyByteArray_Size(v.ptr()));
  }
  throw nb::type_error("Store values must be str, bytes or bytearray");
}

nb::bytes from_bytes(const Bytes& b) { return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size()); }

Millis to_millis(nb::handle t, Millis fallback) {
  if (t.is_none()) return fallback;
  return nb::cast<Millis>(t);
}

}  // namespace

void init_distributed(nb::module_& m) {
  nb::module_ d = m.def_submodule("_distributed", "stores and process groups of ember.distributed");

  nb::class_<Store>(d, "Store")
      .def(
          "set",
          [](Store& s, const std::string& k, nb::handle v) {
            Bytes b = to_bytes(v);
            nb::gil_scoped_release r;
            s.set(k, b);
          },
          nb::arg("key"), nb::arg("value"))
      .def(
          "get",
          [](Store& s, const std::string& k) {
            Bytes b;
            {
              nb::gil_scoped_release r;
              b = s.get(k);
            }
            return from_bytes(b);
          },
          nb::arg("key"))
      .def("add", &Store::add, nb::arg("key"), nb::arg("value"), Release())
      .def(
          "compare_set",
          [](Store& s, const std::string& k, nb::handle e, nb::handle v) {
            Bytes ex = to_bytes(e), de = to_bytes(v), out;
            {
              nb::gil_scoped_release r;
              out = s.compare_set(k, ex, de);
            }
            return from_bytes(out);
          },
          nb::arg("key"), nb::arg("expected_value"), nb::arg("desired_value"))
      .def("delete_key", &Store::delete_key, nb::arg("key"), Release())
      .def("num_keys", &Store::num_keys, Release())
      .def("check", &Store::check, nb::arg("keys"), Release())
      .def(
          "wait",
          [](Store& s, const std::vector<std::string>& keys, nb::handle timeout) {
            Millis t = to_millis(timeout, Store::kUseStoreTimeout);
            nb::gil_scoped_release r;
            s.wait(keys, t);
          },
          nb::arg("keys"), nb::arg("timeout").none() = nb::none())
      .def(
          "set_timeout", [](Store& s, Millis t) { s.set_timeout(t); }, nb::arg("timeout"))
      .def_prop_ro("timeout", [](Store& s) { return s.timeout(); });

  nb::class_<TCPStore, Store>(d, "TCPStore")
      .def(
          "__init__",
          [](TCPStore* self, const std::string& host, int port, nb::handle world_size, bool is_master, Millis timeout,
             bool wait_for_workers) {
            int ws = world_size.is_none() ? -1 : nb::cast<int>(world_size);
            nb::gil_scoped_release r;
            new (self) TCPStore(host, port, ws, is_master, timeout, wait_for_workers);
          },
          nb::arg("host_name"), nb::arg("port"), nb::arg("world_size").none() = nb::none(),
          nb::arg("is_master") = false, nb::arg("timeout") = Store::kDefaultTimeout, nb::arg("wait_for_workers") = true)
      .def_prop_ro("host", &TCPStore::host)
      .def_prop_ro("port", &TCPStore::port);

  nb::class_<FileStore, Store>(d, "FileStore")
      .def(nb::init<std::string, int, Millis>(), nb::arg("file_name"), nb::arg("world_size") = -1,
           nb::arg("timeout") = Store::kDefaultTimeout, Release())
      .def_prop_ro("path", &FileStore::path);

  nb::class_<PrefixStore, Store>(d, "PrefixStore")
      .def(nb::init<std::string, std::shared_ptr<Store>>(), nb::arg("prefix"), nb::arg("store"))
      .def_prop_ro("underlying_store", &PrefixStore::underlying)
      .def_prop_ro("prefix", &PrefixStore::prefix);

  nb::class_<HashStore, Store>(d, "HashStore").def(nb::init<>());

  nb::class_<Work>(d, "Work")
      .def(
          "wait",
          [](Work& w, nb::handle timeout) {
            Millis t = to_millis(timeout, Millis(-1));
            if (t.count() < 0) {
              // Without a timeout, wait in slices so that Ctrl-C (a Python signal handler) gets through.
              for (;;) {
                bool done;
                {
                  nb::gil_scoped_release r;
                  done = w.wait_for(Millis(100));
                }
                if (done) break;
                if (PyErr_CheckSignals() != 0) throw nb::python_error();
              }
            }
            nb::gil_scoped_release r;
            return w.wait(t);
          },
          nb::arg("timeout").none() = nb::none())
      .def("is_completed", &Work::is_completed)
      .def("is_success", &Work::is_success)
      .def("exception",
           [](Work& w) -> nb::object {
             auto e = w.exception();
             if (!e) return nb::none();
             try {
               std::rethrow_exception(e);
             } catch (const std::exception& ex) {
               return nb::module_::import_("builtins").attr("RuntimeError")(ex.what());
             }
           })
      .def("result", &Work::result)
      .def("_source_rank", &Work::source_rank)
      .def_prop_ro("op", &Work::op);

  nb::enum_<distributed::ReduceOp>(d, "RedOpType")
      .value("SUM", distributed::ReduceOp::SUM)
      .value("AVG", distributed::ReduceOp::AVG)
      .value("PRODUCT", distributed::ReduceOp::PRODUCT)
      .value("MIN", distributed::ReduceOp::MIN)
      .value("MAX", distributed::ReduceOp::MAX)
      .value("BAND", distributed::ReduceOp::BAND)
      .value("BOR", distributed::ReduceOp::BOR)
      .value("BXOR", distributed::ReduceOp::BXOR);

  using PG = ProcessGroup;
  nb::class_<PG>(d, "ProcessGroup")
      .def("rank", &PG::rank)
      .def("size", &PG::size)
      .def("name", &PG::backend_name)
      .def_prop_ro("timeout", &PG::timeout)
      .def("allreduce", &PG::all_reduce, nb::arg("tensor"), nb::arg("op"), Release())
      .def("broadcast", &PG::broadcast, nb::arg("tensor"), nb::arg("root"), Release())
      .def("reduce", &PG::reduce, nb::arg("tensor"), nb::arg("root"), nb::arg("op"), Release())
      .def("allgather", &PG::all_gather, nb::arg("outputs"), nb::arg("input"), Release())
      .def("allgather_into_tensor", &PG::all_gather_into_tensor, nb::arg("output"), nb::arg("input"), Release())
      .def("reduce_scatter", &PG::reduce_scatter, nb::arg("output"), nb::arg("inputs"), nb::arg("op"), Release())
      .def("reduce_scatter_tensor", &PG::reduce_scatter_tensor, nb::arg("output"), nb::arg("input"), nb::arg("op"),
           Release())
      .def("gather", &PG::gather, nb::arg("outputs"), nb::arg("input"), nb::arg("root"), Release())
      .def("scatter", &PG::scatter, nb::arg("output"), nb::arg("inputs"), nb::arg("root"), Release())
      .def("alltoall", &PG::all_to_all, nb::arg("outputs"), nb::arg("inputs"), Release())
      .def("alltoall_base", &PG::all_to_all_single, nb::arg("output"), nb::arg("input"), nb::arg("output_split_sizes"),
           nb::arg("input_split_sizes"), Release())
      .def("barrier", &PG::barrier, Release())
      .def("send", &PG::send, nb::arg("tensor"), nb::arg("dst"), nb::arg("tag"), Release())
      .def("recv", &PG::recv, nb::arg("tensor"), nb::arg("src"), nb::arg("tag"), Release());

  auto make = [](bool nccl) {
    return [nccl](std::shared_ptr<Store> store, int rank, int size, Millis timeout, const std::string& hostname,
                  const std::string& iface, bool check) {
      ProcessGroupOptions o;
      o.timeout = timeout;
      o.hostname = hostname;
      o.iface = iface;
      o.check_signatures = check;
      nb::gil_scoped_release r;
      return nccl ? make_process_group_nccl(std::move(store), rank, size, o)
                  : make_process_group_gloo(std::move(store), rank, size, o);
    };
  };
  auto group_args = [] {
    return std::make_tuple(nb::arg("store"), nb::arg("rank"), nb::arg("size"), nb::arg("timeout"),
                           nb::arg("hostname") = "", nb::arg("iface") = "", nb::arg("check_signatures") = true);
  };
  auto [a0, a1, a2, a3, a4, a5, a6] = group_args();
  d.def("_new_gloo_group", make(false), a0, a1, a2, a3, a4, a5, a6);
  d.def("_new_nccl_group", make(true), a0, a1, a2, a3, a4, a5, a6);
  d.def("_nccl_is_built", &nccl_is_built);
  d.def("_nccl_version", &nccl_version);
  d.def("_local_address_for", &local_address_for, nb::arg("peer"), Release());
}

}  // namespace ember::py
