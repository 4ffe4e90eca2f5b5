// ember's headers are C++20 (std::span, concepts): a consumer compiled for an older standard stops here with a clear
// message rather than deep in <span>. The CMake package (ember::ember) carries cxx_std_20 to its consumers.
#pragma once

#if __cplusplus < 202002L
#error "ember needs C++20: compile with -std=c++20 (CMake: target_link_libraries(app ember::ember) sets it)"
#endif
