#include "tetrad/transport/mpi/thread_task.h"

#include <pthread.h>

#include <utility>

namespace tetrad::mpi {

ThreadTask::ThreadTask(std::string name, std::function<void()> body) : name_(std::move(name)) {
  thread_ = std::thread([this, body = std::move(body)] {
    std::string shortName = name_.substr(0, 15);
    pthread_setname_np(pthread_self(), shortName.c_str());
    try {
      body();
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

ThreadTask::~ThreadTask() {
  if (thread_.joinable()) thread_.join();
}

void ThreadTask::join() {
  if (thread_.joinable()) thread_.join();
  if (error_) {
    std::exception_ptr error = std::exchange(error_, nullptr);
    std::rethrow_exception(error);
  }
}

}  // namespace tetrad::mpi
