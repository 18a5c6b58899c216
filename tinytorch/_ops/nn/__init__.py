"""The ops of nn.functional: activations, convolution, pooling, normalisation, losses, dropout,
embeddings, attention, recurrent layers, padding and resizing."""
