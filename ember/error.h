// Exceptions thrown by ember. The Python bindings map each type to the Python exception PyTorch raises
// (Error -> RuntimeError, IndexError, ValueError, TypeError, NotImplementedError).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct IndexError : Error {
  using Error::Error;
};
struct ValueError : Error {
  using Error::Error;
};
struct TypeError : Error {
  using Error::Error;
};
struct NotImplementedError : Error {
  using Error::Error;
};
struct OutOfMemoryError : Error {
  using Error::Error;
};

namespace detail {
template <class... A>
std::string cat(const A&... a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}
}  // namespace detail

// Kept out of line and cold so that checks cost one predictable branch on the hot path.
template <class E, class... A>
[[noreturn, gnu::noinline, gnu::cold]] void fail(const A&... a) {
  throw E(detail::cat(a...));
}

}  // namespace ember

#define EMBER_CHECK_T(type, cond, ...)           \
  do {                                           \
    if (!(cond)) [[unlikely]]                    \
      ::ember::fail<::ember::type>(__VA_ARGS__); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_T(Error, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_T(IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_T(ValueError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_T(TypeError, cond, __VA_ARGS__)
