// Reading validation points (validation_set.h).
#include "tetrad/experiment/validation_set.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "tetrad/core/error.h"
#include "tetrad/sched/model_zoo.h"

namespace tetrad::experiment {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kKeys = {
    "id",     "source",           "url",    "model",         "device",  "batch",
    "nodes",  "devices_per_node", "intra",  "inter",         "library", "method",
    "metric", "published",        "single", "single_source", "cluster", "cluster_source",
    "args",   "baseline",         "fitted"};
const std::set<std::string> kMetrics = {"throughput", "efficiency", "speedup", "iteration_time"};

class PointReader {
 public:
  PointReader(const toml::table& table, const std::string& file)
      : table_(table), file_(file), line_(int(table.source().begin.line)) {
    id_ = table.contains("id") && table["id"].is_string() ? *table["id"].value<std::string>()
                                                          : std::string("?");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    const toml::node* node = table_.get(key);
    const int line = node != nullptr ? int(node->source().begin.line) : line_;
    TETRAD_FAIL(InvalidArgument, "{}:{}: point {}: key '{}' {}", file_, line, id_, key, what);
  }

  const toml::node& need(const std::string& key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) fail(key, "is missing");
    return *node;
  }

  std::string text(const std::string& key) const {
    const auto value = need(key).value<std::string>();
    if (!value || value->empty()) fail(key, "must be a non-empty string");
    return *value;
  }

  double number(const std::string& key) const {
    const auto value = need(key).value<double>();
    if (!value || !(*value > 0)) fail(key, "must be a number > 0");
    return *value;
  }

  int count(const std::string& key) const {
    const auto value = need(key).value<int64_t>();
    if (!value || *value < 1 || *value > 1'000'000) fail(key, "must be an integer >= 1");
    return int(*value);
  }

  ValidationPoint read() const {
    for (const auto& [key, node] : table_) {
      if (!kKeys.contains(std::string(key.str()))) {
        TETRAD_FAIL(InvalidArgument, "{}:{}: point {}: unknown key '{}'", file_,
                    node.source().begin.line, id_, key.str());
      }
    }
    ValidationPoint p;
    p.file = file_;
    p.line = line_;
    p.id = text("id");
    p.source = text("source");
    p.url = text("url");
    p.model = text("model");
    if (!sched::isZooModel(p.model)) fail("model", "names no zoo model");
    p.device = text("device");
    p.batch = count("batch");
    p.nodes = count("nodes");
    p.devicesPerNode = count("devices_per_node");
    p.intra = text("intra");
    p.inter = text("inter");
    p.library = text("library");
    p.method = text("method");
    p.metric = text("metric");
    if (!kMetrics.contains(p.metric)) {
      fail("metric", "must be throughput, efficiency, speedup or iteration_time");
    }
    p.published = number("published");
    p.single = number("single");
    p.singleSource = text("single_source");
    p.cluster = text("cluster");
    p.clusterSource = text("cluster_source");
    if (table_.contains("args")) {
      const toml::array* args = table_["args"].as_array();
      if (args == nullptr) fail("args", "must be a list of strings");
      for (const toml::node& arg : *args) {
        if (!arg.is_string()) fail("args", "must be a list of strings");
        p.args.push_back(*arg.value<std::string>());
      }
    }
    if (p.metric == "speedup") p.baseline = text("baseline");
    if (table_.contains("fitted")) {
      const std::optional<bool> fitted = table_["fitted"].value<bool>();
      if (!table_["fitted"].is_boolean() || !fitted) fail("fitted", "must be true or false");
      p.fitted = *fitted;
    }
    return p;
  }

 private:
  const toml::table& table_;
  std::string file_;
  int line_;
  std::string id_;
};

}  // namespace

std::vector<ValidationPoint> loadValidationFile(const std::string& file) {
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    TETRAD_FAIL(InvalidArgument, "{}:{}: {}", file, e.source().begin.line, e.description());
  }
  const toml::array* points = root["point"].as_array();
  TETRAD_CHECK(points != nullptr, InvalidArgument, "{}:1: no [[point]] tables", file);
  std::vector<ValidationPoint> out;
  for (const toml::node& node : *points) {
    const toml::table* table = node.as_table();
    TETRAD_CHECK(table != nullptr, InvalidArgument, "{}:{}: 'point' must be [[point]] tables", file,
                 node.source().begin.line);
    out.push_back(PointReader(*table, file).read());
  }
  return out;
}

std::vector<ValidationPoint> loadValidationSet(const std::string& dir) {
  std::error_code ec;
  TETRAD_CHECK(fs::is_directory(dir, ec), InvalidArgument, "validation set '{}': no such folder",
               dir);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<ValidationPoint> points;
  std::map<std::string, const ValidationPoint*> byId;
  for (const std::string& file : files) {
    for (ValidationPoint& p : loadValidationFile(file)) points.push_back(std::move(p));
  }
  TETRAD_CHECK(!points.empty(), InvalidArgument, "validation set '{}': no points (*.toml)", dir);
  for (const ValidationPoint& p : points) {
    TETRAD_CHECK(byId.emplace(p.id, &p).second, InvalidArgument,
                 "{}:{}: point {}: key 'id' repeats an earlier point's id", p.file, p.line, p.id);
  }
  for (const ValidationPoint& p : points) {
    if (p.metric != "speedup") continue;
    auto it = byId.find(p.baseline);
    TETRAD_CHECK(it != byId.end(), InvalidArgument,
                 "{}:{}: point {}: key 'baseline' names no point ('{}')", p.file, p.line, p.id,
                 p.baseline);
  }
  return points;
}

}  // namespace tetrad::experiment
