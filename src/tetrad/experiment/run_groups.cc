#include "tetrad/experiment/run_groups.h"

#include <cmath>
#include <map>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/model/method_traits.h"
#include "tetrad/sched/registry.h"

namespace tetrad::experiment {
namespace {

// Mean of the values that are not NaN (NaN when none is).
double meanOf(const std::vector<double>& values) {
  double sum = 0;
  int count = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    ++count;
  }
  return count > 0 ? sum / count : kMissing;
}

double perIter(double value, int64_t iterations) {
  return iterations > 0 ? value / double(iterations) : kMissing;
}

MethodRow summarise(const std::vector<const RunRecord*>& runs) {
  const RunRecord& first = *runs.front();
  MethodRow row;
  row.method = first.method;
  row.sync = first.sync;
  row.arch = first.arch;
  row.compress = first.compress;
  row.sched = first.sched;
  row.seeds = int(runs.size());
  row.targetAccuracy = first.targetAccuracy;
  row.lrTunedFrom = first.lrTunedFrom;
  row.layerWise = first.bucketBytes == 0;
  row.resizes = first.resizes;
  std::vector<double> accuracy, toTarget, itersTarget, train, timeIter, bytes, compute, comm, codec,
      throughput;
  for (const RunRecord* r : runs) {
    row.curveFolders.push_back(r->folder);
    row.seedTimesToTarget.push_back(r->timeToTarget);
    row.retimed += r->retimedFrom.empty() ? 0 : 1;
    accuracy.push_back(r->finalAccuracy);
    if (!std::isnan(r->timeToTarget)) {
      toTarget.push_back(r->timeToTarget);
      itersTarget.push_back(r->iterationsToTarget);
      ++row.reachedTarget;
    }
    train.push_back(r->trainTime);
    timeIter.push_back(perIter(r->trainTime, r->iterations));
    bytes.push_back(r->bytesPerWorkerIter);
    compute.push_back(perIter(r->computeTime, r->iterations));
    comm.push_back(perIter(r->commTime, r->iterations));
    codec.push_back(perIter(r->codecTime, r->iterations));
    throughput.push_back(r->throughput);
  }
  row.accuracyMean = meanOf(accuracy);
  row.accuracyStd = sampleStd(accuracy);
  row.timeToTarget = meanOf(toTarget);
  row.timeToTargetStd = sampleStd(toTarget);
  row.itersToTarget = meanOf(itersTarget);
  row.itersToTargetStd = sampleStd(itersTarget);
  row.trainTime = meanOf(train);
  row.timePerIter = meanOf(timeIter);
  row.timePerIterStd = sampleStd(timeIter);
  row.lr = first.lr;  // the same for every seed of a method
  row.bytesPerWorkerIter = meanOf(bytes);
  row.computePerIter = meanOf(compute);
  row.commPerIter = meanOf(comm);
  row.codecPerIter = meanOf(codec);
  row.throughput = meanOf(throughput);
  return row;
}

}  // namespace

double sampleStd(const std::vector<double>& values) {
  std::vector<double> present;
  for (double v : values) {
    if (!std::isnan(v)) present.push_back(v);
  }
  if (present.size() < 2) return kMissing;
  const double mean = meanOf(present);
  double sum = 0;
  for (double v : present) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / double(present.size() - 1));
}

MethodRole methodRoleOf(const std::string& sync, const std::string& arch,
                        const std::string& compress, const std::string& sched) {
  MethodRole role;
  try {
    const model::MethodTraits traits = model::methodTraits({sync, arch, compress});
    const bool bspOnAllreduce = traits.synchronous && traits.collective;
    role.plainBsp = traits.plainBsp();
    role.uncompressed = traits.uncompressed;
    role.fp16Bsp = bspOnAllreduce && traits.halfPrecision &&
                   makeCompressor(compress)->summableWire() == WirePrecision::kFloat16;
    role.overlapped = makeScheduler(sched)->overlapsBackward();
  } catch (const Error&) {
    return {};  // not a spec this tetrad parses: never a baseline
  }
  return role;
}

bool isBaselinePoint(const std::string& sync, const std::string& arch, const std::string& compress,
                     const std::string& sched) {
  const MethodRole role = methodRoleOf(sync, arch, compress, sched);
  return role.plainBsp && !role.overlapped;
}

std::vector<ClusterGroup> groupRuns(const std::vector<RunRecord>& records) {
  // records come sorted by cluster, method, seed (readRunFolders); keep
  // first-seen order of clusters and of methods within each.
  std::vector<ClusterGroup> groups;
  std::vector<std::vector<std::vector<const RunRecord*>>> runs;  // [cluster][method][seed]
  std::map<std::string, size_t> clusterIndex;
  std::vector<std::map<std::string, size_t>> methodIndex;
  for (const RunRecord& r : records) {
    if (r.status != "ok") continue;
    auto [c, newCluster] = clusterIndex.emplace(r.cluster, groups.size());
    if (newCluster) {
      ClusterGroup group;
      group.cluster = r.cluster;
      group.spec = r.clusterSpec;
      group.workers = r.workers;
      groups.push_back(std::move(group));
      runs.emplace_back();
      methodIndex.emplace_back();
    }
    std::string& models = groups[c->second].netModel;
    if (!r.netModel.empty() &&
        ("/" + models + "/").find("/" + r.netModel + "/") == std::string::npos)
      models += (models.empty() ? "" : "/") + r.netModel;
    auto [m, newMethod] = methodIndex[c->second].emplace(r.method, runs[c->second].size());
    if (newMethod) runs[c->second].emplace_back();
    runs[c->second][m->second].push_back(&r);
  }
  for (size_t c = 0; c < groups.size(); ++c) {
    for (const auto& methodRuns : runs[c]) {
      MethodRow row = summarise(methodRuns);
      row.role = methodRoleOf(row.sync, row.arch, row.compress, row.sched);
      const int index = int(groups[c].rows.size());
      if (groups[c].baseline < 0 && !row.layerWise && row.role.plainBsp && !row.role.overlapped) {
        row.isBaseline = true;
        groups[c].baseline = index;
      }
      // The sweep's baseline16 when it names one; else the 16-bit baseline
      // users run: DDP's fp16 hook, overlapped (--sched ddp); an fp16 run
      // after the backward pass only where the cluster has no overlapped one.
      const std::string& named = methodRuns.front()->baseline16;
      if (!named.empty()) {
        if (row.method == named) {
          row.isFp16Baseline = true;
          groups[c].fp16Baseline = index;
        }
      } else if (!row.layerWise && row.role.fp16Bsp) {
        const int current = groups[c].fp16Baseline;
        const bool overlapped = row.role.overlapped;
        if (current < 0 || (overlapped && !groups[c].rows[size_t(current)].role.overlapped)) {
          if (current >= 0) groups[c].rows[size_t(current)].isFp16Baseline = false;
          row.isFp16Baseline = true;
          groups[c].fp16Baseline = index;
        }
      }
      groups[c].rows.push_back(std::move(row));
    }
  }
  return groups;
}

}  // namespace tetrad::experiment
