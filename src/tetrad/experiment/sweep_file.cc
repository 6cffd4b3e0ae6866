#include "tetrad/experiment/sweep_file.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "tetrad/core/error.h"
#include "tetrad/experiment/lr_tuning.h"
#include "tetrad/experiment/method_map.h"
#include "tetrad/experiment/toml_reader.h"

namespace tetrad::experiment {
namespace {

// Keys that only a [[cluster]] may set (besides label, spec, mpirun_args).
const std::set<std::string, std::less<>> kClusterOnlyKeys = {"cluster", "workers", "sim_cfg"};

class SweepParser : private TomlReader {
 public:
  explicit SweepParser(std::string file) : TomlReader(std::move(file)) {}

  SweepSpec parse(std::string_view text) {
    toml::table root;
    try {
      root = toml::parse(text, file_);
    } catch (const toml::parse_error& e) {
      SourceRef where = at(e.source());
      TETRAD_FAIL(InvalidArgument, "{}: TOML syntax error: {}", where.toString(), e.description());
    }
    spec_.file = file_;
    for (auto&& [key, node] : root) {
      const std::string name(key.str());
      if (name == "description") {
        spec_.description = stringValue(node, key, "top level");
      } else if (name == "baseline16") {
        spec_.baseline16 = stringValue(node, key, "top level");
        spec_.baseline16Where = at(key.source());
      } else if (name == "workload") {
        parseWorkload(tableOf(node, key, "[workload]"));
      } else if (name == "map") {
        parseMap(tableOf(node, key, "[map]"), key);
      } else if (name == "cluster" || name == "method") {
        const toml::array& array = arrayOfTables(node, key);
        for (const toml::node& element : array) {
          if (name == "cluster") {
            parseCluster(*element.as_table());
          } else {
            parseMethod(*element.as_table());
          }
        }
      } else {
        unknownKey(key, "the top level",
                   "description, baseline16, workload, [[cluster]], [[method]], [map]");
      }
    }
    if (!spec_.baseline16.empty()) {
      bool known = false;
      std::string labels;
      for (const MethodEntry& m : spec_.methods) {
        known = known || m.label == spec_.baseline16;
        labels += (labels.empty() ? "" : ", ") + m.label;
      }
      TETRAD_CHECK(known, InvalidArgument,
                   "{}: key 'baseline16': no [[method]] is labelled '{}' (labels: {})",
                   spec_.baseline16Where.toString(), spec_.baseline16, labels);
    }
    TETRAD_CHECK(!spec_.methods.empty(), InvalidArgument,
                 "{}: key 'method': the sweep has no [[method]] table (it needs at least one)",
                 placeOf(root, "method").toString());
    TETRAD_CHECK(!spec_.clusters.empty(), InvalidArgument,
                 "{}: key 'cluster': the sweep has no [[cluster]] table (it needs at least one)",
                 placeOf(root, "cluster").toString());
    return std::move(spec_);
  }

 private:
  // Adds a setting key of `table` to `settings`; `extraKeys` names the keys
  // the table has besides settings (for the "known:" list). Returns false
  // when `key` is not a setting key this table accepts.
  bool addSetting(Settings& settings, const toml::key& key, const toml::node& node,
                  const std::string& table, bool cluster) const {
    const std::string name(key.str());
    const SettingKey* entry = findSettingKey(name);
    if (entry == nullptr || name == "seed") return false;
    if (!cluster && kClusterOnlyKeys.count(name) != 0) return false;
    settings[name] = settingOf(*entry, node, key, table);
    return true;
  }

  std::string knownSettings(bool cluster) const {
    std::string known;
    for (const SettingKey& entry : settingKeys()) {
      if (entry.key == "seed" || entry.key == "cluster") continue;
      if (!cluster && kClusterOnlyKeys.count(entry.key) != 0) continue;
      known += fmt::format(", {}", entry.key);
    }
    return known;
  }

  void parseWorkload(const toml::table& table) {
    for (auto&& [key, node] : table) {
      if (key.str() == "seeds") {
        parseSeeds(node, key);
      } else if (key.str() == "tune_budget") {
        parseTuneBudget(node, key);
      } else if (key.str() == "tune_metric") {
        parseTuneMetric(node, key);
      } else if (key.str() == "retime") {
        if (!node.is_boolean()) wrongType(node, key, "[workload]", "true or false");
        spec_.retime = node.value<bool>().value();
        spec_.retimeWhere = at(key.source());
      } else if (!addSetting(spec_.workload, key, node, "[workload]", false)) {
        unknownKey(key, "[workload]",
                   "seeds" + knownSettings(false) + ", tune_budget, tune_metric, retime");
      }
    }
  }

