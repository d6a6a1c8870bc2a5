// The RZip.h C API of a ROOT release's own libCore.so (a PyPI `root` wheel), loaded at run time.
//
// Why dlopen with RTLD_DEEPBIND instead of a plain link: the release's libCore exports the
// zstd and lz4 functions of its bundled copies with default visibility and calls them through its
// PLT, and the harness itself links the host's libzstd / liblz4 (ZSTD dictionaries, fingerprint).
// In one global symbol scope whichever library comes first would win for both: ROOT's wrappers
// would silently run the host's zstd, or the host's ZDICT would call into ROOT's zstd with another
// struct layout. RTLD_DEEPBIND makes libCore resolve its own symbols first, so ROOT's
// R__zipMultipleAlgorithm runs exactly the codec copies ROOT ships, while the harness's own calls
// keep using the host libraries (machine.libraries).
//
// This file does not include the release's RZip.h: the declarations differ in const-ness between
// releases, and with C linkage the ABI is the same.
#include "rzbench/codec_versions.hpp"

#include <RVersion.h> // the release's, from ROOT_ZIP_PREFIX/include

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fstream>
#include <link.h>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#ifndef RZBENCH_ROOT_CORE_PATH
#error "RZBENCH_ROOT_CORE_PATH (the release's lib/libCore.so) must be defined by the build"
#endif

namespace {

using ZipFn = void (*)(int, int *, const char *, int *, char *, int *, int);
using UnzipFn = void (*)(int *, const unsigned char *, int *, unsigned char *, int *);
using HeaderFn = int (*)(int *, const unsigned char *, int *);
using SetModeFn = void (*)(int);

struct Core {
   void *handle = nullptr;
   ZipFn zip = nullptr;
   UnzipFn unzip = nullptr;
   HeaderFn header = nullptr;
   SetModeFn set_mode = nullptr;
};

[[noreturn]] void die(const std::string &msg)
{
   std::fprintf(stderr, "rzbench: ROOT release backend: %s\n", msg.c_str());
   std::exit(2);
}

const Core &core()
{
   static Core c;
   static std::once_flag once;
   std::call_once(once, [] {
      c.handle = dlopen(RZBENCH_ROOT_CORE_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      if (c.handle == nullptr)
         die(std::string("cannot load ") + RZBENCH_ROOT_CORE_PATH + ": " + dlerror());
      c.zip = reinterpret_cast<ZipFn>(dlsym(c.handle, "R__zipMultipleAlgorithm"));
      c.unzip = reinterpret_cast<UnzipFn>(dlsym(c.handle, "R__unzip"));
      c.header = reinterpret_cast<HeaderFn>(dlsym(c.handle, "R__unzip_header"));
      c.set_mode = reinterpret_cast<SetModeFn>(dlsym(c.handle, "R__SetZipMode"));
      if (c.zip == nullptr || c.unzip == nullptr || c.header == nullptr)
         die(std::string(RZBENCH_ROOT_CORE_PATH) + " lacks R__zipMultipleAlgorithm / R__unzip / R__unzip_header");
   });
   return c;
}

// --- version functions of the codec copies inside libCore ------------------------------------

// Address of a symbol from the file's full symbol table (.symtab), for functions the release
// links with hidden visibility (its bundled xz and xxhash): not in the dynamic table, so dlsym
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

struct Resolver {
   const Core &c;
   std::string file; // the libCore file the RZip functions come from
   uintptr_t base = 0;
   SymbolTable table;
   bool table_ok = false;

   explicit Resolver(const Core &core_) : c(core_), table(loaded_file(core_))
   {
      link_map *lm = nullptr;
      if (dlinfo(c.handle, RTLD_DI_LINKMAP, &lm) == 0 && lm != nullptr)
         base = static_cast<uintptr_t>(lm->l_addr);
      // Trust the static table only if it agrees with the loader on an exported function.
      void *exported = dlsym(c.handle, "R__zipMultipleAlgorithm");
      const uint64_t v = table.find("R__zipMultipleAlgorithm");
      table_ok = exported != nullptr && v != 0 && base + v == reinterpret_cast<uintptr_t>(exported);
   }

   static std::string loaded_file(const Core &core_)
   {
      Dl_info info{};
      if (dladdr(reinterpret_cast<void *>(core_.zip), &info) != 0 && info.dli_fname != nullptr)
         return info.dli_fname;
      return RZBENCH_ROOT_CORE_PATH;
   }

   // The function as libCore's own code reaches it: its dynamic symbol (deep-bound, so libCore's
   // copy if it has one, else the dependency it links, e.g. the host's libz), or else the
   // hidden copy inside libCore from the static symbol table.
   void *resolve(const char *name) const
   {
      if (void *p = dlsym(c.handle, name))
         return p;
      if (!table_ok)
         return nullptr;
      const uint64_t v = table.find(name);
      return v != 0 ? reinterpret_cast<void *>(base + v) : nullptr;
   }
};

std::string version_number(unsigned v)
{
   std::ostringstream s;
   s << v / 10000 << '.' << (v / 100) % 100 << '.' << v % 100;
   return s.str();
}

} // namespace

extern "C" void R__zipMultipleAlgorithm(int cxlevel, int *srcsize, char *src, int *tgtsize, char *tgt, int *irep,
                                        int algorithm)
{
   core().zip(cxlevel, srcsize, src, tgtsize, tgt, irep, algorithm);
}

extern "C" void R__unzip(int *srcsize, unsigned char *src, int *tgtsize, unsigned char *tgt, int *irep)
{
   core().unzip(srcsize, src, tgtsize, tgt, irep);
}

extern "C" int R__unzip_header(int *srcsize, unsigned char *src, int *tgtsize)
{
   return core().header(srcsize, src, tgtsize);
}

extern "C" void R__SetZipMode(int mode)
{
   if (core().set_mode != nullptr)
      core().set_mode(mode);
}

namespace rzbench {

nlohmann::json codec_info()
{
   const Resolver r(core());
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
   const std::string version = root_release_version();
   return {{"set", "root-" + version}, {"root_version", version}, {"libraries", libs}};
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
   return Resolver::loaded_file(core());
}

} // namespace rzbench
