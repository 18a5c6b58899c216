"""x-transformers on tinytorch: a decoder ``TransformerWrapper``'s logits, and an encoder with rotary
position embeddings and a mask, forward and backward. The numbers agree with PyTorch's to float32 rounding:
PyTorch's own CPU paths (``ATEN_CPU_CAPABILITY=default`` against AVX-512) differ from each other by as much
(about 1e-6 on these logits), so the drift is PyTorch's, not a tinytorch difference."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
from x_transformers import TransformerWrapper, Decoder, Encoder
torch.manual_seed(0)
model = TransformerWrapper(num_tokens=256, max_seq_len=64, attn_layers=Decoder(dim=64, depth=2, heads=4)).eval()
x = torch.randint(0, 256, (2, 16))
logits = model(x)
enc = TransformerWrapper(num_tokens=256, max_seq_len=64,
                         attn_layers=Encoder(dim=64, depth=2, heads=4, rotary_pos_emb=True))
out = enc(x, mask=torch.ones(2, 16, dtype=torch.bool))
out.sum().backward()
print(json.dumps({"logits": logits.tolist(), "enc": float(out.double().abs().sum()),
                  "grad": sum(float(p.grad.abs().sum()) for p in enc.parameters() if p.grad is not None)}))
"""


def test_decoder_and_rotary_encoder_match_pytorch():
    ours = on_tinytorch(CODE, "x_transformers")
    assert len(ours["logits"]) == 2 and len(ours["logits"][0]) == 16 and len(ours["logits"][0][0]) == 256
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
