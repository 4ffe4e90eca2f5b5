// Automatic mixed precision: the thread-local autocast state behind ember.autocast (ember/autocast.h) and the
// gradient scaling ops behind ember.amp.GradScaler (ember/amp.h). Python's autocast class (python/ember/amp/)
// only saves, sets and restores this state.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/amp.h"
#include "ember/autocast.h"

namespace ember::py {

namespace {

DeviceType autocast_device(const std::string& s) {
  if (s == "cpu") return DeviceType::CPU;
  if (s == "cuda") return DeviceType::CUDA;
  fail<Error>("User specified an unsupported autocast device_type '", s, "'");
}

}  // namespace

void init_amp(nb::module_& m) {
  m.def(
      "_autocast_is_enabled", [](const std::string& d) { return autocast::is_enabled(autocast_device(d)); },
      nb::arg("device_type"));
  m.def(
      "_autocast_set_enabled", [](const std::string& d, bool e) { autocast::set_enabled(autocast_device(d), e); },
      nb::arg("device_type"), nb::arg("enabled"));
  m.def(
      "_autocast_get_dtype", [](const std::string& d) { return dtype_object(autocast::get_dtype(autocast_device(d))); },
      nb::arg("device_type"));
  m.def(
      "_autocast_set_dtype",
      [](const std::string& d, nb::handle dtype) {
        autocast::set_dtype(autocast_device(d), to_dtype_required(dtype, "set_autocast_dtype"));
      },
      nb::arg("device_type"), nb::arg("dtype"));
  m.def("_is_autocast_cache_enabled", &autocast::is_cache_enabled);
  m.def("_set_autocast_cache_enabled", &autocast::set_cache_enabled, nb::arg("enabled"));
  m.def("_autocast_increment_nesting", &autocast::increment_nesting);
  m.def("_autocast_decrement_nesting", &autocast::decrement_nesting);
  m.def("_clear_autocast_cache", &autocast::clear_cache);
  m.def("_autocast_cache_size", &autocast::cache_size);

  m.def("_amp_foreach_non_finite_check_and_unscale_", &amp::foreach_non_finite_check_and_unscale_, nb::arg("self"),
        nb::arg("found_inf"), nb::arg("inv_scale"), nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "_amp_update_scale_",
      [](const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
         double backoff_factor, int64_t growth_interval) {
        return amp::update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
      },
      nb::arg("self"), nb::arg("growth_tracker"), nb::arg("found_inf"), nb::arg("scale_growth_factor"),
      nb::arg("scale_backoff_factor"), nb::arg("growth_interval"), nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace ember::py
