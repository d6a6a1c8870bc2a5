// Machine fingerprint from cpuid / HWCAP, /proc/cpuinfo, sysfs and uname. Values that cannot be
// read are null (governor, boost) rather than guessed.
#include "rzbench/fingerprint.hpp"

#include "rzbench/codec_versions.hpp"
#include "rzbench/dataset.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <lz4.h>
#include <lzma.h>
#include <set>
#include <sstream>
#include <string>
#include <sys/utsname.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#ifndef RZBENCH_COMPILER
#define RZBENCH_COMPILER "unknown"
#endif
#ifndef RZBENCH_CXX_FLAGS
#define RZBENCH_CXX_FLAGS ""
#endif

namespace rzbench {

using nlohmann::json;

const char *backend_name()
{
#ifdef RZBENCH_BACKEND_ROOT
   return "root";
#elif defined(RZBENCH_FAULT_NAME)
   return "rootcompat-FAULT-" RZBENCH_FAULT_NAME; // a test build that writes wrong bytes
#else
   return "rootcompat";
#endif
}

namespace {

std::string read_first_line(const std::string &path)
{
   std::ifstream in(path);
   std::string line;
   if (in && std::getline(in, line)) {
      while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r'))
         line.pop_back();
      return line;
   }
   return "";
}

std::string trim(const std::string &s)
{
   const auto b = s.find_first_not_of(" \t");
   const auto e = s.find_last_not_of(" \t");
   return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// First value of each key in /proc/cpuinfo, plus the count of distinct (physical id, core id).
struct CpuInfo {
   std::string model, vendor, flags, features, implementer, part;
   int family = -1, model_no = -1;
   int physical_cores = 0;
};

CpuInfo read_cpuinfo()
{
   CpuInfo ci;
   std::ifstream in("/proc/cpuinfo");
   std::string line, phys;
   std::set<std::string> cores;
   while (std::getline(in, line)) {
      const auto colon = line.find(':');
      if (colon == std::string::npos)
         continue;
      const std::string key = trim(line.substr(0, colon));
      const std::string val = trim(line.substr(colon + 1));
      if (key == "model name" && ci.model.empty())
         ci.model = val;
      else if (key == "vendor_id" && ci.vendor.empty())
         ci.vendor = val;
      else if (key == "cpu family" && ci.family < 0)
         ci.family = std::atoi(val.c_str());
      else if (key == "model" && ci.model_no < 0 && !val.empty() && std::isdigit(static_cast<unsigned char>(val[0])))
         ci.model_no = std::atoi(val.c_str());
      else if (key == "flags" && ci.flags.empty())
         ci.flags = " " + val + " ";
      else if (key == "Features" && ci.features.empty())
         ci.features = " " + val + " ";
      else if (key == "CPU implementer" && ci.implementer.empty())
         ci.implementer = val;
      else if (key == "CPU part" && ci.part.empty())
         ci.part = val;
      else if (key == "physical id")
         phys = val;
      else if (key == "core id")
         cores.insert(phys + ":" + val);
   }
   ci.physical_cores = static_cast<int>(cores.size());
   return ci;
}

json isa_flags(const CpuInfo &ci)
{
   json isa = {{"sse4_2", false}, {"avx2", false}, {"avx512f", false}, {"pclmul", false}, {"crc32", false},
               {"neon", false}};
#if defined(__x86_64__) || defined(__i386__)
   unsigned a = 0, b = 0, c = 0, d = 0;
   if (__get_cpuid(1, &a, &b, &c, &d)) {
      isa["sse4_2"] = (c & bit_SSE4_2) != 0;
      isa["pclmul"] = (c & bit_PCLMUL) != 0;
      isa["crc32"] = (c & bit_SSE4_2) != 0; // the CRC32 instruction is part of SSE4.2
   }
   if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
      isa["avx2"] = (b & bit_AVX2) != 0;
      isa["avx512f"] = (b & bit_AVX512F) != 0;
   }
   (void)ci;
#elif defined(__aarch64__)
   const unsigned long hw = getauxval(AT_HWCAP);
   isa["crc32"] = (hw & HWCAP_CRC32) != 0;
   isa["neon"] = (hw & HWCAP_ASIMD) != 0;
   isa["pclmul"] = (hw & HWCAP_PMULL) != 0;
   (void)ci;
#else
   auto has = [&](const char *f) { return ci.flags.find(std::string(" ") + f + " ") != std::string::npos; };
   isa["sse4_2"] = has("sse4_2");
   isa["avx2"] = has("avx2");
   isa["avx512f"] = has("avx512f");
   isa["pclmul"] = has("pclmulqdq");
#endif
   return isa;
}

json cache_sizes()
{
   json caches = json::object();
   for (int i = 0; i < 16; ++i) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      const std::string level = read_first_line(dir + "level");
      if (level.empty())
         break;
      const std::string type = read_first_line(dir + "type");
      std::string size = read_first_line(dir + "size");
      if (size.empty())
         continue;
      long long bytes = std::atoll(size.c_str());
      if (size.back() == 'K')
         bytes *= 1024;
      else if (size.back() == 'M')
         bytes *= 1024 * 1024;
      std::string name = "l" + level;
      if (type == "Data")
         name += "d";
      else if (type == "Instruction")
         name += "i";
      caches[name] = bytes;
   }
   return caches;
}

json governor()
{
   const std::string g = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
   return g.empty() ? json(nullptr) : json(g);
}

json boost()
{
   const std::string b = read_first_line("/sys/devices/system/cpu/cpufreq/boost");
   if (!b.empty())
      return b == "1";
   const std::string no_turbo = read_first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
   if (!no_turbo.empty())
      return no_turbo == "0";
   return nullptr;
}

std::string hostname()
{
   char buf[256] = {0};
   if (gethostname(buf, sizeof buf - 1) != 0)
      return "unknown";
   return buf;
}

} // namespace

