"""PCA with scikit-learn: the linear map, whose axes say how much of the variance they show."""

from __future__ import annotations

import numpy as np


def fit_pca(
    X: np.ndarray, n_components: int, random_state: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """PCA of ``X`` ``(n, d)``: ``(coordinates (n, n_components), explained-variance ratio
    (n_components,) float32)``. ``random_state`` seeds the randomized solver scikit-learn picks
    for large inputs."""
    from sklearn.decomposition import PCA

    pca = PCA(n_components=n_components, random_state=random_state)
    embedding = pca.fit_transform(X)
    return embedding, pca.explained_variance_ratio_.astype(np.float32)
