// torch.nn.functional's ops in C++: one header that gives them all (one per topic under ember/nn/functional/). They
// are in namespace ember, beside the tensor ops of ember/ops.h.
#pragma once

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/rnn.h"
#include "ember/nn/functional/spatial.h"
