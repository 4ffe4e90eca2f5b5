// Note [Sync debug mode] (ember/cuda.h): the mode, the op names and the warning handler, without a device.
#include <gtest/gtest.h>

#include <string>

#include "ember/cuda.h"
#include "ember/error.h"

using namespace ember;

namespace {
std::string g_last;
void capture(const std::string& msg) { g_last = msg; }

struct ModeGuard {
  ~ModeGuard() {
    cuda::set_sync_debug_mode(0);
    cuda::set_sync_warning_handler(nullptr);
  }
};
}  // namespace

TEST(SyncDebugMode, WarnNamesTheOutermostOpAndErrorRaises) {
  ModeGuard restore;
  EXPECT_EQ(cuda::sync_debug_mode(), 0);
  cuda::set_sync_warning_handler(&capture);
  g_last.clear();
  cuda::on_host_wait("copy");  // default mode: nothing
  EXPECT_EQ(g_last, "");
  cuda::set_sync_debug_mode(1);
  cuda::on_host_wait("copy");
  EXPECT_EQ(g_last, "called a synchronizing CUDA operation: copy");
  {
    cuda::SyncOpName outer("nonzero");
    cuda::SyncOpName inner("item");  // nonzero's own item(): the user called nonzero
    cuda::on_host_wait("copy");
    EXPECT_EQ(g_last, "called a synchronizing CUDA operation: nonzero");
  }
  cuda::on_host_wait("copy");  // the names are gone with their scopes
  EXPECT_EQ(g_last, "called a synchronizing CUDA operation: copy");
  cuda::set_sync_debug_mode(2);
  EXPECT_EQ(cuda::sync_debug_mode(), 2);
  cuda::SyncOpName op("item");
  try {
    cuda::on_host_wait("copy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "called a synchronizing CUDA operation: item");
  }
  EXPECT_THROW(cuda::set_sync_debug_mode(3), Error);
  EXPECT_THROW(cuda::set_sync_debug_mode(-1), Error);
  EXPECT_EQ(cuda::sync_debug_mode(), 2);
}
