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
};
DatasetInfo describe(const Dataset &d);

struct RunDocument {
   nlohmann::json machine;
   std::optional<std::string> root_commit;
   std::optional<nlohmann::json> context;
   EngineParams params;
   std::vector<DatasetInfo> datasets;
   std::vector<Result> results;
};

nlohmann::json result_json(const Result &r);
nlohmann::json document_json(const RunDocument &doc);
std::string results_csv(const std::vector<Result> &results);
std::string results_markdown(const std::vector<Result> &results);
std::string results_console(const std::vector<Result> &results);

} // namespace rzbench
