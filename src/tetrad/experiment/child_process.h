// ChildProcess: one program started by `tetrad run` or `tetrad report` (a
// `tetrad train` run, mpirun, gnuplot), its standard output and error going to
// a log file.
//
// The object owns the process: destroying a still-running child kills it
// (SIGTERM, then SIGKILL after a grace period) and reaps it, so no child
// outlives a failed sweep. Errors starting it (no such program) throw Error.
//
// Thread-safety: one thread uses a ChildProcess; do not copy it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tetrad::experiment {

class ChildProcess {
 public:
  // Starts `argv` (argv[0] is looked up in PATH when it has no '/') in
  // `workDir` (empty: the current folder), stdout and stderr appended to
  // `logPath`, stdin from /dev/null.
  // `ownGroup`: the child leads a process group of its own, so that
  // killGroup() reaches what it started too (mpirun's local daemons).
  ChildProcess(const std::vector<std::string>& argv, const std::string& logPath,
               const std::string& workDir = "", bool ownGroup = false);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // True once the process has ended (does not block).
  bool poll();
  // Blocks until the process has ended; returns exitStatus().
  int wait();
  // Exit status once ended: 0..255, or 128 + the signal that killed it.
  int exitStatus() const { return exitStatus_; }
  pid_t pid() const { return pid_; }
  // Sends `signal` to the child's process group (its own only with ownGroup).
  void killGroup(int signal);

 private:
  void reaped(int status);
  pid_t pid_ = -1;
  bool running_ = false;
  bool ownGroup_ = false;
  int exitStatus_ = -1;
};

// Runs `argv` to completion (see ChildProcess) and returns its exit status.
int runToCompletion(const std::vector<std::string>& argv, const std::string& logPath,
                    const std::string& workDir = "");

// The last `lines` lines of the text file at `path` ("" when unreadable).
std::string tailOfFile(const std::string& path, int lines);

}  // namespace tetrad::experiment
