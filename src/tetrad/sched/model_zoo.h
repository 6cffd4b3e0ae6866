// The model zoo: layer tables of published models (resnet50, resnet101, vgg16,
// inception3, resnet18-cifar, bert-base, bert-large, gpt2, lstm) for
// timing-only runs, the analytic engine, the advisor and sweeps, without
// LibTorch. The tables are data generated from the reference definitions by
// scripts/gen_model_zoo.py (torchvision for the vision models, plain PyTorch
// modules for the language models) into model_zoo_tables.cc.
//
// A name may carry a sequence length for the sequence models: "bert-base:384"
// (default 128 for BERT, 1024 for gpt2, 30 for lstm: the PowerSGD paper's
// BPTT length). One sample is one image or one sequence. Inputs are the
// models' own (224x224, inception3 299x299, resnet18-cifar 32x32): a zoo
// model ignores the data set's shape.
//
// What is counted (docs/validation.md): every parameter of the module as
// defined (BERT: BertModel with its pooler, no pre-training heads;
// inception3: with its auxiliary classifier; gpt2 and lstm: the output layer
// tied to the input embedding, counted once). Forward FLOPs: 2 per
// multiply-add of convolutions, linear layers, LSTM gates and attention
// products; 4 per output element of BatchNorm.
//
// Pure functions over constant tables; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/sched/model_shapes.h"

namespace tetrad::sched {

// True when `model` (with or without ":SEQ") names a zoo model.
bool isZooModel(std::string_view model);

// The zoo's model names, in table order.
std::vector<std::string> zooModelNames();

// The layer table of `model` ("bert-base" or "bert-base:256"); throws
// InvalidArgument naming the known models, or on a bad sequence length.
std::vector<LayerShape> zooLayers(std::string_view model);

}  // namespace tetrad::sched
