// Validation of the advisor against a finished sweep: per cluster of the
// results, the advisor's top pick among the methods that ran there against
// the method measured fastest to the target accuracy — from the predicted
// time per iteration alone, and from it times each method's measured
// iterations to the target (which separates the cost model's error from
// convergence, which it does not model) — and the measured
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

#include <cmath>
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
  double timePerIter = NAN;  // measured seconds per iteration; NaN when unknown
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
  // The pick once convergence is measured: predicted time per iteration ×
  // the iterations the method took to the target (its time to target over
  // its measured time per iteration), among the methods that reached it.
  std::string advisedToTarget;  // empty when no method has both
  double advisedToTargetSeconds = 0;
  bool agreeToTarget = false;
  std::string note;  // why not counted
};

struct Agreement {
  std::vector<ClusterAgreement> clusters;
  int agreed = 0;          // per-iteration pick = measured fastest to target
  int agreedToTarget = 0;  // pick with the measured iterations = measured fastest
  int counted = 0;
};

// Mean penalty per canonical Method::label(), over clusters with a baseline.
PenaltyTable measuredPenalties(const std::vector<MeasuredCluster>& clusters);

// `fallbackCompute` gives the compute time for a workload when the cluster
// has no measured one; `codec` as in ModelContext.
Agreement compareWithResults(const std::vector<MeasuredCluster>& clusters,
                             const std::function<ComputeTime(const Workload&)>& fallbackCompute,
                             const CodecFunction& codec);

// "cluster slow: advised fp16 (0.700 ms/iter predicted); fastest to target
// fp16 (80.00 ms): agree; with measured iterations to target: advised fp16
// (56.0 ms predicted): agree", and the closing "agreement: k of n clusters
// per iteration, j of n with measured iterations to target".
std::vector<std::string> formatAgreement(const Agreement& agreement);

}  // namespace tetrad::model
