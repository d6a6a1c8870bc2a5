// The Layer class (layer.hpp): the host layer linked into rzbench, or one loaded at run time by
// layer_loader.cpp.
#include "rzbench/layer.hpp"

#include "rzbench/codec_versions.hpp"
#include "rzbench/layer_loader.hpp"

#include <RZip.h> // the linked layer's declarations (rootcompat's, a ROOT build's or a release's)

#include <cstdio>

namespace rzbench {

namespace {

// The algorithm parameter's type is whatever the RZip.h being compiled against declares:
// ROOT::ECompressionAlgorithm up to 6.16, ROOT::RCompressionSetting::EAlgorithm::EValues from
// 6.18 (an int-sized enum either way, behind C linkage), so older trees' layers build too.
// The other parameters vary as well (6.40 takes `const char *src`): only the last is read.
template <typename Function>
struct LastParameter;
template <typename R, typename A, typename B, typename C, typename D, typename E, typename F, typename Algorithm>
struct LastParameter<R (*)(A, B, C, D, E, F, Algorithm)> {
   using type = Algorithm;
};
using AlgorithmParameter = LastParameter<decltype(&R__zipMultipleAlgorithm)>::type;

// The linked functions behind ZipApi's signatures: the declarations of RZip.h differ in
// const-ness and in the algorithm's enum type between ROOT versions, the ABI does not.
void linked_zip(int level, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep, int algorithm)
{
   R__zipMultipleAlgorithm(level, srcsize, src, tgtsize, tgt, irep, static_cast<AlgorithmParameter>(algorithm));
}

void linked_unzip(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep)
{
   R__unzip(srcsize, src, tgtsize, tgt, irep);
}

int linked_header(int *srcsize, unsigned char *src, int *tgtsize)
{
   return R__unzip_header(srcsize, src, tgtsize);
}

} // namespace

const ZipApi &linked_zip_api()
{
   // R__SetZipMode is left out: a release's RZip.h does not declare it, and no measurement uses it.
   static const ZipApi api{&linked_zip, &linked_unzip, &linked_header, nullptr};
   return api;
}

std::string root_version_string(int code)
{
   char buf[32];
   std::snprintf(buf, sizeof buf, "%d.%02d.%02d", code / 10000, (code / 100) % 100, code % 100);
   return buf;
}

std::unique_ptr<Layer> Layer::host()
{
   std::unique_ptr<Layer> l(new Layer());
   l->api_ = linked_zip_api();
   return l;
}

std::unique_ptr<Layer> Layer::open(const std::string &path)
{
   const LoadedLayer loaded = load_layer(path);
   std::unique_ptr<Layer> l(new Layer());
   l->handle_ = loaded.handle;
   l->file_ = loaded.file;
   l->api_ = loaded.api;
   return l;
}

std::unique_ptr<Layer> Layer::from_spec(const std::string &spec)
{
   if (spec == "host")
      return host();
   if (spec.empty())
      throw LayerError("empty layer (expected host or the path of a layer shared object)");
   return open(spec);
}

Layer::~Layer() = default; // the handle is never dlclosed (see load_layer)

int Layer::root_version_code() const
{
   return handle_ == nullptr ? 0 : loaded_root_version_code({handle_, file_, api_});
}

nlohmann::json Layer::codec_info() const
{
   if (handle_ == nullptr)
      return rzbench::codec_info();
   const nlohmann::json libs = loaded_codec_libraries({handle_, file_, api_});
   const int code = root_version_code();
   if (code > 0) {
      const std::string v = root_version_string(code);
      return {{"set", "root-" + v}, {"root_version", v}, {"libraries", libs}};
   }
   return {{"set", "layer"}, {"root_version", nullptr}, {"libraries", libs}};
}

} // namespace rzbench
