#include "ember/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

namespace ember {

namespace {

// A positive finite number from the start of s, else 0 ("max", garbage).
double positive(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && v > 0 && v < 1e18 ? v : 0;
}

// The quota in CPUs (quota / period) stated in one cgroup folder, or 0.
double quota_in(const std::string& dir) {
  std::string q, p;
  if (std::ifstream max(dir + "/cpu.max"); max >> q >> p) {  // v2: "<quota> <period>" or "max <period>"
    const double period = positive(p);
    return period > 0 ? positive(q) / period : 0;
  }
  std::ifstream quota(dir + "/cpu.cfs_quota_us"), period(dir + "/cpu.cfs_period_us");  // v1; -1 means none
  if (quota >> q && period >> p && positive(p) > 0) return positive(q) / positive(p);
  return 0;
}

}  // namespace

int affinity_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int cgroup_cpus(const std::string& proc_cgroup, const std::string& cgroup_root) {
  std::vector<std::string> dirs;
  std::ifstream list(proc_cgroup);
  for (std::string line; std::getline(list, line);) {
    // "0::/path" (v2), or "N:cpu,cpuacct:/path" (v1; only the cpu controller's hierarchy has quotas)
    const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrl = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (path.empty() || path[0] != '/' || path.find("..") != std::string::npos) continue;
    std::string root;
    if (ctrl.empty()) {
      root = cgroup_root;
    } else {
      bool cpu = false;
      for (size_t s = 0; s <= ctrl.size();) {
        const size_t e = std::min(ctrl.find(',', s), ctrl.size());
        cpu = cpu || ctrl.compare(s, e - s, "cpu") == 0;
        s = e + 1;
      }
      if (!cpu) continue;
      root = cgroup_root + "/" + ctrl;
    }
    for (std::string p = path; p.size() > 1; p = p.substr(0, p.rfind('/'))) dirs.push_back(root + p);
    dirs.push_back(root);
  }
  double cpus = 0;
  for (const auto& d : dirs)
    if (const double q = quota_in(d); q > 0) cpus = cpus == 0 ? q : std::min(cpus, q);
  if (cpus <= 0) return 0;
  return static_cast<int>(std::clamp(std::ceil(cpus - 1e-9), 1.0, 65536.0));  // 1.5 CPUs of quota: 2 threads
}

}  // namespace ember
