// Finding the shipped configs folder (shipped_files.h).
#include "tetrad/core/shipped_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "tetrad/core/error.h"

namespace tetrad {
namespace {

namespace fs = std::filesystem;

std::string searchUp(fs::path from) {
  std::error_code ec;
  for (fs::path dir = from; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / "configs" / "devices", ec)) return (dir / "configs").string();
    if (dir == dir.parent_path()) break;
  }
  return "";
}

}  // namespace

std::string shippedConfigDir() {
  if (const char* env = std::getenv("TETRAD_CONFIGS"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    if (std::string found = searchUp(exe.parent_path()); !found.empty()) return found;
  }
  const fs::path cwd = fs::current_path(ec);
  return ec ? std::string() : searchUp(cwd);
}

std::string shippedConfigPath(std::string_view relative) {
  const std::string dir = shippedConfigDir();
  TETRAD_CHECK(!dir.empty(), InvalidArgument,
               "cannot find tetrad's configs folder for '{}' (set TETRAD_CONFIGS to the "
               "checkout's configs/)",
               relative);
  return (fs::path(dir) / relative).string();
}

}  // namespace tetrad
