// codec_info() for the backends whose RZip.h functions are linked into rzbench (rootcompat, or a
// static ROOT build): they call the same host libraries as the harness itself. The ROOT release
// backend has its own implementation in root_release_bridge.cpp.
#include "rzbench/codec_versions.hpp"

#include "rzbench/fingerprint.hpp"

namespace rzbench {

nlohmann::json codec_info()
{
   return {{"set", "host"}, {"root_version", nullptr}, {"libraries", library_versions()}};
}

std::string root_release_version()
{
   return "";
}

std::string codec_library_file()
{
   return "";
}

} // namespace rzbench
