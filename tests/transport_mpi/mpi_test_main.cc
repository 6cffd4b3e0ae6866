// GoogleTest main for tests that run under mpirun. Every rank runs every
// test; rank 0 prints the usual report, other ranks print only their
// failures (prefixed with the rank). The exit status is non-zero on a rank
// with a failure, which makes mpirun's exit status non-zero.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(std::string rank) : rank_(std::move(rank)) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %s] %s:%d: Failure\n%s\n", rank_.c_str(),
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.message());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      std::fprintf(stderr, "[rank %s] FAILED %s.%s\n", rank_.c_str(), info.test_suite_name(),
                   info.name());
    }
  }

 private:
  std::string rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank != nullptr && std::string(rank) != "0") {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  return RUN_ALL_TESTS();
}
