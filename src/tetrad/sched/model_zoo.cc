// The model zoo's tables as LayerShapes (model_zoo.h).
#include "tetrad/sched/model_zoo.h"

#include <cstdlib>

#include "tetrad/core/error.h"
#include "tetrad/sched/model_zoo_rows.h"

namespace tetrad::sched {
namespace {

// Every table of every family, in the generator's order.
std::vector<const zoo::ZooTable*> allTables() {
  std::vector<const zoo::ZooTable*> tables;
  for (size_t f = 0; f < zoo::kZooFamilyCount; ++f) {
    const zoo::ZooFamily& family = zoo::kZooFamilies[f];
    for (size_t i = 0; i < *family.tableCount; ++i) tables.push_back(&family.tables[i]);
  }
  return tables;
}

const zoo::ZooTable* findTable(std::string_view base) {
  for (const zoo::ZooTable* table : allTables()) {
    if (base == table->name) return table;
  }
  return nullptr;
}

std::string knownList() {
  std::string names;
  for (const std::string& name : zooModelNames()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

// "NAME=D0xD1" -> name and shape.
void addTensor(LayerShape& layer, std::string_view text) {
  const size_t eq = text.find('=');
  TETRAD_CHECK(eq != std::string_view::npos, InvalidArgument,
               "model zoo: malformed tensor '{}' in layer {}", text, layer.name);
  std::vector<int64_t> shape;
  uint64_t elements = 1;
  std::string_view dims = text.substr(eq + 1);
  while (!dims.empty()) {
    const size_t x = dims.find('x');
    const std::string dim(dims.substr(0, x));
    shape.push_back(std::strtoll(dim.c_str(), nullptr, 10));
    elements *= uint64_t(shape.back());
    dims = x == std::string_view::npos ? std::string_view{} : dims.substr(x + 1);
  }
  layer.tensorNames.emplace_back(text.substr(0, eq));
  layer.tensorShapes.push_back(std::move(shape));
  layer.tensorElements.push_back(elements);
}

}  // namespace

bool isZooModel(std::string_view model) {
  return findTable(model.substr(0, model.find(':'))) != nullptr;
}

std::vector<std::string> zooModelNames() {
  std::vector<std::string> names;
  for (const zoo::ZooTable* table : allTables()) names.emplace_back(table->name);
  return names;
}

std::vector<LayerShape> zooLayers(std::string_view model) {
  const size_t colon = model.find(':');
  const std::string_view base = model.substr(0, colon);
  const zoo::ZooTable* table = findTable(base);
  TETRAD_CHECK(table != nullptr, InvalidArgument, "unknown model '{}' (known: {})", model,
               knownList());
  double sequence = table->defaultSequence;
  if (colon != std::string_view::npos) {
    TETRAD_CHECK(table->defaultSequence > 0, InvalidArgument,
                 "model '{}': {} is an image model and takes no sequence length", model, base);
    const std::string text(model.substr(colon + 1));
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    TETRAD_CHECK(!text.empty() && *end == '\0' && value >= 1 && value <= 1'000'000, InvalidArgument,
                 "model '{}': the sequence length must be an integer >= 1", model);
    sequence = double(value);
  }
  std::vector<LayerShape> layers;
  uint64_t parameters = 0;
  for (size_t r = 0; r < table->rowCount; ++r) {
    const zoo::ZooRow& row = table->rows[r];
    LayerShape layer;
    layer.name = row.name;
    layer.stage = row.stage;
    layer.batchNorm = row.batchNorm;
    layer.forwardFlops = row.c0 + row.c1 * sequence + row.c2 * sequence * sequence;
    std::string_view tensors = row.tensors;
    while (!tensors.empty()) {
      const size_t semi = tensors.find(';');
      addTensor(layer, tensors.substr(0, semi));
      tensors = semi == std::string_view::npos ? std::string_view{} : tensors.substr(semi + 1);
    }
    for (uint64_t e : layer.tensorElements) parameters += e;
    layers.push_back(std::move(layer));
  }
  TETRAD_CHECK(parameters == table->parameters, InvalidArgument,
               "model zoo: table {} holds {} parameters, its header says {}", base, parameters,
               table->parameters);
  return layers;
}

}  // namespace tetrad::sched
