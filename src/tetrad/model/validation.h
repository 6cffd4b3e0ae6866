// Validation of the advisor against a finished sweep: per cluster of the
// results, the advisor's top pick among the methods that ran there against
// the method measured fastest to the target accuracy, and the measured
// accuracy penalty of every method (its final accuracy minus the cluster
// baseline's).
//
// Results arrive as plain values (MeasuredCluster), filled by the caller
// from run folders (experiment/run_groups.h in `tetrad advise`), so this
// layer does not depend on the experiment layer. Per cluster:
//   workload   modelWorkload(cluster model); a model the tables lack makes
//              the cluster "not compared";
//   network    networkModel(cluster spec, cluster workers);
//   compute    the cluster's measured compute time per iteration (mean of
//              its methods), else the caller's fallback;
//   advised    the fastest predicted method among those that ran there
//              (points the model refuses are left out);
//   measured   the method with the smallest time to target among those
//              every seed of which reached it.
// A cluster counts (n) when both exist; it agrees (k) when they are the
// same method label. A prediction per iteration cannot see convergence:
// a method that needs more iterations to reach the target can disagree.
//
// Thread-safety: call from one thread (codec measurements).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tetrad/model/advisor.h"
#include "tetrad/model/method_cost.h"

namespace tetrad::model {

struct MeasuredMethod {
  std::string label;  // the sweep's method label
  Method method;      // canonical point
  bool baseline = false;
  double finalAccuracy = 0;  // NaN when unknown
  double timeToTarget = 0;   // NaN unless every seed reached the target
};

struct MeasuredCluster {
  std::string label;
  std::string spec;  // "sim:1Gbps,50us"
  int workers = 0;
  std::string model;
  double targetAccuracy = 0;  // NaN or 0: none
  double computePerIter = 0;  // seconds; NaN when unknown
  std::vector<MeasuredMethod> methods;
};

struct ClusterAgreement {
  std::string cluster;
  bool counted = false;
  bool agree = false;
  std::string advised;  // method label (sweep's), or empty
  double advisedSeconds = 0;
  std::string measured;  // method label, or empty
  double measuredTimeToTarget = 0;
  std::string note;  // why not counted
};

struct Agreement {
  std::vector<ClusterAgreement> clusters;
  int agreed = 0;
  int counted = 0;
};

// Mean penalty per canonical Method::label(), over clusters with a baseline.
PenaltyTable measuredPenalties(const std::vector<MeasuredCluster>& clusters);

// `fallbackCompute` gives the compute time for a workload when the cluster
// has no measured one; `codec` as in ModelContext.
Agreement compareWithResults(const std::vector<MeasuredCluster>& clusters,
                             const std::function<ComputeTime(const Workload&)>& fallbackCompute,
                             const CodecFunction& codec);

// "cluster slow (sim:1Gbps,50us, 4 workers): advised fp16 (0.70 ms/iter);
// fastest to target fp16 (80.00 ms): agree", and the closing
// "agreement: k of n clusters".
std::vector<std::string> formatAgreement(const Agreement& agreement);

}  // namespace tetrad::model
