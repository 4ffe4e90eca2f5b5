// Shared-memory tensors (Tensor.share_memory_, is_shared, the handles ember.multiprocessing pickles) and the
// DataLoader's batching step. The logic is in ember/data; this file converts arguments.
#include <unistd.h>

#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/data/collate.h"
#include "ember/data/dataloader.h"
#include "ember/data/shared_memory.h"

namespace ember::py {

namespace {

ScalarType dtype_from_name(const std::string& name, const char* fn) {
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (dtype_name(static_cast<ScalarType>(i)) == name) return static_cast<ScalarType>(i);
  fail<ValueError>(fn, ": unknown dtype '", name, "'");
}

nb::tuple int_tuple(IntArrayRef v) {
  nb::list l;
  for (int64_t x : v) l.append(x);
  return nb::tuple(l);
}

}  // namespace

void init_data(nb::module_& m) {
  nb::object cls = m.attr("Tensor");
  cls.attr("share_memory_") = nb::cpp_function(
      [](nb::handle self) {
        data::share_memory_(nb::cast<const Tensor&>(self));
        return nb::borrow(self);
      },
      nb::is_method(), nb::name("share_memory_"), nb::scope(cls),
      R"(Moves the storage of ``self`` into shared memory and returns ``self``; nothing changes if it is there already.

Tensors in shared memory travel to other processes (``ember.multiprocessing``, DataLoader workers) without a copy:
both processes then see the same data. CUDA tensors are left as they are.)");
  cls.attr("is_shared") = nb::cpp_function([](const Tensor& t) { return data::is_shared(t.impl()->storage()); },
                                           nb::is_method(), nb::name("is_shared"), nb::scope(cls),
                                           "Returns whether the storage of ``self`` is in shared memory (always "
                                           "``True`` on CUDA).");

  // What ember.UntypedStorage (python/ember/storage.py) is built on: the identity and size of a tensor's storage,
  // and a 1-D uint8 tensor over all of its bytes (aliasing it, as a PyTorch storage does).
  cls.attr("_storage_key") = nb::cpp_function(
      [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()->storage().get()); }, nb::is_method(),
      nb::name("_storage_key"), nb::scope(cls), "An integer that identifies the storage of ``self`` while it lives.");
  cls.attr("_storage_nbytes") = nb::cpp_function(
      [](const Tensor& t) { return static_cast<uint64_t>(t.impl()->storage()->nbytes()); }, nb::is_method(),
      nb::name("_storage_nbytes"), nb::scope(cls), "The size of the storage of ``self`` in bytes.");
  cls.attr("_storage_bytes") = nb::cpp_function(
      [](const Tensor& t) {
        const Storage& s = t.impl()->storage();
        const int64_t size[1] = {static_cast<int64_t>(s->nbytes())};
        const int64_t stride[1] = {1};
        return Tensor(make_intrusive<TensorImpl>(s, ScalarType::UInt8, IntArrayRef(size), IntArrayRef(stride), 0));
      },
      nb::is_method(), nb::name("_storage_bytes"), nb::scope(cls),
      "A 1-D uint8 tensor viewing every byte of the storage of ``self`` (writes go through both ways).");

  m.def(
      "_set_sharing_strategy",
      [](const std::string& s) {
        if (s == "file_descriptor")
          data::set_sharing_strategy(data::SharingStrategy::FileDescriptor);
        else if (s == "file_system")
          data::set_sharing_strategy(data::SharingStrategy::FileSystem);
        else
          fail<ValueError>("invalid sharing strategy '", s, "'; expected 'file_descriptor' or 'file_system'");
      },
      nb::arg("strategy"));
  m.def("_get_sharing_strategy", [] {
    return data::sharing_strategy() == data::SharingStrategy::FileSystem ? "file_system" : "file_descriptor";
  });
  m.def("_shm_connect_tracker", &data::connect_tracker);
  m.def("_shm_live_segments", &data::live_segments);
  m.def(
      "_shm_wait_for_sent_names",
      [](double timeout) {
        nb::gil_scoped_release release;  // the receiver may be a thread of this process
        return data::wait_for_sent_names(timeout);
      },
      nb::arg("timeout"));

  // (kind, fd or name, storage nbytes, dtype name, sizes, strides, storage offset) of a CPU tensor, its storage
  // moved into shared memory first when needed. A "name" handle counts a message in flight (Note [Named segments]).
  m.def(
      "_share_handle",
      [](const Tensor& t) {
        data::SegmentHandle h = data::share_handle(t.impl()->storage());
        nb::object handle = h.named ? nb::object(nb::str(h.name.c_str())) : nb::object(nb::int_(h.fd));
        return nb::make_tuple(h.named ? "name" : "fd", handle, h.nbytes, std::string(dtype_name(t.dtype())),
                              int_tuple(t.sizes()), int_tuple(t.strides()), t.storage_offset());
      },
      nb::arg("tensor"));
  // The receiving side: takes ownership of fd (closed on error too).
  m.def(
      "_rebuild_shared",
      [](const std::string& kind, nb::handle handle, size_t nbytes, const std::string& dtype, nb::handle sizes,
         nb::handle strides, int64_t offset) {
        Storage s;
        if (kind == "fd") {
          const int fd = nb::cast<int>(handle);
          ScalarType st;
          DimVector sz, sd;
          try {
            st = dtype_from_name(dtype, "_rebuild_shared");
            sz = to_int_list(sizes, "_rebuild_shared", "sizes");
            sd = to_int_list(strides, "_rebuild_shared", "strides");
          } catch (...) {
            close(fd);
            throw;
          }
          return data::tensor_from_storage(data::attach_fd(fd, nbytes), st, sz, sd, offset);
        }
        EMBER_CHECK_VALUE(kind == "name", "_rebuild_shared: unknown handle kind '", kind, "'");
        const ScalarType st = dtype_from_name(dtype, "_rebuild_shared");
        DimVector sz = to_int_list(sizes, "_rebuild_shared", "sizes");
        DimVector sd = to_int_list(strides, "_rebuild_shared", "strides");
        return data::tensor_from_storage(data::attach_name(nb::cast<std::string>(handle), nbytes), st, sz, sd, offset);
      },
      nb::arg("kind"), nb::arg("handle"), nb::arg("nbytes"), nb::arg("dtype"), nb::arg("sizes"), nb::arg("strides"),
      nb::arg("offset"));
  m.def(
      "_empty_shared",
      [](nb::handle size, nb::handle dtype) {
        return data::empty_shared(to_int_list(size, "_empty_shared", "size"),
                                  to_dtype_required(dtype, "_empty_shared"));
      },
      nb::arg("size"), nb::arg("dtype"));
  m.def(
      "_collate_stack", [](std::vector<Tensor> batch, bool shared) { return data::collate_stack(batch, shared); },
      nb::arg("batch"), nb::arg("shared"));
  // DistributedSampler's order: the C++ DataLoader's function (shuffle_seed None: in order).
  m.def("_epoch_indices", &data::epoch_indices, nb::arg("n"), nb::arg("shuffle_seed").none(), nb::arg("num_replicas"),
        nb::arg("rank"), nb::arg("drop_last"));
}

}  // namespace ember::py
