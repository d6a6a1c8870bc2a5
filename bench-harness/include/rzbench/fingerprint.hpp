// The machine fingerprint: the schema's "machine" object.
#pragma once
#include <nlohmann/json.hpp>

namespace rzbench {

const char *backend_name(); // "rootcompat" or "root"
nlohmann::json library_versions();
nlohmann::json machine_fingerprint();

} // namespace rzbench
