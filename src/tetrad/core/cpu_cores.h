// usableCores(): how many CPU cores this process may run on — the cores of
// its affinity mask (taskset, cgroup cpusets, mpirun's binding), not every
// core of the machine. Used to size parallel simulation (LaunchOptions::
// simThreads) and a sweep's per-run share of the machine.
//
// Thread-safety: any thread.
#pragma once

namespace tetrad {

// At least 1.
int usableCores();

}  // namespace tetrad
