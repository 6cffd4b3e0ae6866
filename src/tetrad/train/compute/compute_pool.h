// ComputePool: threads that run the ranks' forward and backward passes of a
// simulated run while their actors sleep through the simulated compute time,
// so that the ranks of one simulation compute on every core.
//
// Why it is exact. SimGrid runs one actor at a time; an actor that computes
// for real before sleeping holds up every other actor. Where the compute
// model knows the charge before the pass runs (fixed:, flops:), a rank hands
// its pass to the pool, sleeps for the charge on the simulated clock (the
// other actors go on and hand over their own passes) and collects the result
// when it wakes up. The pass reads and writes only that rank's replica, which
// nothing else touches meanwhile, and the simulated events are the same as
// computing inline: metrics and simulated times are bit for bit those of a
// serial run (tests/train/check_parallel_sim.sh).
//
// With measured, the charge is the pass's own time, known only after it ran.
// Ranks are rarely released at the same simulated instant (a ring
// all-reduce lets each rank go when its own last message arrives), so a
// rank hands its pass to the pool and first sleeps through a lookahead: a
// part of the charge it is sure to pay, half the smallest of its last four
// charges of that kind (PassLookahead; none before the first). The other
// ranks released within that time run meanwhile and hand over their own
// passes. The rank then waits for its pass without moving its clock
// further, yielding to the ranks that can run at that instant
// (finishWhileYielding), and sleeps the rest of its charge. The wait sleeps
// until some job of the pool ends, not on a timer: a rank that polled
// (every 100 us) kept the simulation's thread busy on a core the passes
// needed (a 2-rank cnn run on 2 cores: 0.76x of mpirun's throughput polling,
// 0.86x sleeping; docs/BENCHMARKS.md). A charge below
// the lookahead (a pass more than twice as fast as the fastest of the last
// four) is raised to it; the pool counts those (summary.json's
// passes_raised_to_lookahead). The pass is timed on its thread's CPU clock
// (replica.h), which a pass waiting for a core, or another pass, does not
// advance, so the charge is the pass's own cost. Simulated times are
// measurements, and differ from run to run as inline ones do.
//
// Ownership: the trainer owns the pool for one run (trainer.cc); a rank's
// PendingPass must be finished or destroyed before the replica it computes
// on. Thread-safety: submit() from any thread (the simulation's actors);
// jobs run on the pool's threads and must not call the transport.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad::train {

class ComputePool;

// A job handed to the pool. Destroying it waits for the job (also while an
// exception or a killed actor unwinds the rank), so that the job never
// outlives the state it works on.
class PendingPass {
 public:
  PendingPass() = default;
  PendingPass(std::future<void> done, ComputePool* pool) : done_(std::move(done)), pool_(pool) {}
  PendingPass(PendingPass&&) = default;
  PendingPass& operator=(PendingPass&&) = delete;
  ~PendingPass();
  // Waits for the job and rethrows its exception, if any.
  void finish();
  // The same, from a simulated rank that must not move its clock meanwhile:
  // it lets the simulation's other ranks that can run at the current
  // simulated time run (Transport::yieldToPeers), then sleeps until a job of
  // the pool ends (its own or another rank's, whose rank then goes on at the
  // next yield), and so on until its own has ended. Under MPI it is finish().
  void finishWhileYielding(Transport& world);

 private:
  std::future<void> done_;
  ComputePool* pool_ = nullptr;
};

// One rank's lookahead for one kind of measured pass (forward + backward, or
// the optimizer step): half the smallest of its last four charges, 0 before
// the first. Thread-safety: one per rank and kind, used by that rank only.
class PassLookahead {
 public:
  double seconds() const;
  void add(double charge);

 private:
  std::array<double, 4> recent_{};
  int count_ = 0;
};

class ComputePool {
 public:
  // `threads` >= 1 workers.
  explicit ComputePool(int threads);
  ~ComputePool();  // runs the queued jobs to the end, then joins
  ComputePool(const ComputePool&) = delete;
  ComputePool& operator=(const ComputePool&) = delete;

  int threads() const { return int(workers_.size()); }
  PendingPass submit(std::function<void()> job);
  // Jobs submitted so far (summary.json's passes_on_pool).
  int64_t submitted() const { return submitted_.load(); }
  // Measured charges raised to their rank's lookahead (see above), counted
  // by the ranks; summary.json's passes_raised_to_lookahead.
  void countRaisedCharge() { raised_.fetch_add(1); }
  int64_t raisedCharges() const { return raised_.load(); }

  // Jobs ended so far; waitForEndAfter(seen, timeout) sleeps until more than
  // `seen` have ended or the timeout passes (PendingPass::finishWhileYielding).
  uint64_t jobsEnded();
  void waitForEndAfter(uint64_t seen, std::chrono::milliseconds timeout);

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable ended_;  // notified when a job ends
  uint64_t jobsEnded_ = 0;         // guarded by mutex_
  std::deque<std::packaged_task<void()>> jobs_;
  bool stopping_ = false;
  std::atomic<int64_t> submitted_{0};
  std::atomic<int64_t> raised_{0};
  std::vector<std::thread> workers_;
};

}  // namespace tetrad::train
