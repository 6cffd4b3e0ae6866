#include "tetrad/train/compute/compute_pool.h"

#include <algorithm>
#include <chrono>

#include "tetrad/core/error.h"

namespace tetrad::train {

PendingPass::~PendingPass() {
  if (done_.valid()) done_.wait();
}

void PendingPass::finish() {
  if (done_.valid()) done_.get();  // rethrows the job's exception
}

void PendingPass::finishWhileYielding(Transport& world) {
  if (!done_.valid()) return;
  const auto ended = [this] {
    return done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  };
  // The count is read before the checks, so a job that ends after it wakes
  // the wait at once. Each round costs one yield per job that ended: the
  // simulation's thread sleeps while the passes run.
  constexpr auto kGuard = std::chrono::milliseconds(10);  // re-checks; never needed to wake
  while (true) {
    const uint64_t seen = pool_->jobsEnded();
    if (ended()) break;
    world.yieldToPeers();  // the ranks ready at this instant hand over their passes
    if (ended()) break;
    pool_->waitForEndAfter(seen, kGuard);
  }
  done_.get();
}

double PassLookahead::seconds() const {
  if (count_ == 0) return 0;
  const int n = std::min(count_, int(recent_.size()));
  return 0.5 * *std::min_element(recent_.begin(), recent_.begin() + n);
}

void PassLookahead::add(double charge) {
  recent_[size_t(count_) % recent_.size()] = charge;
  ++count_;
}

ComputePool::ComputePool(int threads) {
  TETRAD_CHECK(threads >= 1, InvalidArgument, "a compute pool needs at least one thread, got {}",
               threads);
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ComputePool::~ComputePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

PendingPass ComputePool::submit(std::function<void()> job) {
  std::packaged_task<void()> task(std::move(job));
  std::future<void> done = task.get_future();
  submitted_.fetch_add(1);
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(task));
  }
  ready_.notify_one();
  return PendingPass(std::move(done), this);
}

void ComputePool::work() {
  // LibTorch gives a new thread the process's intra-op thread count (1 on
  // the simulator, trainer.cc) at its first parallel operation.
  while (true) {
    std::packaged_task<void()> task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, nothing left
      task = std::move(jobs_.front());
      jobs_.pop_front();
    }
    task();  // a packaged task keeps the job's exception for its future
    {
      std::lock_guard lock(mutex_);
      ++jobsEnded_;
    }
    ended_.notify_all();
  }
}

uint64_t ComputePool::jobsEnded() {
  std::lock_guard lock(mutex_);
  return jobsEnded_;
}

void ComputePool::waitForEndAfter(uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  ended_.wait_for(lock, timeout, [&] { return jobsEnded_ > seen; });
}

}  // namespace tetrad::train
