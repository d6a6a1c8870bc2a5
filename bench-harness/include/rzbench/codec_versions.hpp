// Which codec code the measurements run: the schema's top-level "codecs" object.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace rzbench {

// {"set": "host" | "root-<version>", "root_version": string|null, "libraries": {name: version}}:
// the versions of zlib, lzma, lz4, zstd and xxhash that the RZip.h functions really call, queried
// at run time from the library those functions come from.
nlohmann::json codec_info();

// The ROOT release whose libCore is measured ("6.40.00"), or "" for the other backends.
std::string root_release_version();

// The file the RZip.h functions are loaded from ("" when they are linked into rzbench).
std::string codec_library_file();

} // namespace rzbench
