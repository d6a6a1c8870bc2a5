// Compression layers loaded at run time (see layer.hpp), and the host layer linked into rzbench.
//
// Why dlopen with RTLD_DEEPBIND instead of a plain link: a ROOT release's libCore exports the zstd
// and lz4 functions of its bundled copies with default visibility and calls them through its PLT,
// and the harness itself links the host's libzstd / liblz4 (ZSTD dictionaries, fingerprint). In one
// global symbol scope whichever library comes first would win for both: ROOT's wrappers would
// silently run the host's zstd, or the host's ZDICT would call into ROOT's zstd with another
// struct layout. RTLD_DEEPBIND makes the layer resolve its own symbols first, so its
// R__zipMultipleAlgorithm runs exactly the codec copies it ships, while the harness's own calls
// keep using the host libraries (machine.libraries); RTLD_LOCAL keeps two layers apart.
#include "rzbench/layer_loader.hpp"

#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <link.h>
#include <sstream>
#include <vector>

namespace rzbench {

namespace {

// Address of a symbol from the file's full symbol table (.symtab), for functions a layer links
// with hidden visibility (a release's bundled xz and xxhash): not in the dynamic table, so dlsym
// cannot see them, but the static table of an unstripped library still names them.
class SymbolTable {
public:
   explicit SymbolTable(const std::string &path)
   {
      std::ifstream in(path, std::ios::binary);
      data_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
   }

   // st_value of a defined function symbol, or 0.
   uint64_t find(const char *name) const
   {
      if (data_.size() < sizeof(Elf64_Ehdr) || std::memcmp(data_.data(), ELFMAG, SELFMAG) != 0 ||
          data_[EI_CLASS] != ELFCLASS64)
         return 0;
      Elf64_Ehdr eh;
      std::memcpy(&eh, data_.data(), sizeof eh);
      if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
          eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > data_.size())
         return 0;
      auto section = [&](size_t i) {
         Elf64_Shdr sh;
         std::memcpy(&sh, data_.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
         return sh;
      };
      for (size_t i = 0; i < eh.e_shnum; ++i) {
         const Elf64_Shdr sh = section(i);
         if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh.e_shnum || sh.sh_entsize != sizeof(Elf64_Sym))
            continue;
         const Elf64_Shdr strtab = section(sh.sh_link);
         if (sh.sh_offset + sh.sh_size > data_.size() || strtab.sh_offset + strtab.sh_size > data_.size())
            return 0;
         const size_t count = sh.sh_size / sizeof(Elf64_Sym);
         for (size_t k = 0; k < count; ++k) {
            Elf64_Sym s;
            std::memcpy(&s, data_.data() + sh.sh_offset + k * sizeof(Elf64_Sym), sizeof s);
            if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF || s.st_name >= strtab.sh_size)
               continue;
            const char *sym = data_.data() + strtab.sh_offset + s.st_name;
            if (std::strncmp(sym, name, strtab.sh_size - s.st_name) == 0)
               return s.st_value;
         }
      }
      return 0;
   }

private:
   std::vector<char> data_;
};

// Finds functions as the layer's own code reaches them: its dynamic symbol (deep-bound, so the
// layer's copy if it has one, else the dependency it links, e.g. the host's libz), or else the
// hidden copy inside the layer from the static symbol table.
class Resolver {
public:
   Resolver(void *handle, const std::string &file) : handle_(handle), table_(file)
   {
      link_map *lm = nullptr;
      if (dlinfo(handle_, RTLD_DI_LINKMAP, &lm) == 0 && lm != nullptr)
         base_ = static_cast<uintptr_t>(lm->l_addr);
      // Trust the static table only if it agrees with the loader on an exported function.
      void *exported = dlsym(handle_, "R__zipMultipleAlgorithm");
      const uint64_t v = table_.find("R__zipMultipleAlgorithm");
      table_ok_ = exported != nullptr && v != 0 && base_ + v == reinterpret_cast<uintptr_t>(exported);
   }