  // [map]: bandwidth and latency axes (MIN:MAX:STEPS, checked here so a bad
  // one names its line), compute_scale ("0.1,1,10"), net_model and
  // noise_ratio (a number, or "fit").
  void parseMap(const toml::table& table, const toml::key& mapKey) {
    spec_.map.present = true;
    spec_.map.where = at(mapKey.source());
    for (auto&& [key, node] : table) {
      const std::string name(key.str());
      if (name != "bandwidth" && name != "latency" && name != "compute_scale" &&
          name != "net_model" && name != "noise_ratio")
        unknownKey(key, "[map]", "bandwidth, latency, compute_scale, net_model, noise_ratio");
      if (name == "noise_ratio" && node.is_number()) {
        const double s = node.value<double>().value_or(-1);
        if (!(s >= 0) || !std::isfinite(s))
          badValue(node, key, "[map]", "need a number >= 0 or \"fit\"");
        spec_.map.noiseRatio = fmt::format("{}", s);
        continue;
      }
      const std::string value = stringValue(node, key, "[map]");
      if (name == "noise_ratio") {
        if (value != "fit") badValue(node, key, "[map]", "need a number >= 0 or \"fit\"");
        spec_.map.noiseRatio = value;
        continue;
      }
      try {
        if (name == "bandwidth") {
          parseBandwidthAxis(value, "[map] bandwidth");
          spec_.map.bandwidth = value;
        } else if (name == "latency") {
          parseLatencyAxis(value, "[map] latency");
          spec_.map.latency = value;
        } else if (name == "compute_scale") {
          parseComputeScales(value, "[map] compute_scale");
          spec_.map.computeScale = value;
        } else {
          TETRAD_CHECK(!value.empty(), InvalidArgument, "empty network model");
          spec_.map.netModel = value;
        }
      } catch (const InvalidArgument& e) {
        badValue(node, key, "[map]", e.what());
      }
    }
  }

  [[noreturn]] void badValue(const toml::node& node, const toml::key& key, std::string_view table,
                             std::string_view message) const {
    TETRAD_FAIL(InvalidArgument, "{}: key '{}' in {}: {}", at(node.source()).toString(), key.str(),
                table, message);
  }

  void parseTuneBudget(const toml::node& node, const toml::key& key) {
    if (!node.is_number()) wrongType(node, key, "[workload]", "a number in (0, 1)");
    const double budget = node.value<double>().value();
    if (!(budget > 0 && budget < 1)) {
      badValue(node, key, "[workload]",
               fmt::format("{} is outside (0, 1): the share of a run's iterations that each "
                           "tuning run trains",
                           canonicalNumber(budget)));
    }
    spec_.tuneBudget = budget;
    spec_.tuneBudgetWhere = at(key.source());
  }

  void parseTuneMetric(const toml::node& node, const toml::key& key) {
    const std::string name = stringValue(node, key, "[workload]");
    if (!tuneMetricFromName(name, spec_.tuneMetric)) {
      badValue(node, key, "[workload]",
               fmt::format("unknown metric '{}' (known: test_accuracy, train_loss)", name));
    }
    spec_.tuneMetricWhere = at(key.source());
  }

  // tune_lr = [0.1, 0.05]: positive numbers, none twice, at least one.
  std::vector<std::string> tuneGrid(const toml::node& node, const toml::key& key,
                                    const std::string& table) const {
    constexpr std::string_view kExpected = "an array of positive numbers";
    if (!node.is_array()) wrongType(node, key, table, kExpected);
    std::vector<std::string> grid;
    for (const toml::node& element : *node.as_array()) {
      if (!element.is_number()) wrongType(element, key, table, kExpected);
      const double lr = element.value<double>().value();
      const std::string text = canonicalNumber(lr);
      if (!(lr > 0) || !std::isfinite(lr)) {
        badValue(element, key, table,
                 fmt::format("learning rate {} is not a positive number", text));
      }
      if (std::find(grid.begin(), grid.end(), text) != grid.end()) {
        badValue(element, key, table, fmt::format("learning rate {} is listed twice", text));
      }
      grid.push_back(text);
    }
    if (grid.empty()) badValue(node, key, table, "the grid of learning rates is empty");
    return grid;
  }

  void parseSeeds(const toml::node& node, const toml::key& key) {
    if (!node.is_array()) wrongType(node, key, "[workload]", "an array of integers");
    spec_.seeds.clear();
    spec_.seedsWhere = at(key.source());
    for (const toml::node& element : *node.as_array()) {
      if (!element.is_integer() || element.as_integer()->get() < 0) {
        wrongType(element, key, "[workload]", "an array of non-negative integers");
      }
      const uint64_t seed = uint64_t(element.as_integer()->get());
      for (uint64_t previous : spec_.seeds) {
        if (previous == seed) fail(key, fmt::format("seed {} is listed twice", seed));
      }
      spec_.seeds.push_back(seed);
    }
    if (spec_.seeds.empty()) fail(key, "the list of seeds is empty");
  }

