"""Programs that reach the path of ``tinytorch/_cpu/sgd.py`` (SGD's update on the arrays): target ->
[make(rng, dtype, shape) yielding (name, fn, arrays)]. Each program runs three steps of an optimizer on fresh
parameters made from the arrays, with fixed gradients, and returns the parameters and momentum buffers."""
import numpy as np

import tinytorch as tt

CONFIGS = {
    "plain": {},
    "momentum": {"momentum": 0.9},
    "dampening": {"momentum": 0.8, "dampening": 0.3},
    "nesterov": {"momentum": 0.7, "nesterov": True},
    "weight decay": {"weight_decay": 0.01},
    "maximize": {"maximize": True, "momentum": 0.5, "weight_decay": 0.1},
}


def _steps(grads, config, dtypes=None, transposed=()):
    def run(*leaves):
        params = [tt.nn.Parameter(x.detach().clone() if dtypes is None else x.detach().to(dtypes[i]))
                  for i, x in enumerate(leaves)]
        opt = tt.optim.SGD(params, lr=0.37, **config)
        for step in range(3):
            for i, (p, g) in enumerate(zip(params, grads)):
                g = tt.tensor(g[step]).to(p.dtype)
                p.grad = g.t().contiguous().t() if i in transposed else g
            opt.step()
        bufs = [opt.state[p]["momentum_buffer"] for p in params if "momentum_buffer" in opt.state[p]]
        return tuple(t.detach().clone() for t in params + bufs)
    return run


def _sgd(rng, dtype, shape):
    shapes = [shape, (3, 7), (1023,), (130, 131), ()]  # small ones gathered, a large one by whole blocks
    arrays = [np.asarray(rng.standard_normal(s), dtype=dtype) for s in shapes]
    grads = [[np.asarray(rng.standard_normal(s), dtype=dtype) for _ in range(3)] for s in shapes]
    for name, config in CONFIGS.items():
        yield name, _steps(grads, config), arrays
        yield f"{name}, one parameter", _steps(grads[:1], config), arrays[:1]
    yield "transposed gradient", _steps(grads, {}, transposed=(1,)), arrays
    # a half parameter among them: the path hands it to the reference
    dtypes = [tt.float16] + [getattr(tt, np.dtype(dtype).name)] * (len(shapes) - 1)
    yield "half parameter", _steps(grads, {}, dtypes), arrays
    yield "half parameter, momentum", _steps(grads, {"momentum": 0.9}, dtypes), arrays


def _functional(rng, dtype, shape):
    p = np.asarray(rng.standard_normal(shape), dtype=dtype)
    g = np.asarray(rng.standard_normal(shape), dtype=dtype)

    def run(x):
        params, bufs = [x.detach().clone()], [None]
        tt.optim.sgd.sgd(params, [tt.tensor(g)], bufs, weight_decay=0.1, momentum=0.9, lr=0.2, dampening=0.0,
                         nesterov=True, maximize=False)
        return params[0], bufs[0]
    yield "sgd()", run, [p]


PROGRAMS = {
    "sgd._sgd": [_sgd, _functional],
}
