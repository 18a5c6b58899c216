"""A graph convolutional network (Kipf & Welling, 2017) trained on a sparse adjacency matrix, in PyTorch code
run by tinytorch.

    python examples/sparse_gcn.py                   # tinytorch
    python examples/sparse_gcn.py --torch           # the same script under real PyTorch
    python examples/sparse_gcn.py --edge-weights    # a learnt weight per edge (gradients into sparse values)

The graph is Cora-like and synthetic (a stochastic block model: nodes of one class link more often; bag-of-
words-like features that hint at the class), made with numpy from ``--seed``, so both libraries see the
same data. Each layer is ``A_hat @ (H @ W)`` with ``A_hat = D^-1/2 (A + I) D^-1/2`` built from sparse ops
(``sparse_coo_tensor``, ``coalesce``, ``torch.sparse.sum``) and applied with ``torch.sparse.mm`` and
``torch.spmm``; a semi-supervised loss on a few labelled nodes, Adam with weight decay, dropout. With
``--edge-weights`` every edge's weight is a parameter too: its gradient flows through the sparse values.
The same seed prints the same losses under both libraries (dropout draws PyTorch's stream)."""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if "--torch" in sys.argv:
    import torch
else:
    sys.path.insert(0, os.path.dirname(HERE))  # this checkout's tinytorch, wherever the script is run from
    import tinytorch as torch
nn = torch.nn
F = torch.nn.functional


def make_graph(n_nodes: int = 600, n_classes: int = 5, n_features: int = 200, p_in: float = 0.03,
               p_out: float = 0.002, seed: int = 0):
    """A stochastic block model: (edges (2, E) both directions, features (N, F) float32, labels (N,))."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, n_nodes)
    same = labels[:, None] == labels[None, :]
    upper = np.triu(rng.random((n_nodes, n_nodes)) < np.where(same, p_in, p_out), 1)
    src, dst = np.nonzero(upper)
    edges = np.concatenate([np.stack([src, dst]), np.stack([dst, src])], axis=1)
    # each class favours a block of words; every node draws a few words from its block and some noise
    favoured = rng.random((n_classes, n_features)) < 0.1
    prob = np.where(favoured[labels], 0.08, 0.01)
    features = (rng.random((n_nodes, n_features)) < prob).astype(np.float32)
    features /= np.maximum(features.sum(1, keepdims=True), 1)  # row-normalised, as Kipf's preprocessing
    return edges.astype(np.int64), features, labels.astype(np.int64)


def normalized_adjacency(edges, n_nodes: int, edge_weight=None):
    """D^-1/2 (A + I) D^-1/2 as a coalesced sparse COO matrix (differentiable in ``edge_weight``)."""
    loops = torch.arange(n_nodes).unsqueeze(0).repeat(2, 1)
    index = torch.cat([torch.tensor(edges), loops], dim=1)
    ones = torch.ones(index.shape[1])
    weight = ones if edge_weight is None else torch.cat([edge_weight, torch.ones(n_nodes)])
    adj = torch.sparse_coo_tensor(index, weight, (n_nodes, n_nodes)).coalesce()
    deg = torch.sparse.sum(adj, dim=1).to_dense()
    d_inv_sqrt = deg.pow(-0.5)
    i = adj.indices()
    values = d_inv_sqrt[i[0]] * adj.values() * d_inv_sqrt[i[1]]
    return torch.sparse_coo_tensor(i, values, (n_nodes, n_nodes))


class GraphConvolution(nn.Module):
    """One GCN layer: A_hat @ (input @ W) + b."""

    def __init__(self, in_features: int, out_features: int, use_spmm: bool = False):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.use_spmm = use_spmm
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x, adj):
        support = torch.mm(x, self.weight)
        out = torch.spmm(adj, support) if self.use_spmm else torch.sparse.mm(adj, support)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, n_features: int, n_hidden: int, n_classes: int, dropout: float = 0.5):
        super().__init__()
        self.gc1 = GraphConvolution(n_features, n_hidden)
        self.gc2 = GraphConvolution(n_hidden, n_classes, use_spmm=True)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)


def train(epochs: int = 100, seed: int = 0, hidden: int = 16, lr: float = 0.01, weight_decay: float = 5e-4,
          edge_weights: bool = False, log_every: int = 10, log=print) -> list[float]:
    """Trains the GCN; returns the training loss of every epoch."""
    edges, features, labels = make_graph(seed=seed)
    n_nodes, n_classes = features.shape[0], int(labels.max()) + 1
    torch.manual_seed(seed)
    x, y = torch.tensor(features), torch.tensor(labels)
    perm = np.random.default_rng(seed + 1).permutation(n_nodes)
    train_idx, val_idx = torch.tensor(perm[:20 * n_classes]), torch.tensor(perm[20 * n_classes:])
    model = GCN(features.shape[1], hidden, n_classes)
    params = list(model.parameters())
    edge_weight = None
    if edge_weights:
        edge_weight = nn.Parameter(torch.ones(edges.shape[1]))
        params.append(edge_weight)
    else:
        adj = normalized_adjacency(edges, n_nodes)
    optimizer = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    losses = []
    for epoch in range(1, epochs + 1):
        model.train()
        optimizer.zero_grad()
        if edge_weights:
            adj = normalized_adjacency(edges, n_nodes, F.softplus(edge_weight))
        out = model(x, adj)
        loss = F.nll_loss(out[train_idx], y[train_idx])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if epoch % log_every == 0 or epoch == 1:
            model.eval()
            with torch.no_grad():
                pred = model(x, adj).argmax(1)
                acc = (pred[val_idx] == y[val_idx]).float().mean().item()
            log(f"epoch {epoch:3d}: train loss {loss.item():.6f}, val accuracy {acc:.4f}")
    return losses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--edge-weights", action="store_true")
    parser.add_argument("--torch", action="store_true", help="run under PyTorch (read before the imports)")
    args = parser.parse_args(argv)
    print(f"{torch.__name__} GCN{' with learnt edge weights' if args.edge_weights else ''}:")
    train(args.epochs, args.seed, args.hidden, edge_weights=args.edge_weights)


if __name__ == "__main__":
    main()