json library_versions()
{
   const unsigned xxh = XXH_versionNumber();
   std::ostringstream xs;
   xs << xxh / 10000 << '.' << (xxh / 100) % 100 << '.' << xxh % 100;
   return {{"zlib", zlibVersion()},
           {"lzma", lzma_version_string()},
           {"lz4", LZ4_versionString()},
           {"zstd", ZSTD_versionString()},
           {"xxhash", xs.str()}};
}

json machine_fingerprint()
{
   const CpuInfo ci = read_cpuinfo();
   struct utsname u {};
   uname(&u);
   json m;
   m["hostname"] = hostname();
   m["arch"] = u.machine;
   std::string model = ci.model;
   if (model.empty() && !ci.implementer.empty())
      model = "implementer " + ci.implementer + " part " + ci.part;
   m["cpu_model"] = model.empty() ? "unknown" : model;
   m["vendor"] = ci.vendor.empty() ? (ci.implementer.empty() ? "unknown" : ci.implementer) : ci.vendor;
   m["family"] = ci.family >= 0 ? json(ci.family) : json(nullptr);
   m["model"] = ci.model_no >= 0 ? json(ci.model_no) : json(nullptr);
   m["isa"] = isa_flags(ci);
   m["caches"] = cache_sizes();
   const long logical = sysconf(_SC_NPROCESSORS_ONLN);
   m["cores_logical"] = logical > 0 ? logical : 1;
   m["cores_physical"] = ci.physical_cores > 0 ? json(ci.physical_cores) : json(nullptr);
   m["kernel"] = std::string(u.sysname) + " " + u.release;
   m["governor"] = governor();
   m["boost"] = boost();
   m["compiler"] = RZBENCH_COMPILER;
   m["compiler_flags"] = RZBENCH_CXX_FLAGS;
   m["libraries"] = library_versions();
   m["backend"] = backend_name();
   const std::string release = root_release_version();
   m["root_version"] = release.empty() ? json(nullptr) : json(release);
   // Hash over everything that defines the machine except the hostname (and the hash itself).
   // The codec build (backend, ROOT release) is recorded but not hashed: one machine measures
   // ROOT commits, releases and rootcompat alike, and its history must show them side by side;
   // each document's "codecs" says which code ran. nlohmann::json objects are key-sorted, so the
   // dump is canonical.
   json hashed = m;
   hashed.erase("hostname");
   hashed.erase("backend");
   hashed.erase("root_version");
   const std::string canon = hashed.dump();
   m["fingerprint_hash"] = xxh64_hex(reinterpret_cast<const uint8_t *>(canon.data()), canon.size());
   return m;
}

} // namespace rzbench
