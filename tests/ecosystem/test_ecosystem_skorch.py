"""skorch on tinytorch: its README classifier (``NeuralNetClassifier`` on scikit-learn's
``make_classification``, a validation split, dropout, a shuffled iterator) prints PyTorch's history and
probabilities."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import numpy as np
from torch import nn
from sklearn.datasets import make_classification
from skorch import NeuralNetClassifier

X, y = make_classification(200, 20, n_informative=10, random_state=0)
X, y = X.astype(np.float32), y.astype(np.int64)

class MyModule(nn.Module):
    def __init__(self, num_units=10, nonlin=nn.ReLU()):
        super().__init__()
        self.dense0 = nn.Linear(20, num_units)
        self.nonlin = nonlin
        self.dropout = nn.Dropout(0.5)
        self.dense1 = nn.Linear(num_units, num_units)
        self.output = nn.Linear(num_units, 2)
        self.softmax = nn.Softmax(dim=-1)
    def forward(self, X, **kwargs):
        X = self.nonlin(self.dense0(X))
        X = self.dropout(X)
        X = self.nonlin(self.dense1(X))
        return self.softmax(self.output(X))

torch.manual_seed(0)
net = NeuralNetClassifier(MyModule, max_epochs=5, lr=0.1, iterator_train__shuffle=True, verbose=0)
net.fit(X, y)
print(json.dumps({"train_loss": net.history[:, "train_loss"], "valid_loss": net.history[:, "valid_loss"],
                  "valid_acc": net.history[:, "valid_acc"], "proba": net.predict_proba(X[:5]).tolist()}))
"""


def test_classifier_fit_matches_pytorch():
    ours = on_tinytorch(CODE, "skorch")
    assert len(ours["train_loss"]) == 5 and len(ours["proba"]) == 5
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
