// ThreadTask: the Open MPI backend's Task (internal to transport/mpi): a
// concurrent activity of one rank on its own std::thread.
//
// The body runs inside a try/catch, so no exception ever escapes the thread;
// join() waits for the thread and rethrows the body's exception, if any.
// Destroying a task that was not joined joins it and drops the exception.
//
// Thread-safety: start, join and destroy from the owning thread.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <thread>

#include "tetrad/transport/transport.h"

namespace tetrad::mpi {

class ThreadTask final : public Task {
 public:
  // `name` is shown by debuggers (first 15 characters).
  ThreadTask(std::string name, std::function<void()> body);
  ~ThreadTask() override;

  void join() override;

 private:
  std::string name_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace tetrad::mpi
