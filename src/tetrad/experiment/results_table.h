// The results of a sweep as one table: results.csv and results.jsonl, one
// row per run (docs/experiments.md lists the columns).
//
// Rows come from RunRecords (run folders), so the files can be rewritten at
// any time from the folders alone. Missing values are empty CSV fields and
// JSON nulls; text fields with a comma or quote are quoted (RFC 4180).
//
// Pure functions (writeResults writes two files); thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {

// The column names, in order.
const std::vector<std::string>& resultColumns();

// One CSV line (no newline) of `record`, in resultColumns() order.
std::string resultCsvRow(const RunRecord& record);

// One JSON object (no newline) with the same fields, plus the optional
// summary fields of RunRecord::extraJson.
std::string resultJsonRow(const RunRecord& record);

// Writes `dir`/results.csv (header and one line per record) and
// `dir`/results.jsonl. Throws Error when a file cannot be written.
void writeResults(const std::vector<RunRecord>& records, const std::string& dir);

}  // namespace tetrad::experiment
