"""vit-pytorch on tinytorch: its README ``ViT`` (patch embedding through einops, dropout, the CLS token)
gives PyTorch's logits in eval mode and PyTorch's loss and gradients in training mode (the dropout masks are
drawn from PyTorch's random stream)."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
from vit_pytorch import ViT
torch.manual_seed(0)
v = ViT(image_size=32, patch_size=8, num_classes=10, dim=64, depth=2, heads=4, mlp_dim=128, dropout=0.1,
        emb_dropout=0.1)
img = torch.randn(2, 3, 32, 32)
v.eval()
preds = v(img)
v.train()
torch.manual_seed(1)
loss = v(img).logsumexp(1).sum()
loss.backward()
print(json.dumps({"preds": preds.tolist(), "loss": loss.item(),
                  "grad": sum(float(p.grad.abs().sum()) for p in v.parameters())}))
"""


def test_vit_forward_backward_matches_pytorch():
    ours = on_tinytorch(CODE, "vit_pytorch")
    assert len(ours["preds"]) == 2 and len(ours["preds"][0]) == 10
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
