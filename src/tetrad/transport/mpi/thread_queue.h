// ThreadQueue: the Open MPI backend's LocalQueue (transport.h): integers
// handed between a rank's threads through a std::mutex and a
// std::condition_variable. pop() waits at most the transport's timeout.
//
// Thread-safety: push and pop from any thread of the rank.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>

#include "tetrad/transport/transport.h"

namespace tetrad::mpi {

class ThreadQueue final : public LocalQueue {
 public:
  ThreadQueue(int rank, std::string name, double timeoutSeconds);
  void push(int64_t value) override;
  int64_t pop() override;

 private:
  int rank_;
  std::string name_;
  double timeoutSeconds_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int64_t> values_;
};

}  // namespace tetrad::mpi
