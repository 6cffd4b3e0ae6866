#include "tetrad/experiment/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>

#include "tetrad/core/error.h"

extern char** environ;

namespace tetrad::experiment {
namespace {
constexpr auto kKillGrace = std::chrono::seconds(3);
constexpr auto kPollInterval = std::chrono::milliseconds(20);

std::string joined(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& a : argv) text += (text.empty() ? "" : " ") + a;
  return text;
}
}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& logPath,
                           const std::string& workDir, bool ownGroup)
    : ownGroup_(ownGroup) {
  TETRAD_CHECK(!argv.empty(), InvalidArgument, "empty command line");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  if (!workDir.empty()) posix_spawn_file_actions_addchdir_np(&actions, workDir.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (ownGroup) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  const int error = posix_spawnp(&pid_, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  TETRAD_CHECK(error == 0, Error, "cannot start '{}': {}", joined(argv), std::strerror(error));
  running_ = true;
}

void ChildProcess::killGroup(int signal) {
  if (running_) ::kill(ownGroup_ ? -pid_ : pid_, signal);
}

ChildProcess::~ChildProcess() {
  if (!running_) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kKillGrace;
  while (!poll() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
  }
  if (running_) {
    ::kill(ownGroup_ ? -pid_ : pid_, SIGKILL);
    wait();
  }
}

void ChildProcess::reaped(int status) {
  running_ = false;
  exitStatus_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool ChildProcess::poll() {
  if (!running_) return true;
  int status = 0;
  const pid_t result = ::waitpid(pid_, &status, WNOHANG);
  if (result == pid_) reaped(status);
  if (result < 0 && errno != EINTR) {
    running_ = false;  // already reaped elsewhere: treat as lost
    exitStatus_ = 255;
  }
  return !running_;
}

int ChildProcess::wait() {
  while (running_) {
    int status = 0;
    const pid_t result = ::waitpid(pid_, &status, 0);
    if (result == pid_) {
      reaped(status);
    } else if (result < 0 && errno != EINTR) {
      running_ = false;
      exitStatus_ = 255;
    }
  }
  return exitStatus_;
}

int runToCompletion(const std::vector<std::string>& argv, const std::string& logPath,
                    const std::string& workDir) {
  ChildProcess child(argv, logPath, workDir);
  return child.wait();
}

std::string tailOfFile(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    // Progress lines rewritten in place: keep the last state only.
    if (const size_t cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    last.push_back(line);
    if (int(last.size()) > lines) last.pop_front();
  }
  std::string text;
  for (const std::string& l : last) text += l + "\n";
  return text;
}

}  // namespace tetrad::experiment
