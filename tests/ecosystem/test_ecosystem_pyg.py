"""PyG (``torch_geometric``) on tinytorch: a two-layer GCN on a small random graph, trained with Adam,
prints PyTorch's losses and accuracy."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import numpy as np
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import GCNConv

rng = np.random.default_rng(0)
n = 20
src, dst = rng.integers(0, n, 60), rng.integers(0, n, 60)
edge_index = torch.from_numpy(np.stack([np.concatenate([src, dst]), np.concatenate([dst, src])]).astype(np.int64))
data = Data(x=torch.from_numpy(rng.standard_normal((n, 5)).astype(np.float32)), edge_index=edge_index,
            y=torch.from_numpy(rng.integers(0, 3, n)))

class GCN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNConv(5, 16)
        self.conv2 = GCNConv(16, 3)
    def forward(self, data):
        x = F.relu(self.conv1(data.x, data.edge_index))
        x = F.dropout(x, training=self.training)
        return F.log_softmax(self.conv2(x, data.edge_index), dim=1)

torch.manual_seed(0)
model = GCN()
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
losses = []
model.train()
for epoch in range(20):
    opt.zero_grad()
    loss = F.nll_loss(model(data), data.y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
model.eval()
pred = model(data).argmax(1)
print(json.dumps({"losses": losses, "acc": float((pred == data.y).float().mean()), "data": str(data)}))
"""


def test_gcn_training_matches_pytorch():
    ours = on_tinytorch(CODE, "torch_geometric")
    assert ours["data"] == "Data(x=[20, 5], edge_index=[2, 120], y=[20])" and len(ours["losses"]) == 20
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
