import numpy as np, torch, tinytorch as tt, traceback
rng=np.random.default_rng(0)
def c(*s): return (rng.standard_normal(s)+1j*rng.standard_normal(s)).astype(np.complex64)
def cmp(name, fn_t, fn_tt, arrs, extra=None):
    try:
        ta=[torch.tensor(a,requires_grad=True) for a in arrs]
        xa=[tt.tensor(a,requires_grad=True) for a in arrs]
        yt=fn_t(torch,ta); yx=fn_tt(tt,xa)
        ok=np.allclose(yt.detach().numpy(), yx.detach().numpy(),atol=1e-4)
        go=c(*yt.shape) if yt.is_complex() else rng.standard_normal(yt.shape).astype(np.float32)
        yt.backward(torch.tensor(go)); yx.backward(tt.tensor(go))
        gok=[np.allclose(a.grad.numpy(), b.grad.numpy(),atol=1e-3) for a,b in zip(ta,xa)]
        print(name, ok, yt.dtype, yx.dtype, gok, yt.grad_fn.name(), type(yx.grad_fn).__name__)
    except Exception as e:
        print(name, "ERR", type(e).__name__, e)
cmp("linear", lambda T,a: T.nn.functional.linear(a[0],a[1],a[2]), lambda T,a: T.nn.functional.linear(a[0],a[1],a[2]), [c(4,3),c(5,3),c(5)])
cmp("linear3d", lambda T,a: T.nn.functional.linear(a[0],a[1],a[2]), lambda T,a: T.nn.functional.linear(a[0],a[1],a[2]), [c(2,4,3),c(5,3),c(5)])
cmp("linear_nob", lambda T,a: T.nn.functional.linear(a[0],a[1]), lambda T,a: T.nn.functional.linear(a[0],a[1]), [c(4,3),c(5,3)])
cmp("conv1d", lambda T,a: T.nn.functional.conv1d(a[0],a[1],a[2],padding=1), lambda T,a: T.nn.functional.conv1d(a[0],a[1],a[2],padding=1), [c(2,3,8),c(4,3,3),c(4)])
cmp("conv2d", lambda T,a: T.nn.functional.conv2d(a[0],a[1],a[2],stride=2,padding=1), lambda T,a: T.nn.functional.conv2d(a[0],a[1],a[2],stride=2,padding=1), [c(2,3,8,8),c(4,3,3,3),c(4)])
cmp("conv2d_g", lambda T,a: T.nn.functional.conv2d(a[0],a[1],groups=2), lambda T,a: T.nn.functional.conv2d(a[0],a[1],groups=2), [c(2,4,6,6),c(4,2,3,3)])
cmp("convT1d", lambda T,a: T.nn.functional.conv_transpose1d(a[0],a[1],a[2],stride=2), lambda T,a: T.nn.functional.conv_transpose1d(a[0],a[1],a[2],stride=2), [c(2,3,8),c(3,4,3),c(4)])
cmp("convT2d", lambda T,a: T.nn.functional.conv_transpose2d(a[0],a[1],a[2],stride=2), lambda T,a: T.nn.functional.conv_transpose2d(a[0],a[1],a[2],stride=2), [c(2,3,5,5),c(3,4,3,3),c(4)])
cmp("conv3d", lambda T,a: T.nn.functional.conv3d(a[0],a[1],a[2]), lambda T,a: T.nn.functional.conv3d(a[0],a[1],a[2]), [c(1,2,4,4,4),c(3,2,2,2,2),c(3)])
cmp("pad", lambda T,a: T.nn.functional.pad(a[0],(1,2)), lambda T,a: T.nn.functional.pad(a[0],(1,2)), [c(2,3,4)])
cmp("pad_refl", lambda T,a: T.nn.functional.pad(a[0],(1,2),mode="reflect"), lambda T,a: T.nn.functional.pad(a[0],(1,2),mode="reflect"), [c(2,3,4)])
cmp("pad_repl", lambda T,a: T.nn.functional.pad(a[0],(1,2),mode="replicate"), lambda T,a: T.nn.functional.pad(a[0],(1,2),mode="replicate"), [c(2,3,4)])
cmp("pad_circ", lambda T,a: T.nn.functional.pad(a[0],(1,2),mode="circular"), lambda T,a: T.nn.functional.pad(a[0],(1,2),mode="circular"), [c(2,3,4)])
cmp("emb", lambda T,a: T.nn.functional.embedding(T.tensor([[0,2],[1,1]]),a[0]), lambda T,a: T.nn.functional.embedding(T.tensor([[0,2],[1,1]]),a[0]), [c(4,3)])
cmp("dropout_eval", lambda T,a: T.nn.functional.dropout(a[0],0.5,training=False), lambda T,a: T.nn.functional.dropout(a[0],0.5,training=False), [c(4,3)])
cmp("bilinear", lambda T,a: T.nn.functional.bilinear(a[0],a[1],a[2]), lambda T,a: T.nn.functional.bilinear(a[0],a[1],a[2]), [c(4,3),c(4,2),c(5,3,2)])
for mod in ["Linear(3,5,dtype=T.cfloat)","Conv2d(2,3,3,dtype=T.cfloat)","Conv1d(2,3,3,dtype=T.cdouble)","Embedding(4,3,dtype=T.cfloat)","Bilinear(3,2,4,dtype=T.cfloat)","ConvTranspose2d(2,3,3,dtype=T.cfloat)"]:
    for T in (torch,tt):
        try:
            m=eval("T.nn."+mod); print(mod, T.__name__, m.weight.dtype, m.weight.shape)
        except Exception as e: print(mod, T.__name__, "ERR", e)
