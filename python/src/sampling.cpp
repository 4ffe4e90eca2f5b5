// Bindings of the distribution samplers (ember/ops/sampling.h): Tensor.exponential_/geometric_/cauchy_/log_normal_,
// ember.poisson, ember.binomial, ember._standard_gamma(_grad), ember._sample_dirichlet.
#include "common.h"
#include "ember/ops/sampling.h"

namespace ember::py {

void init_sampling(nb::module_& m) {
  m.def("poisson", [](const Tensor& rates, Generator* g) { return poisson(rates, g); }, nb::arg("input"),
        nb::arg("generator") = nb::none());
  m.def("binomial", [](const Tensor& count, const Tensor& prob, Generator* g) { return binomial(count, prob, g); },
        nb::arg("count"), nb::arg("prob"), nb::arg("generator") = nb::none());
  m.def("_standard_gamma", [](const Tensor& alpha, Generator* g) { return standard_gamma(alpha, g); },
        nb::arg("input"), nb::arg("generator") = nb::none());
  m.def("_standard_gamma_grad", [](const Tensor& alpha, const Tensor& x) { return standard_gamma_grad(alpha, x); },
        nb::arg("input"), nb::arg("output"));
  m.def("_sample_von_mises", [](const Tensor& loc, const Tensor& conc, Generator* g) {
    return sample_von_mises(loc, conc, g);
  }, nb::arg("loc"), nb::arg("concentration"), nb::arg("generator") = nb::none());
  m.def("_sample_dirichlet", [](const Tensor& alpha, Generator* g) { return sample_dirichlet(alpha, g); },
        nb::arg("input"), nb::arg("generator") = nb::none());

  auto cls = nb::type<Tensor>();
  cls.attr("exponential_") = nb::cpp_function([](nb::handle self, double lambd, Generator* g) {
    exponential_(nb::cast<const Tensor&>(self), lambd, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("lambd") = 1.0, nb::kw_only(), nb::arg("generator") = nb::none());
  cls.attr("geometric_") = nb::cpp_function([](nb::handle self, double p, Generator* g) {
    geometric_(nb::cast<const Tensor&>(self), p, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("p"), nb::kw_only(), nb::arg("generator") = nb::none());
  cls.attr("cauchy_") = nb::cpp_function([](nb::handle self, double median, double sigma, Generator* g) {
    cauchy_(nb::cast<const Tensor&>(self), median, sigma, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("median") = 0.0, nb::arg("sigma") = 1.0, nb::kw_only(),
     nb::arg("generator") = nb::none());
  cls.attr("log_normal_") = nb::cpp_function([](nb::handle self, double mean, double std, Generator* g) {
    log_normal_(nb::cast<const Tensor&>(self), mean, std, g);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("mean") = 1.0, nb::arg("std") = 2.0, nb::kw_only(), nb::arg("generator") = nb::none());
}

}  // namespace ember::py
