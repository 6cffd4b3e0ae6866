// TomlReader: the located reading of a TOML document that the sweep-file
// parser (sweep_file.cc) is built on. Every value it reads is type-checked,
// and every complaint is one InvalidArgument line that starts with
// FILE:LINE:COLUMN (SourceRef) and names the key, the table, what the key
// must be and what it is ("a string", "an integer", ...). Settings
// (setting_keys.h) are read into canonical text here, so that a sweep's
// settings compare and print the same whatever TOML spelling they had.
//
// Ownership and threads: a value holding the file's name; one parse at a
// time, on the caller's thread.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/experiment/setting_keys.h"
#include "tetrad/experiment/sweep_spec.h"

namespace tetrad::experiment {

class TomlReader {
 public:
  explicit TomlReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  SourceRef at(const toml::source_region& region) const;
  // Where `key` sits in `root`, or the file alone.
  SourceRef placeOf(const toml::table& root, std::string_view key) const;

  [[noreturn]] void fail(const toml::key& key, std::string_view message) const;
  [[noreturn]] void wrongType(const toml::node& node, const toml::key& key, std::string_view table,
                              std::string_view expected) const;
  [[noreturn]] void unknownKey(const toml::key& key, std::string_view table,
                               std::string_view known) const;
  // "a string", "an integer", "a float", "a boolean", "an array", "a table".
  static std::string_view typeName(const toml::node& node);

  const toml::table& tableOf(const toml::node& node, const toml::key& key,
                             std::string_view table) const;
  // An array of tables ([[key]]), or an empty array.
  const toml::array& arrayOfTables(const toml::node& node, const toml::key& key) const;
  std::string stringValue(const toml::node& node, const toml::key& key,
                          std::string_view table) const;
  std::vector<std::string> stringList(const toml::node& node, const toml::key& key,
                                      std::string_view table) const;
  // Converts a setting's value to canonical text, checking its TOML type.
  Setting settingOf(const SettingKey& entry, const toml::node& node, const toml::key& key,
                    const std::string& table) const;

 protected:
  std::string file_;
};

}  // namespace tetrad::experiment
