#include "tetrad/experiment/toml_reader.h"

#include <fmt/format.h>

#include "tetrad/core/error.h"

namespace tetrad::experiment {

SourceRef TomlReader::at(const toml::source_region& region) const {
  return SourceRef{file_, int(region.begin.line), int(region.begin.column)};
}

SourceRef TomlReader::placeOf(const toml::table& root, std::string_view key) const {
  for (auto&& [k, node] : root) {
    if (k.str() == key) return at(k.source());
  }
  return SourceRef{file_, 0, 0};
}

void TomlReader::fail(const toml::key& key, std::string_view message) const {
  TETRAD_FAIL(InvalidArgument, "{}: key '{}': {}", at(key.source()).toString(), key.str(), message);
}

void TomlReader::wrongType(const toml::node& node, const toml::key& key, std::string_view table,
                           std::string_view expected) const {
  TETRAD_FAIL(InvalidArgument, "{}: key '{}' in {}: must be {}, not {}",
              at(node.source()).toString(), key.str(), table, expected, typeName(node));
}

void TomlReader::unknownKey(const toml::key& key, std::string_view table,
                            std::string_view known) const {
  TETRAD_FAIL(InvalidArgument, "{}: unknown key '{}' in {} (known: {})",
              at(key.source()).toString(), key.str(), table, known);
}

std::string_view TomlReader::typeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

const toml::table& TomlReader::tableOf(const toml::node& node, const toml::key& key,
                                       std::string_view table) const {
  if (!node.is_table()) wrongType(node, key, "the top level", "a table ([workload])");
  return *node.as_table();
}

const toml::array& TomlReader::arrayOfTables(const toml::node& node, const toml::key& key) const {
  const std::string expected = fmt::format("an array of tables ([[{}]])", key.str());
  if (!node.is_array_of_tables() && !(node.is_array() && node.as_array()->empty())) {
    wrongType(node, key, "the top level", expected);
  }
  return *node.as_array();
}

std::string TomlReader::stringValue(const toml::node& node, const toml::key& key,
                                    std::string_view table) const {
  if (!node.is_string()) wrongType(node, key, table, "a string");
  return node.as_string()->get();
}

std::vector<std::string> TomlReader::stringList(const toml::node& node, const toml::key& key,
                                                std::string_view table) const {
  if (!node.is_array()) wrongType(node, key, table, "an array of strings");
  std::vector<std::string> values;
  for (const toml::node& element : *node.as_array()) {
    if (!element.is_string()) wrongType(element, key, table, "an array of strings");
    values.push_back(element.as_string()->get());
  }
  return values;
}

Setting TomlReader::settingOf(const SettingKey& entry, const toml::node& node, const toml::key& key,
                              const std::string& table) const {
  Setting setting{&entry, {}, at(key.source()), table};
  const std::string expected(describeKind(entry.kind));
  switch (entry.kind) {
    case ValueKind::kString:
      setting.values = {stringValue(node, key, table)};
      break;
    case ValueKind::kInteger:
      if (!node.is_integer()) wrongType(node, key, table, expected);
      setting.values = {std::to_string(node.as_integer()->get())};
      break;
    case ValueKind::kNumber:
      if (!node.is_number()) wrongType(node, key, table, expected);
      setting.values = {canonicalNumber(node.value<double>().value())};
      break;
    case ValueKind::kStringOrInteger:
      if (node.is_integer()) {
        setting.values = {std::to_string(node.as_integer()->get())};
      } else {
        if (!node.is_string()) wrongType(node, key, table, expected);
        setting.values = {node.as_string()->get()};
      }
      break;
    case ValueKind::kStringList:
    case ValueKind::kRawArguments:
      setting.values = stringList(node, key, table);
      break;
    case ValueKind::kBoolean:
      if (!node.is_boolean()) wrongType(node, key, table, expected);
      setting.values = {node.as_boolean()->get() ? "true" : "false"};
      break;
  }
  return setting;
}

}  // namespace tetrad::experiment
