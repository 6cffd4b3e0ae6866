// The row format of the model zoo's generated layer tables
// (model_zoo_{resnet,vision,bert,sequence}.cc and their index
// model_zoo_tables.cc, written by scripts/gen_model_zoo.py; read by
// model_zoo.cc). Plain constant data; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace tetrad::sched::zoo {

// One layer (a module that owns parameters), in registration order.
struct ZooRow {
  const char* name;     // "layer1.0.conv1", "encoder.layer.3.attention.self.query"
  const char* stage;    // the forward stage (block) it belongs to
  const char* tensors;  // "NAME=D0xD1;NAME=D0", registration order
  // Forward FLOPs of one sample of L tokens: c0 + c1 L + c2 L^2 (vision
  // models: c0 only).
  double c0, c1, c2;
  bool batchNorm;
};

struct ZooTable {
  const char* name;
  const ZooRow* rows;
  size_t rowCount;
  uint64_t parameters;  // the generator's count (checked again at load)
  int defaultSequence;  // 0: an image model
};

// The tables of one generated file (model_zoo_FAMILY.cc).
struct ZooFamily {
  const char* name;  // "resnet", "vision", "bert", "sequence"
  const ZooTable* tables;
  const size_t* tableCount;  // another file's constant: read after static initialisation
};

extern const ZooFamily kZooFamilies[];  // model_zoo_tables.cc
extern const size_t kZooFamilyCount;

}  // namespace tetrad::sched::zoo
