"""Recurrent modules: RNN, LSTM, GRU (the time loop runs in C++: ember/nn/rnn.cpp) and their cells."""

import math
import numbers
import warnings

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                "expects num_layers greater than 1, but got dropout={} and num_layers={}".format(dropout, num_layers)
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size  # the size of h
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [
                    ("weight_ih_l{}{}", (gate_size, layer_input_size)),
                    ("weight_hh_l{}{}", (gate_size, real_hidden_size)),
                ]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:  # h = o * tanh(c) projected by weight_hr: [proj_size, hidden_size]
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                for fmt, shape in shapes:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(_C.empty(*shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    def flatten_parameters(self):
        """Makes the parameters views of one buffer in cuDNN's weight layout, so that each call passes them to cuDNN
        without a copy (Note [Flat RNN weights] in ember/nn/rnn.cpp). A no-op where there is no fused kernel (the
        CPU, cuDNN disabled, bfloat16), when the parameters differ in dtype or device, or when they are already flat.
        The Parameter objects stay the same (an optimizer holding them keeps working)."""
        w = self._flat_weights
        if any(p is None for p in w) or len({(p.device, p.dtype) for p in w}) != 1:
            return
        if len({p.data_ptr() for p in w}) != len(w):  # shared parameters: flattening would untie them
            return
        views = _C._nn._rnn_flatten_weights(w, self.mode, self.num_layers, self.bias, self.bidirectional)
        with no_grad():
            for p, v in zip(w, views):
                p.data = v

    def _apply(self, fn):
        ret = super()._apply(fn)
        self.flatten_parameters()  # as PyTorch: .cuda() / .to() leave the parameters flat
        return ret

    @property
    def all_weights(self):
        per = (4 if self.bias else 2) + (1 if self.proj_size > 0 else 0)
        w = self._flat_weights
        return [w[i : i + per] for i in range(0, len(w), per)]

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _run(self, input, hx):
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is not None and sorted_indices is not None:
                hx = tuple(h.index_select(1, sorted_indices) for h in hx)
        else:
            data, batch_sizes, sorted_indices, unsorted_indices = input, None, None, None
            if not isinstance(input, Tensor):
                raise TypeError(
                    "%s: expected a Tensor or a PackedSequence as input, got %s"
                    % (type(self).__name__, type(input).__name__)
                )
        out, hn, cn = _C._nn._rnn(
            data,
            None if hx is None else list(hx),
            self._flat_weights,
            self.mode,
            self.num_layers,
            self.bias,
            self.batch_first,
            self.dropout,
            self.training,
            self.bidirectional,
            batch_sizes,
        )
        states = (hn, cn) if cn is not None else (hn,)
        if packed:
            out = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
            if unsorted_indices is not None:
                states = tuple(s.index_select(1, unsorted_indices) for s in states)
        return out, states

    def forward(self, input, hx=None):
        out, states = self._run(input, None if hx is None else (hx,))
        return out, states[0]


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:  # RNN(input_size, hidden_size, num_layers, nonlinearity, ...)
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("Unknown nonlinearity '{}'. Select from 'tanh' or 'relu'.".format(nonlinearity))
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        if hx is not None and (not isinstance(hx, tuple) or len(hx) != 2):
            raise RuntimeError("LSTM: expected hx to be a tuple (h_0, c_0)")
        out, states = self._run(input, hx)
        return out, (states[0], states[1])


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(_C.empty(num_chunks * hidden_size, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(_C.empty(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.bias is not True:
            s += ", bias={bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _cell(self, input, h, c):
        return _C._nn._rnn_cell(self._mode, input, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("Unknown nonlinearity: {}".format(nonlinearity))
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input, hx=None):
        return self._cell(input, hx, None)[0]


class LSTMCell(RNNCellBase):
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        h, c = (None, None) if hx is None else hx
        return self._cell(input, h, c)


class GRUCell(RNNCellBase):
    _mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._cell(input, hx, None)[0]