  // Reads, checks and registers the label of a [[cluster]] or [[method]].
  std::string parseLabel(const toml::table& table, std::string_view kind,
                         std::map<std::string, int>& seen, SourceRef& where) {
    const toml::node* node = table.get("label");
    if (node == nullptr) {
      SourceRef place{file_, int(table.source().begin.line), 0};
      TETRAD_FAIL(InvalidArgument, "{}: key 'label': a [[{}]] table needs a label",
                  place.toString(), kind);
    }
    const toml::key* labelKey = nullptr;
    for (auto&& [k, v] : table) {
      if (k.str() == "label") labelKey = &k;
    }
    const toml::key& key = *labelKey;
    const std::string table_name = fmt::format("[[{}]]", kind);
    std::string label = stringValue(*node, key, table_name);
    where = at(key.source());
    const bool valid = !label.empty() && std::all_of(label.begin(), label.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
             c == '-';
    });
    if (!valid) {
      fail(key, fmt::format("invalid {} label '{}': use letters, digits and . _ + -", kind, label));
    }
    auto [it, inserted] = seen.emplace(label, where.line);
    if (!inserted) {
      fail(key, fmt::format("duplicate {} label '{}' (first at line {})", kind, label, it->second));
    }
    return label;
  }

  void parseCluster(const toml::table& table) {
    ClusterEntry cluster;
    cluster.label = parseLabel(table, "cluster", clusterLabels_, cluster.where);
    const std::string name = fmt::format("[[cluster]] '{}'", cluster.label);
    bool hasSpec = false;
    for (auto&& [key, node] : table) {
      const std::string_view k = key.str();
      if (k == "label") continue;
      if (k == "spec") {
        const std::string spec = stringValue(node, key, name);
        if (spec != "mpi" && !spec.starts_with("sim:")) {
          fail(key, fmt::format("invalid cluster spec '{}': use sim:SPEC or mpi", spec));
        }
        cluster.mpi = spec == "mpi";
        cluster.settings["cluster"] =
            Setting{findSettingKey("cluster"), {spec}, at(key.source()), name};
        hasSpec = true;
      } else if (k == "mpirun_args") {
        cluster.mpirunArgs = stringList(node, key, name);
      } else if (k == "cluster" || !addSetting(cluster.settings, key, node, name, true)) {
        unknownKey(key, name, "label, spec, mpirun_args" + knownSettings(true));
      }
    }
    if (!hasSpec) {
      TETRAD_FAIL(InvalidArgument, "{}: key 'spec': {} needs a spec (sim:SPEC or mpi)",
                  cluster.where.toString(), name);
    }
    if (auto it = cluster.settings.find("workers"); it != cluster.settings.end()) {
      cluster.workers = std::stoi(it->second.values.front());
    }
    if (cluster.mpi && cluster.workers <= 0) {
      TETRAD_FAIL(InvalidArgument, "{}: key 'workers': {} runs under mpirun and needs workers >= 1",
                  cluster.where.toString(), name);
    }
    spec_.clusters.push_back(std::move(cluster));
  }

  void parseMethod(const toml::table& table) {
    MethodEntry method;
    method.label = parseLabel(table, "method", methodLabels_, method.where);
    const std::string name = fmt::format("[[method]] '{}'", method.label);
    for (auto&& [key, node] : table) {
      if (key.str() == "label") continue;
      if (key.str() == "tune_lr") {
        method.tuneLr = tuneGrid(node, key, name);
        method.tuneLrWhere = at(key.source());
      } else if (!addSetting(method.settings, key, node, name, false)) {
        unknownKey(key, name, "label" + knownSettings(false) + ", tune_lr");
      }
    }
    spec_.methods.push_back(std::move(method));
  }

  SweepSpec spec_;
  std::map<std::string, int> clusterLabels_;
  std::map<std::string, int> methodLabels_;
};

}  // namespace

std::string SourceRef::toString() const {
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

SweepSpec parseSweepText(std::string_view text, const std::string& file) {
  return SweepParser(file).parse(text);
}

SweepSpec parseSweepFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TETRAD_CHECK(in.good(), InvalidArgument, "cannot read the sweep file '{}'", path);
  std::ostringstream text;
  text << in.rdbuf();
  return parseSweepText(text.str(), path);
}

}  // namespace tetrad::experiment
