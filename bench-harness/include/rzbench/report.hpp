// Reporters (google-benchmark style, separate from measuring): JSON document (schema
// harness-result-v1), CSV, Markdown table and the console table.
#pragma once
#include "rzbench/dataset.hpp"
#include "rzbench/runner.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rzbench {

struct DatasetInfo {
   std::string name, source, checksum;
   uint64_t bytes = 0, baskets = 0;
   uint64_t pages = 0;                 // RNTuple pages among the baskets
   std::optional<uint64_t> page_size; // of a re-paged RNTuple corpus
   // "ttree" (baskets only, synthetic data too), "rntuple" (pages only) or "mixed"
   std::string kind() const { return pages == 0 ? "ttree" : pages == baskets ? "rntuple" : "mixed"; }
};
DatasetInfo describe(const Dataset &d);

struct RunDocument {
   nlohmann::json machine;
   std::optional<std::string> root_commit;
   std::optional<nlohmann::json> context;
   EngineParams params;
   std::vector<DatasetInfo> datasets;
   std::vector<Result> results;
   std::optional<nlohmann::json> interference; // interference_summary of the timed samples
};

nlohmann::json result_json(const Result &r);
nlohmann::json document_json(const RunDocument &doc);
std::string results_csv(const std::vector<Result> &results);
std::string results_markdown(const std::vector<Result> &results);
std::string results_console(const std::vector<Result> &results);

} // namespace rzbench
