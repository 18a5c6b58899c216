"""``tinytorch.nn.grad``: the gradients of a 1-, 2- or 3-d convolution with respect to its input and
to its weight, given the gradient of its output. A convolution is linear in each argument, so each
is the gradient of the convolution taken at zeros of the requested size."""
from __future__ import annotations

from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from .._ops.creation.factory import zeros
from . import functional as F


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        probe = zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
        out = conv(probe, weight.detach(), None, stride, padding, dilation, groups)
        return _autograd_grad(out, probe, grad_output.detach())[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        probe = zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
        out = conv(input.detach(), probe, None, stride, padding, dilation, groups)
        return _autograd_grad(out, probe, grad_output.detach())[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv1d)/d(input) applied to ``grad_output``, for an input of ``input_size``."""
    return _input_grad(F.conv1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv1d)/d(weight) applied to ``grad_output``, for a weight of ``weight_size``."""
    return _weight_grad(F.conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv2d)/d(input) applied to ``grad_output``, for an input of ``input_size``."""
    return _input_grad(F.conv2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv2d)/d(weight) applied to ``grad_output``, for a weight of ``weight_size``."""
    return _weight_grad(F.conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv3d)/d(input) applied to ``grad_output``, for an input of ``input_size``."""
    return _input_grad(F.conv3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv3d)/d(weight) applied to ``grad_output``, for a weight of ``weight_size``."""
    return _weight_grad(F.conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)
