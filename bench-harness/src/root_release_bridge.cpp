// The RZip.h C API of a ROOT release's own libCore.so (a PyPI `root` wheel), loaded at run time
// as a layer (layer_loader.cpp, with RTLD_DEEPBIND: why, see there) and linked into rzbench as
// its host layer: `--root-release` builds. `rzbench ab` loads any release's libCore the same way
// without a build of its own.
//
// This file does not include the release's RZip.h: the declarations differ in const-ness between
// releases, and with C linkage the ABI is the same.
#include "rzbench/codec_versions.hpp"
#include "rzbench/layer_loader.hpp"

#include <RVersion.h> // the release's, from ROOT_ZIP_PREFIX/include

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#ifndef RZBENCH_ROOT_CORE_PATH
#error "RZBENCH_ROOT_CORE_PATH (the release's lib/libCore.so) must be defined by the build"
#endif

namespace {

const rzbench::LoadedLayer &core()
{
   static rzbench::LoadedLayer c;
   static std::once_flag once;
   std::call_once(once, [] {
      try {
         c = rzbench::load_layer(RZBENCH_ROOT_CORE_PATH);
      } catch (const rzbench::LayerError &e) {
         std::fprintf(stderr, "rzbench: ROOT release backend: %s\n", e.what());
         std::exit(2);
      }
   });
   return c;
}

} // namespace

extern "C" void R__zipMultipleAlgorithm(int cxlevel, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep,
                                        int algorithm)
{
   core().api.zip(cxlevel, srcsize, src, tgtsize, tgt, irep, algorithm);
}

extern "C" void R__unzip(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep)
{
   core().api.unzip(srcsize, src, tgtsize, tgt, irep);
}

extern "C" int R__unzip_header(int *srcsize, unsigned char *src, int *tgtsize)
{
   return core().api.header(srcsize, src, tgtsize);
}

extern "C" void R__SetZipMode(int mode)
{
   if (core().api.set_mode != nullptr)
      core().api.set_mode(mode);
}

namespace rzbench {

nlohmann::json codec_info()
{
   const std::string version = root_release_version();
   return {{"set", "root-" + version}, {"root_version", version}, {"libraries", loaded_codec_libraries(core())}};
}

std::string root_release_version()
{
   // e.g. "6.40.00": the headers this bridge was compiled against come from the same wheel as libCore
   char buf[32];
   std::snprintf(buf, sizeof buf, "%d.%02d.%02d", ROOT_VERSION_MAJOR, ROOT_VERSION_MINOR, ROOT_VERSION_PATCH);
   return buf;
}

std::string codec_library_file()
{
   return core().file;
}

} // namespace rzbench
