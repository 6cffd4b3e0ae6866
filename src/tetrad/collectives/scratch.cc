#include "tetrad/collectives/scratch.h"

#include <mutex>
#include <vector>

namespace tetrad::detail {
namespace {

struct Pooled {
  std::unique_ptr<float[]> data;
  size_t capacity = 0;
};

struct Pool {
  std::mutex mutex;
  std::vector<Pooled> idle;
  size_t idleBytes = 0;
};

Pool& pool() {
  static Pool* instance = new Pool();  // never destroyed: usable during exit
  return *instance;
}

}  // namespace

Scratch::Scratch(size_t count) : count_(count) {
  if (count == 0) return;
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    size_t best = p.idle.size();
    for (size_t i = 0; i < p.idle.size(); ++i) {
      if (p.idle[i].capacity >= count &&
          (best == p.idle.size() || p.idle[i].capacity < p.idle[best].capacity)) {
        best = i;
      }
    }
    if (best != p.idle.size()) {
      data_ = std::move(p.idle[best].data);
      capacity_ = p.idle[best].capacity;
      p.idleBytes -= capacity_ * sizeof(float);
      p.idle[best] = std::move(p.idle.back());
      p.idle.pop_back();
      return;
    }
  }
  data_.reset(new float[count]);  // uninitialised: pages are touched on use only
  capacity_ = count;
}

Scratch::~Scratch() {
  if (!data_) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  const size_t bytes = capacity_ * sizeof(float);
  if (p.idleBytes + bytes > kScratchPoolBytes) return;  // data_ is freed
  p.idle.push_back(Pooled{std::move(data_), capacity_});
  p.idleBytes += bytes;
}

}  // namespace tetrad::detail
