// The C++ frontend's layers: one header that gives them all. Each family lives in its own header under
// ember/nn/modules/, with PyTorch's parameter names, shapes and default initialisation, so that a model defined in C++
// has the same state_dict keys as the same model in Python; each forward calls the C++ functional op
// (ember/nn/functional/) that the Python layer uses.
#pragma once

#include "ember/nn/modules/activation.h"     // activations, Softmax/LogSoftmax/Softmin, PReLU
#include "ember/nn/modules/container.h"      // Sequential, ModuleList, ModuleDict
#include "ember/nn/modules/conv.h"           // Conv1d/2d/3d, ConvTranspose1d/2d/3d
#include "ember/nn/modules/distance.h"       // CosineSimilarity, PairwiseDistance
#include "ember/nn/modules/dropout.h"        // Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout
#include "ember/nn/modules/embedding.h"      // Embedding, EmbeddingBag
#include "ember/nn/modules/flatten.h"        // Flatten, Unflatten
#include "ember/nn/modules/linear.h"         // Linear, Bilinear, Identity
#include "ember/nn/modules/loss.h"           // the losses
#include "ember/nn/modules/module.h"         // Module
#include "ember/nn/modules/normalization.h"  // BatchNorm, InstanceNorm, LayerNorm, GroupNorm, LocalResponseNorm
#include "ember/nn/modules/padding.h"        // the Pad layers
#include "ember/nn/modules/pooling.h"        // max/avg/adaptive pooling, MaxUnpool
#include "ember/nn/modules/rnn.h"            // RNN, LSTM, GRU and their cells
#include "ember/nn/modules/serialize.h"      // save and load a module's state
#include "ember/nn/modules/spatial.h"        // Upsample, PixelShuffle/Unshuffle, ChannelShuffle, Fold, Unfold
#include "ember/nn/modules/transformer.h"    // MultiheadAttention and the Transformer layers
