// The C++ frontend's layers: one header that gives them all. Each family lives in its own header (below), with
// PyTorch's parameter names, shapes and default initialisation, so that a model defined in C++ has the same
// state_dict keys as the same model in Python; each forward calls the C++ functional op the Python layer uses.
#pragma once

#include "ember/nn/module.h"
#include "ember/nn/modules_basic.h"        // Linear, Bilinear, Identity, Flatten, Unflatten, containers
#include "ember/nn/modules_conv.h"         // Conv1d/2d/3d, ConvTranspose1d/2d/3d
#include "ember/nn/modules_norm.h"         // BatchNorm, InstanceNorm, LayerNorm, GroupNorm, LocalResponseNorm
#include "ember/nn/modules_act.h"          // activations, Softmax/LogSoftmax/Softmin, PReLU
#include "ember/nn/modules_pool.h"         // max/avg/adaptive pooling, MaxUnpool
#include "ember/nn/modules_loss.h"         // the losses
#include "ember/nn/modules_misc.h"         // dropout, embeddings, padding, resampling, distances
#include "ember/nn/modules_rnn.h"          // RNN, LSTM, GRU and their cells
#include "ember/nn/modules_transformer.h"  // MultiheadAttention and the Transformer layers
