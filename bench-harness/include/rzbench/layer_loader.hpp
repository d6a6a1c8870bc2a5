// Loading a layer shared object (no dependency on any RZip.h): used by Layer::open and by the
// ROOT release bridge, which links no other part of the harness.
#pragma once
#include "rzbench/layer.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace rzbench {

struct LoadedLayer {
   void *handle = nullptr; // never dlclosed
   std::string file;       // the file R__zipMultipleAlgorithm comes from
   ZipApi api;
};

// dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) and the RZip.h functions; throws LayerError.
LoadedLayer load_layer(const std::string &path);
// ROOT's version code of a libCore layer (64000 for 6.40.00), 0 when it is none.
int loaded_root_version_code(const LoadedLayer &l);
// {library: version} of the codec code the layer's functions call (see Layer::codec_info).
nlohmann::json loaded_codec_libraries(const LoadedLayer &l);

} // namespace rzbench
