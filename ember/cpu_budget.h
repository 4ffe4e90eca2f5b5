// How many CPUs this process may use (Note [Intra-op parallelism]): its affinity mask, capped by a cgroup CPU quota.
#pragma once

#include <string>

namespace ember {

// CPUs in the calling thread's affinity mask (std::thread::hardware_concurrency() where that cannot be read).
int affinity_cpus();
// The CPU quota of the cgroup a process is in, in whole CPUs rounded up, or 0 when there is none. Reads the
// process's cgroup list (`/proc/self/cgroup`'s format) and, under `cgroup_root` (`/sys/fs/cgroup`), the quota files
// of that cgroup and its ancestors: cpu.max (cgroup v2) or cpu.cfs_quota_us / cpu.cfs_period_us (v1, in the
// cpu controller's folder). The smallest quota found wins. Malformed files count as no quota.
int cgroup_cpus(const std::string& proc_cgroup = "/proc/self/cgroup",
                const std::string& cgroup_root = "/sys/fs/cgroup");

}  // namespace ember
