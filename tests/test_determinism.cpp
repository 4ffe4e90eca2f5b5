// Note [Deterministic algorithms] (ember/determinism.cpp): the switch, warn_only and the alert, without a device.
#include <gtest/gtest.h>

#include <string>

#include "ember/determinism.h"
#include "ember/error.h"

using namespace ember;

namespace {
std::string g_last;
void capture(const std::string& msg) { g_last = msg; }

struct Restore {
  ~Restore() {
    set_deterministic_algorithms(false);
    set_determinism_warning_handler(nullptr);
  }
};
}  // namespace

TEST(Determinism, AlertRaisesOrWarnsOnlyWhenOn) {
  Restore restore;
  set_determinism_warning_handler(&capture);
  g_last.clear();
  EXPECT_FALSE(deterministic_algorithms());
  alert_not_deterministic("index_add_ on CUDA");  // off: nothing
  EXPECT_EQ(g_last, "");
  set_deterministic_algorithms(true);
  EXPECT_TRUE(deterministic_algorithms());
  EXPECT_FALSE(deterministic_algorithms_warn_only());
  try {
    alert_not_deterministic("index_add_ on CUDA");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("index_add_ on CUDA does not have a deterministic implementation, but you "
                                          "set 'torch.use_deterministic_algorithms(True)'",
                                          0),
              0u);
  }
  set_deterministic_algorithms(true, /*warn_only=*/true);
  EXPECT_TRUE(deterministic_algorithms_warn_only());
  alert_not_deterministic("bincount");
  EXPECT_NE(g_last.find("bincount does not have a deterministic implementation"), std::string::npos);
  EXPECT_NE(g_last.find("warn_only=True"), std::string::npos);
  set_deterministic_algorithms(false, true);  // warn_only means nothing with the switch off
  EXPECT_FALSE(deterministic_algorithms_warn_only());
}
