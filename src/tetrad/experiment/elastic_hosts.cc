#include "tetrad/experiment/elastic_hosts.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

bool validHostName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' || ch == '_';
  });
}

int parseSlots(const std::string& text, const std::string& origin, int line) {
  size_t used = 0;
  int slots = 0;
  try {
    slots = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  TETRAD_CHECK(used == text.size() && slots >= 1 && slots <= 1 << 20, InvalidArgument,
               "{} line {}: invalid slot count '{}': a whole number >= 1", origin, line, text);
  return slots;
}

void addHost(std::vector<ElasticHost>& hosts, const std::string& name, int slots,
             const std::string& origin, int line) {
  TETRAD_CHECK(validHostName(name), InvalidArgument, "{} line {}: invalid host name '{}'", origin,
               line, name);
  for (ElasticHost& host : hosts) {
    if (host.name == name) {
      host.slots += slots;
      return;
    }
  }
  hosts.push_back({name, slots});
}

}  // namespace

std::vector<ElasticHost> parseHostfile(const std::string& text, const std::string& origin) {
  std::vector<ElasticHost> hosts;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = trimmed(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::istringstream words(line);
    std::string name, word;
    words >> name;
    int slots = 1;
    while (words >> word) {
      if (word.starts_with("slots=")) {
        slots = parseSlots(word.substr(6), origin, number);
      } else if (word.starts_with("max_slots=")) {
        parseSlots(word.substr(10), origin, number);  // checked; the slots decide
      } else {
        TETRAD_FAIL(InvalidArgument, "{} line {}: unknown field '{}' (expected slots=N)", origin,
                    number, word);
      }
    }
    addHost(hosts, name, slots, origin, number);
  }
  return hosts;
}

std::vector<ElasticHost> parseDiscoveredHosts(const std::string& text, const std::string& origin) {
  std::vector<ElasticHost> hosts;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = trimmed(line);
    if (line.empty()) continue;
    const size_t colon = line.find(':');
    const int slots =
        colon == std::string::npos ? 1 : parseSlots(line.substr(colon + 1), origin, number);
    addHost(hosts, line.substr(0, colon), slots, origin, number);
  }
  return hosts;
}

int totalSlots(const std::vector<ElasticHost>& hosts) {
  int total = 0;
  for (const ElasticHost& host : hosts) total += host.slots;
  return total;
}

std::string hostArgument(const std::vector<ElasticHost>& hosts, int workers) {
  std::string argument;
  for (const ElasticHost& host : hosts) {
    if (workers <= 0) break;
    const int take = std::min(workers, host.slots);
    argument += fmt::format("{}{}:{}", argument.empty() ? "" : ",", host.name, take);
    workers -= take;
  }
  return argument;
}

std::vector<int> ranksLostBySignal(const std::string& mpirunOutput) {
  static const std::regex pattern(R"(process rank (\d+) with PID \d+ on node \S+ exited on signal)");
  std::vector<int> ranks;
  for (auto it = std::sregex_iterator(mpirunOutput.begin(), mpirunOutput.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    const int rank = std::stoi((*it)[1].str());
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) ranks.push_back(rank);
  }
  return ranks;
}

std::vector<int> ranksSilentAfterTimeouts(const std::string& output, int workers) {
  static const std::regex reporter(R"(rank (\d+): )");
  static const std::regex peer(R"((?:from|to) rank (\d+))");
  std::vector<bool> reported(size_t(std::max(workers, 0)), false);
  std::vector<int> named;
  bool any = false;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.find("timed out after") == std::string::npos) continue;
    std::smatch match;
    if (std::regex_search(line, match, reporter)) {
      const int rank = std::stoi(match[1].str());
      if (rank >= 0 && rank < workers) reported[size_t(rank)] = any = true;
    }
    if (std::regex_search(line, match, peer)) {
      const int rank = std::stoi(match[1].str());
      if (std::find(named.begin(), named.end(), rank) == named.end()) named.push_back(rank);
    }
  }
  if (!any) return {};
  std::vector<int> silent;
  for (int r = 0; r < workers; ++r) {
    if (!reported[size_t(r)]) silent.push_back(r);
  }
  return silent.empty() ? named : silent;
}

}  // namespace tetrad::experiment
