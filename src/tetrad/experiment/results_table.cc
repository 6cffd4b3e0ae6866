#include "tetrad/experiment/results_table.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {
using nlohmann::ordered_json;

// A cell: text, or a number (NaN: missing).
struct Cell {
  bool isText = false;
  std::string text;
  double number = kMissing;
};

Cell text(std::string value) {
  return Cell{true, std::move(value), 0};
}
Cell number(double value) {
  return Cell{false, "", value};
}

double ratio(double part, double a, double b) {
  return a + b > 0 ? part / (a + b) : kMissing;
}

double perIteration(double value, int64_t iterations) {
  return iterations > 0 ? value / double(iterations) : kMissing;
}

struct Column {
  std::string name;
  std::function<Cell(const RunRecord&)> get;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> table = {
      {"method", [](const RunRecord& r) { return text(r.method); }},
      {"cluster", [](const RunRecord& r) { return text(r.cluster); }},
      {"seed", [](const RunRecord& r) { return number(double(r.seed)); }},
      {"status", [](const RunRecord& r) { return text(r.status); }},
      {"sync", [](const RunRecord& r) { return text(r.sync); }},
      {"arch", [](const RunRecord& r) { return text(r.arch); }},
      {"compress", [](const RunRecord& r) { return text(r.compress); }},
      {"sched", [](const RunRecord& r) { return text(r.sched); }},
      {"model", [](const RunRecord& r) { return text(r.model); }},
      {"data", [](const RunRecord& r) { return text(r.data); }},
      {"cluster_spec", [](const RunRecord& r) { return text(r.clusterSpec); }},
      {"workers", [](const RunRecord& r) { return number(r.workers > 0 ? r.workers : kMissing); }},
      {"iterations",
       [](const RunRecord& r) {
         return number(r.iterations > 0 ? double(r.iterations) : kMissing);
       }},
      {"lr", [](const RunRecord& r) { return number(r.lr); }},
      {"lr_tuned_from", [](const RunRecord& r) { return text(r.lrTunedFrom); }},
      {"final_accuracy", [](const RunRecord& r) { return number(r.finalAccuracy); }},
      {"target_accuracy", [](const RunRecord& r) { return number(r.targetAccuracy); }},
      {"time_to_target", [](const RunRecord& r) { return number(r.timeToTarget); }},
      {"iterations_to_target", [](const RunRecord& r) { return number(r.iterationsToTarget); }},
      {"train_time", [](const RunRecord& r) { return number(r.trainTime); }},
      {"wall_time", [](const RunRecord& r) { return number(r.wallTime); }},
      {"bytes_per_worker_per_iter",
       [](const RunRecord& r) { return number(r.bytesPerWorkerIter); }},
      {"compute_time", [](const RunRecord& r) { return number(r.computeTime); }},
      {"comm_time", [](const RunRecord& r) { return number(r.commTime); }},
      {"codec_time", [](const RunRecord& r) { return number(r.codecTime); }},
      {"compute_time_per_iter",
       [](const RunRecord& r) { return number(perIteration(r.computeTime, r.iterations)); }},
      {"comm_time_per_iter",
       [](const RunRecord& r) { return number(perIteration(r.commTime, r.iterations)); }},
      {"codec_time_per_iter",
       [](const RunRecord& r) { return number(perIteration(r.codecTime, r.iterations)); }},
      {"comm_fraction",
       [](const RunRecord& r) { return number(ratio(r.commTime, r.computeTime, r.commTime)); }},
      {"throughput", [](const RunRecord& r) { return number(r.throughput); }},
      {"retimed_from", [](const RunRecord& r) { return text(r.retimedFrom); }},
      {"hash", [](const RunRecord& r) { return text(r.hash); }},
      {"folder", [](const RunRecord& r) { return text(r.folder); }},
  };
  return table;
}

std::string csvField(const Cell& cell) {
  if (!cell.isText) return std::isnan(cell.number) ? "" : fmt::format("{}", cell.number);
  if (cell.text.find_first_of(",\"\n\r") == std::string::npos) return cell.text;
  std::string quoted = "\"";
  for (char c : cell.text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

const std::vector<std::string>& resultColumns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const Column& column : columns()) list.push_back(column.name);
    return list;
  }();
  return names;
}

std::string resultCsvRow(const RunRecord& record) {
  std::string line;
  for (const Column& column : columns()) {
    if (!line.empty() || &column != &columns().front()) line += ',';
    line += csvField(column.get(record));
  }
  return line;
}

std::string resultJsonRow(const RunRecord& record) {
  ordered_json row;
  for (const Column& column : columns()) {
    const Cell cell = column.get(record);
    if (cell.isText) {
      row[column.name] = cell.text;
    } else if (std::isnan(cell.number)) {
      row[column.name] = nullptr;
    } else {
      row[column.name] = cell.number;
    }
  }
  if (!record.extraJson.empty()) {
    const ordered_json extra = ordered_json::parse(record.extraJson, nullptr, false);
    if (extra.is_object()) {
      for (auto it = extra.begin(); it != extra.end(); ++it) row[it.key()] = it.value();
    }
  }
  return row.dump();
}

void writeResults(const std::vector<RunRecord>& records, const std::string& dir) {
  const std::filesystem::path base(dir);
  std::ofstream csv(base / "results.csv", std::ios::trunc);
  std::ofstream jsonl(base / "results.jsonl", std::ios::trunc);
  std::string header;
  for (const std::string& name : resultColumns()) header += (header.empty() ? "" : ",") + name;
  csv << header << '\n';
  for (const RunRecord& record : records) {
    csv << resultCsvRow(record) << '\n';
    jsonl << resultJsonRow(record) << '\n';
  }
  csv.close();
  jsonl.close();
  TETRAD_CHECK(csv.good() && jsonl.good(), Error, "cannot write {}/results.csv and results.jsonl",
               dir);
}

}  // namespace tetrad::experiment
