// A compression layer: the RZip.h C API (R__zipMultipleAlgorithm, R__unzip, R__unzip_header,
// optionally R__SetZipMode) as a table of function pointers, so that one rzbench process can
// measure two of them side by side (`rzbench ab`). The "host" layer is the one linked into
// rzbench; any other is a shared object loaded at run time: a ROOT release's lib/libCore.so or a
// per-commit build's layer/libbbzip.so.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace rzbench {

struct ZipApi {
   // algorithm is ROOT's ECompressionAlgorithm as an int (the same ABI with C linkage)
   void (*zip)(int level, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep, int algorithm) = nullptr;
   void (*unzip)(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep) = nullptr;
   int (*header)(int *srcsize, unsigned char *src, int *tgtsize) = nullptr;
   void (*set_mode)(int mode) = nullptr; // may be null
};

// The RZip.h functions linked into rzbench (rootcompat, a static ROOT build, or the release bridge).
const ZipApi &linked_zip_api();

struct LayerError : std::runtime_error {
   using std::runtime_error::runtime_error;
};

class Layer {
public:
   // The layer compiled into rzbench.
   static std::unique_ptr<Layer> host();
   // dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND): the layer resolves its own codec copies
   // first, so two layers (and the host's libraries) never bind to each other's symbols.
   // Throws LayerError when the file cannot be loaded or lacks the three required functions.
   static std::unique_ptr<Layer> open(const std::string &path);
   // "host" or a path, as given on the command line.
   static std::unique_ptr<Layer> from_spec(const std::string &spec);

   ~Layer();
   Layer(const Layer &) = delete;
   Layer &operator=(const Layer &) = delete;

   const ZipApi &api() const { return api_; }
   bool is_host() const { return handle_ == nullptr; }
   // The file the functions come from ("" for the host layer).
   const std::string &file() const { return file_; }
   // {"set", "root_version", "libraries": {zlib, lzma, lz4, zstd, xxhash}}: the versions of the
   // codec libraries the layer's functions really call, queried from the layer at run time
   // (a library that cannot be determined is left out rather than guessed).
   nlohmann::json codec_info() const;
   // ROOT's version code (e.g. 64000) when the layer is a ROOT libCore, else 0.
   int root_version_code() const;

private:
   Layer() = default;
   void *handle_ = nullptr;
   std::string file_;
   ZipApi api_;
};

// "6.40.00" for ROOT's version code 64000.
std::string root_version_string(int code);

} // namespace rzbench
