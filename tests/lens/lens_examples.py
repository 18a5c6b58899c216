"""The lens's examples: twelve small programs a learner meets, each written once against ``torch``.

Each example takes the library (``tinytorch`` or PyTorch) and returns the lens's text for it: the graph
before backward, the trace of the backward, the graph and the table after. The tests run each one on
both libraries and require the same text."""
import tinytorch.lens as lens


def _report(torch, root, params, run):
    """show before, the trace of ``run()``, show and table after."""
    before = str(lens.show(root, params))
    with lens.trace(params) as tr:
        run()
    after = lens.show(root, params)
    return "\n".join(["== show", before, "== trace", str(tr), "== show after", str(after), "== table",
                      str(after.table())])


def leaf_vs_nonleaf(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = torch.tensor([0.5, 0.5, 2.0])
    y = x * c
    z = y + 1
    loss = z.mean()
    return _report(torch, loss, dict(x=x, c=c, y=y, z=z, loss=loss), loss.backward)


def retain_grad(torch):
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    y.retain_grad()
    loss = y.sum()
    return _report(torch, loss, dict(x=x, y=y, loss=loss), loss.backward)


def backward_gradient(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    v = torch.tensor([1.0, 0.1, 0.01])
    return _report(torch, y, dict(x=x, y=y), lambda: y.backward(gradient=v))


def hooks(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    y.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: g + 1)
    w.register_post_accumulate_grad_hook(lambda t: None)
    y.grad_fn.register_prehook(lambda grads: None)
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None)
    loss = y.sum()
    return _report(torch, loss, dict(x=x, w=w, y=y, loss=loss), loss.backward)


def mlp_step(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(2, 2, 2)
    target = torch.tensor([0, 2])
    loss = torch.nn.functional.cross_entropy(model(x), target)
    params = dict(model.named_parameters())

    def step():
        opt.zero_grad()
        loss.backward()
        opt.step()
    return _report(torch, loss, params, step)


def cnn_step(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Flatten(), torch.nn.Linear(2, 2))
    x = torch.randn(1, 1, 4, 4)
    loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([1]))
    return _report(torch, loss, dict(model.named_parameters()), loss.backward)


def double_backward(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x ** 3).sum()

    def run():
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
    return _report(torch, y, dict(x=x, y=y), run)


def grad_with_inputs(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    loss = (x * w).sum()

    def run():
        torch.autograd.grad(loss, [x], retain_graph=True)
        loss.backward(inputs=[w])
    return _report(torch, loss, dict(x=x, w=w, loss=loss), run)


def shared_subexpression(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    a = x * 2
    b = a.exp() + a
    loss = (a * b).sum()
    return _report(torch, loss, dict(x=x, a=a, b=b, loss=loss), loss.backward)


def view_inplace(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    v = y[1:]
    v.mul_(3)
    loss = y.sum()
    return _report(torch, loss, dict(x=x, y=y, loss=loss), loss.backward)


def custom_function(torch):
    class MyExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    loss = MyExp.apply(x).sum()
    return _report(torch, loss, dict(x=x, loss=loss), loss.backward)


def lstm_step(torch):
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, 3)
    x = torch.randn(2, 1, 2)
    out, _ = lstm(x)
    loss = out.sum()
    return _report(torch, loss, dict(lstm.named_parameters()), loss.backward)


EXAMPLES = [leaf_vs_nonleaf, retain_grad, backward_gradient, hooks, mlp_step, cnn_step, double_backward,
            grad_with_inputs, shared_subexpression, view_inplace, custom_function, lstm_step]
