// Guards the link-order hazard (CMakeLists.txt): libsimgrid exports MPI_*
// symbols (SMPI), so in a binary that links both engines libmpi must be
// loaded before libsimgrid, or MPI_Init lands in SimGrid.
//
//   mpirun -np N tetrad_mpi_link_order N [--launch-only]
//
// Checks, in this order, and exits 1 with a "link order:" line on failure:
//   1. libsimgrid is loaded at all (else this binary proves nothing);
//   2. libmpi is loaded before libsimgrid (dl_iterate_phdr = load order);
//   3. MPI_Init and MPI_Init_thread resolve into libmpi (dladdr);
//   4. launch() over "mpi" gives a world of N ranks with distinct ranks that
//      exchange messages.
// --launch-only skips checks 1-3, to see what launch() does with the wrong order.
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tetrad/launch/launcher.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "link order: FAIL: %s\n", message.c_str());
  return 1;
}

std::vector<std::string> loadedLibraries() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  return names;
}

int indexOf(const std::vector<std::string>& names, const std::string& piece) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].find(piece) != std::string::npos) return static_cast<int>(i);
  }
  return -1;
}

void launchAndExchange(const tetrad::LaunchOptions& options, int expectedSize, int& failures) {
  tetrad::launch(options, [&](tetrad::Transport& t) {
    if (t.size() != expectedSize) {
      failures += fail("world size " + std::to_string(t.size()) + ", expected " +
                       std::to_string(expectedSize));
      return;
    }
    int right = (t.rank() + 1) % t.size();
    int left = (t.rank() + t.size() - 1) % t.size();
    int mine = t.rank();
    int theirs = -1;
    if (t.size() > 1) {
      std::vector<tetrad::RequestPtr> requests;
      requests.push_back(t.irecv(left, 1, tetrad::asWritableBytes(std::span<int>(&theirs, 1))));
      requests.push_back(t.isend(right, 1, tetrad::asBytes(std::span<const int>(&mine, 1))));
      tetrad::waitAll(requests);
      if (theirs != left || theirs == mine) {
        failures += fail("rank " + std::to_string(mine) + " got rank " + std::to_string(theirs) +
                         " from its left neighbour " + std::to_string(left));
      }
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  const bool launchOnly = argc == 3 && std::string(argv[2]) == "--launch-only";
  if (argc != 2 && !launchOnly) {
    return fail("usage: tetrad_mpi_link_order EXPECTED_WORLD_SIZE [--launch-only]");
  }
  const int expectedSize = std::atoi(argv[1]);
  std::vector<std::string> libraries = loadedLibraries();
  int mpi = indexOf(libraries, "/libmpi.so");
  int simgrid = indexOf(libraries, "/libsimgrid.so");
  if (launchOnly) mpi = simgrid = -2;
  if (simgrid == -1) return fail("libsimgrid is not loaded: this binary does not test the hazard");
  if (mpi == -1) return fail("libmpi is not loaded");
  if (simgrid < mpi) {
    return fail(libraries[simgrid] + " is loaded before " + libraries[mpi]);
  }
  for (const char* symbol : {"MPI_Init", "MPI_Init_thread"}) {
    if (launchOnly) break;
    Dl_info info{};
    void* address = dlsym(RTLD_DEFAULT, symbol);
    if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
      return fail(std::string("cannot resolve ") + symbol);
    }
    if (std::string(info.dli_fname).find("/libmpi.so") == std::string::npos) {
      return fail(std::string(symbol) + " resolves to " + info.dli_fname + ", not libmpi");
    }
  }
  tetrad::LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = 20;
  int failures = 0;
  try {
    launchAndExchange(options, expectedSize, failures);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (failures > 0) return 1;
  if (launchOnly) {
    std::printf("link order: OK: launch over mpi with %d ranks\n", expectedSize);
  } else {
    std::printf("link order: OK: libmpi (%s) before libsimgrid; MPI_Init in libmpi; %d ranks\n",
                libraries[mpi].c_str(), expectedSize);
  }
  return 0;
}