   void *resolve(const char *name) const
   {
      if (void *p = dlsym(handle_, name))
         return p;
      if (!table_ok_)
         return nullptr;
      const uint64_t v = table_.find(name);
      return v != 0 ? reinterpret_cast<void *>(base_ + v) : nullptr;
   }

private:
   void *handle_;
   uintptr_t base_ = 0;
   SymbolTable table_;
   bool table_ok_ = false;
};

std::string version_number(unsigned v)
{
   std::ostringstream s;
   s << v / 10000 << '.' << (v / 100) % 100 << '.' << v % 100;
   return s.str();
}

} // namespace

// AddressSanitizer aborts the process on any dlopen with RTLD_DEEPBIND (google/sanitizers#611),
// and without it a layer would run the host's codec copies: a sanitizer build loads no layer.
#if defined(__SANITIZE_ADDRESS__)
#define RZBENCH_NO_LAYERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RZBENCH_NO_LAYERS 1
#endif
#endif

LoadedLayer load_layer(const std::string &path)
{
#ifdef RZBENCH_NO_LAYERS
   throw LayerError("cannot load layer " + path +
                    ": this is a sanitizer build of rzbench, which loads no layer (AddressSanitizer "
                    "refuses RTLD_DEEPBIND); use the release build");
#endif
   void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
   if (h == nullptr) {
      const char *e = dlerror();
      throw LayerError("cannot load layer " + path + ": " + (e ? e : "unknown error"));
   }
   // Never dlclosed: a ROOT libCore registers atexit handlers and static destructors that must
   // not outlive their code, so the handle stays for the process's lifetime.
   LoadedLayer l;
   l.handle = h;
   l.api.zip = reinterpret_cast<decltype(l.api.zip)>(dlsym(h, "R__zipMultipleAlgorithm"));
   l.api.unzip = reinterpret_cast<decltype(l.api.unzip)>(dlsym(h, "R__unzip"));
   l.api.header = reinterpret_cast<decltype(l.api.header)>(dlsym(h, "R__unzip_header"));
   l.api.set_mode = reinterpret_cast<decltype(l.api.set_mode)>(dlsym(h, "R__SetZipMode"));
   if (l.api.zip == nullptr || l.api.unzip == nullptr || l.api.header == nullptr)
      throw LayerError("layer " + path + " lacks R__zipMultipleAlgorithm / R__unzip / R__unzip_header");
   Dl_info info{};
   if (dladdr(reinterpret_cast<void *>(l.api.zip), &info) != 0 && info.dli_fname != nullptr)
      l.file = info.dli_fname;
   else
      l.file = path;
   return l;
}

int loaded_root_version_code(const LoadedLayer &l)
{
   // static Int_t TROOT::RootVersionCode(): the compiled-in ROOT_VERSION_CODE, (major << 16) +
   // (minor << 8) + patch; a constant, it touches no ROOT state.
   using CodeFn = int (*)();
   void *p = dlsym(l.handle, "_ZN5TROOT15RootVersionCodeEv");
   if (p == nullptr)
      return 0;
   const int v = reinterpret_cast<CodeFn>(p)();
   return (v >> 16) * 10000 + ((v >> 8) & 0xff) * 100 + (v & 0xff);
}

nlohmann::json loaded_codec_libraries(const LoadedLayer &l)
{
   const Resolver r(l.handle, l.file);
   nlohmann::json libs = nlohmann::json::object();
   using StrFn = const char *(*)();
   using NumFn = unsigned (*)();
   const struct {
      const char *library, *function;
      bool numeric;
   } queries[] = {{"zlib", "zlibVersion", false},
                  {"lzma", "lzma_version_string", false},
                  {"lz4", "LZ4_versionString", false},
                  {"zstd", "ZSTD_versionString", false},
                  {"xxhash", "XXH_versionNumber", true}};
   for (const auto &q : queries) {
      void *fn = r.resolve(q.function);
      if (fn == nullptr)
         continue; // not determinable: left out rather than guessed
      libs[q.library] = q.numeric ? version_number(reinterpret_cast<NumFn>(fn)()) : std::string(reinterpret_cast<StrFn>(fn)());
   }
   return libs;
}

} // namespace rzbench
