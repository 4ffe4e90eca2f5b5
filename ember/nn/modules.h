// The C++ frontend's layers: one header that gives them all. Each family lives in its own header (below), with
// PyTorch's parameter names, shapes and default initialisation, so that a model defined in C++ has the same
// state_dict keys as the same model in Python; each forward calls the C++ functional op the Python layer uses.
#pragma once

#include "ember/nn/modules/module.h"
#include "ember/nn/modules/linear.h"        // Linear, Bilinear, Identity, Flatten, Unflatten, containers
#include "ember/nn/modules/conv.h"         // Conv1d/2d/3d, ConvTranspose1d/2d/3d
#include "ember/nn/modules/normalization.h"         // BatchNorm, InstanceNorm, LayerNorm, GroupNorm, LocalResponseNorm
#include "ember/nn/modules/activation.h"          // activations, Softmax/LogSoftmax/Softmin, PReLU
#include "ember/nn/modules/pooling.h"         // max/avg/adaptive pooling, MaxUnpool
#include "ember/nn/modules/loss.h"         // the losses
#include "ember/nn/modules/spatial.h"         // dropout, embeddings, padding, resampling, distances
#include "ember/nn/modules/rnn.h"          // RNN, LSTM, GRU and their cells
#include "ember/nn/modules/transformer.h"  // MultiheadAttention and the Transformer layers
