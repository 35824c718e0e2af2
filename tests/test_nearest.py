"""Exact blocked k nearest neighbours against a brute-force NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.similarity._nearest import METRICS, Neighbors, neighbors, row_norms


def brute_force(vectors, query, k, metric, exclude=None):
    """Best ``k`` (indices, scores): full scores in float64, sorted by (score, index)."""
    x = np.asarray(vectors, np.float64)
    q = np.asarray(query, np.float64)
    if metric == "cosine":
        norms = np.linalg.norm(x, axis=1) * np.linalg.norm(q)
        dots = x @ q
        scores = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
        keys = -scores
    else:
        scores = keys = np.linalg.norm(x - q, axis=1)
    if exclude is not None:
        keys = keys.copy()
        keys[exclude] = np.inf
    order = np.lexsort((np.arange(len(x)), keys))[:k]
    return order, scores[order]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((300, 16)).astype(np.float32)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("block_rows", [1, 7, 64, 4096])
@pytest.mark.parametrize("workers", [1, 3])
def test_index_query_matches_brute_force(data, metric, block_rows, workers):
    for row in (0, 123, 299):
        found = neighbors(data, row, k=12, metric=metric, block_rows=block_rows, workers=workers)
        indices, scores = brute_force(data, data[row], 12, metric, exclude=row)
        assert isinstance(found, Neighbors)
        assert found.indices.dtype == np.int64 and found.scores.dtype == np.float32
        assert found.indices.shape == found.scores.shape == (12,)
        np.testing.assert_array_equal(found.indices, indices)
        np.testing.assert_allclose(found.scores, scores, atol=2e-5)
        assert row not in found.indices


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("block_rows", [5, 50, 4096])
def test_vector_query_matches_brute_force(data, metric, block_rows):
    query = np.random.default_rng(1).standard_normal(16).astype(np.float32)
    found = neighbors(data, query, k=300, metric=metric, block_rows=block_rows, workers=2)
    indices, scores = brute_force(data, query, 300, metric)
    np.testing.assert_array_equal(found.indices, indices)
    np.testing.assert_allclose(found.scores, scores, atol=2e-5)
    ordered = -found.scores if metric == "cosine" else found.scores
    assert np.all(np.diff(ordered) >= 0)  # best first


@pytest.mark.parametrize("metric", METRICS)
def test_batches_equal_one_query_at_a_time(data, metric):
    rows = np.array([4, 0, 299, 4])
    batch = neighbors(data, rows, k=5, metric=metric, block_rows=32)
    assert batch.indices.shape == batch.scores.shape == (4, 5)
    queries = np.random.default_rng(2).standard_normal((3, 16)).astype(np.float32)
    vector_batch = neighbors(data, queries, k=5, metric=metric, block_rows=32)
    assert vector_batch.indices.shape == (3, 5)
    for i, row in enumerate(rows):
        expected, scores = brute_force(data, data[row], 5, metric, exclude=row)
        np.testing.assert_array_equal(batch.indices[i], expected)
        np.testing.assert_allclose(batch.scores[i], scores, atol=2e-5)
    for i, query in enumerate(queries):
        one = neighbors(data, query, k=5, metric=metric)
        np.testing.assert_array_equal(vector_batch.indices[i], one.indices)
        np.testing.assert_allclose(vector_batch.scores[i], one.scores, atol=1e-6)


@pytest.mark.parametrize("metric", METRICS)
def test_rows_that_get_closer_block_after_block(data, metric):
    # every block beats the previous one: each merge takes many new candidates at once
    query = data[0]
    vectors = data[brute_force(data, query, len(data), metric)[0][::-1]]  # worst first
    for k, block_rows in ((3, 64), (20, 16)):
        found = neighbors(vectors, query, k=k, metric=metric, block_rows=block_rows, workers=1)
        np.testing.assert_array_equal(found.indices, brute_force(vectors, query, k, metric)[0])
        assert found.indices[0] == len(data) - 1


@pytest.mark.parametrize("metric", METRICS)
def test_given_norms_give_the_same_neighbours(data, metric):
    norms = row_norms(data, block_rows=7)
    np.testing.assert_allclose(norms, np.linalg.norm(data, axis=1), rtol=1e-6)
    assert norms.dtype == np.float32 and norms.shape == (300,)
    for query in (5, data[9] + 0.5, np.array([1, 2, 3])):
        given = neighbors(data, query, k=7, metric=metric, norms=norms, block_rows=32)
        computed = neighbors(data, query, k=7, metric=metric, block_rows=32)
        np.testing.assert_array_equal(given.indices, computed.indices)
        np.testing.assert_allclose(given.scores, computed.scores, atol=1e-6)


def test_an_empty_batch_gives_empty_results(data):
    found = neighbors(data, np.array([], dtype=np.int64), k=3)
    assert found.indices.shape == found.scores.shape == (0, 3)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("block_rows", [1, 3, 8, 100])
def test_ties_go_to_the_lower_index(metric, block_rows):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((4, 8)).astype(np.float32)
    vectors = np.tile(base, (5, 1))  # 4 distinct vectors, each 5 times: rows i, i+4, i+8, ...
    for k in (1, 2, 3, 4, 5, 9, 19):
        found = neighbors(vectors, 1, k=k, metric=metric, block_rows=block_rows, workers=2)
        expected = brute_force(vectors, base[1], k, metric, exclude=1)[0]
        np.testing.assert_array_equal(found.indices, expected)
        np.testing.assert_array_equal(found.indices[:4], [5, 9, 13, 17][:k])
        assert len(set(found.scores[:4].tolist())) == 1  # the twins score exactly the same
    twins = np.array([1, 5, 9, 13, 17])
    many = neighbors(vectors, twins, k=3, metric=metric, block_rows=block_rows)
    for row, got in zip(twins, many.indices, strict=True):
        assert got.tolist() == [r for r in twins if r != row][:3]
    queries = np.repeat(base[2:3], 3, axis=0)
    for found in neighbors(vectors, queries, k=5, metric=metric, block_rows=block_rows).indices:
        assert found.tolist() == [2, 6, 10, 14, 18]


@pytest.mark.parametrize("metric", METRICS)
def test_ties_across_a_wide_block_and_a_batch(metric):
    base = np.random.default_rng(4).standard_normal((50, 12)).astype(np.float32)
    vectors = np.tile(base, (60, 1))  # 3,000 rows, each vector 60 times
    rows = np.array([0, 7, 2999])
    found = neighbors(vectors, rows, k=70, metric=metric)
    for row, got in zip(rows, found.indices, strict=True):
        expected = brute_force(vectors, vectors[row], 70, metric, exclude=row)[0]
        np.testing.assert_array_equal(got, expected)


def test_zero_vectors_score_zero_under_cosine():
    vectors = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [-1.0, 0.0]], np.float32)
    found = neighbors(vectors, np.array([0.0, 1.0], np.float32), k=4)
    np.testing.assert_array_equal(found.indices, [0, 1, 2, 3])  # all 0: index order
    np.testing.assert_array_equal(found.scores, 0.0)
    assert not np.signbit(found.scores).any()
    from_zero_row = neighbors(vectors, 0, k=3)
    np.testing.assert_array_equal(from_zero_row.indices, [1, 2, 3])
    np.testing.assert_array_equal(from_zero_row.scores, 0.0)
    euclidean = neighbors(vectors, 0, k=3, metric="euclidean")
    np.testing.assert_array_equal(euclidean.indices, [2, 1, 3])
    np.testing.assert_allclose(euclidean.scores, [0.0, 1.0, 1.0])


def test_identical_vectors_are_at_most_cosine_one():
    vectors = np.full((3, 5), 0.1, np.float32)
    found = neighbors(vectors, 0, k=2)
    assert np.all(found.scores <= 1.0)
    np.testing.assert_allclose(found.scores, 1.0, atol=1e-6)


def test_memmap_input(tmp_path, data):
    path = tmp_path / "vectors.npy"
    np.save(path, data)
    mapped = np.load(path, mmap_mode="r")
    for metric in METRICS:
        found = neighbors(mapped, 7, k=9, metric=metric, block_rows=64)
        expected = neighbors(data, 7, k=9, metric=metric, block_rows=64)
        np.testing.assert_array_equal(found.indices, expected.indices)
        np.testing.assert_array_equal(found.scores, expected.scores)
    batch = neighbors(mapped, np.arange(10), k=3, block_rows=64)
    assert batch.indices.shape == (10, 3)
    assert not mapped.flags.writeable


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32])
def test_other_dtypes(data, dtype):
    vectors = (data * 10).astype(dtype)
    found = neighbors(vectors, 3, k=6, block_rows=40)
    expected = brute_force(
        vectors.astype(np.float32), vectors[3].astype(np.float32), 6, "cosine", 3
    )
    np.testing.assert_array_equal(found.indices, expected[0])
    assert found.scores.dtype == np.float32


def test_a_list_of_lists_works():
    found = neighbors([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]], [1.0, 0.0], k=2)
    assert found.indices.tolist() == [0, 1]


BAD_INPUTS = [
    (dict(vectors=np.ones(5)), "2-D array"),
    (dict(vectors=np.ones((2, 3, 4))), "2-D array"),
    (dict(vectors=np.ones((0, 4))), "empty"),
    (dict(vectors=np.ones((4, 0))), "empty"),
    (dict(vectors=np.array([["a", "b"], ["c", "d"]])), "real numbers"),
    (
        dict(metric="manhattan"),
        r"Unknown metric 'manhattan'; choose one of \('cosine', 'euclidean'\)",
    ),
    (dict(k=0), "k must be a whole number from 1 to 5"),
    (dict(k=6), "from 1 to 5, the number of other rows"),
    (dict(k=2.0), "k must be a whole number"),
    (dict(k=True), "k must be a whole number"),
    (dict(query=np.ones(4), k=7), "from 1 to 6, the number of rows"),
    (dict(query=6), "Query row 6 is out of range: vectors has 6 rows, numbered 0 to 5"),
    (dict(query=-1), "Query row -1 is out of range"),
    (dict(query=np.array([0, 9])), "Query row 9 is out of range"),
    (dict(query=np.array([[0, 1]])), "1-D array of ints"),
    (dict(query=np.ones(3)), "width 3, but the vectors have d = 4"),
    (dict(query=np.ones((2, 5))), "width 5, but the vectors have d = 4"),
    (dict(query=np.array([1.0, np.nan, 0.0, 0.0])), "NaN or infinite"),
    (dict(query=np.array([[1.0] * 4, [np.inf, 0, 0, 0]])), r"query 1 of the batch"),
    (dict(query=np.full(4, 1e30)), "too large"),
    (dict(query=2.5), "row index"),
    (dict(query=True), "row index"),
    (dict(query="bank"), "row index"),
    (dict(query=np.ones((1, 1, 4))), "row index"),
    (dict(norms=np.ones(5)), r"norms must be the 6 rows' norms, shape \(6,\)"),
    (dict(norms=np.ones((6, 1))), "norms must be the 6 rows' norms"),
    (dict(norms=np.array([1, 1, 1, -1, 1, 1.0])), r"not negative; norms\[3\] is -1.0"),
    (dict(norms=np.array([1, 1, np.nan, 1, 1, 1.0])), r"norms\[2\] is nan"),
    (dict(block_rows=0), "block_rows must be a whole number of at least 1"),
    (dict(workers=0), "workers must be a whole number of at least 1"),
]


@pytest.mark.parametrize(("change", "message"), BAD_INPUTS)
def test_bad_input_is_a_clear_value_error(change, message):
    arguments = dict(vectors=np.eye(6, 4, dtype=np.float32), query=0, k=3, metric="cosine")
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        neighbors(**arguments)


def test_float16_is_converted_exactly_for_every_bit_pattern():
    from explorer.similarity._halffloat import half_to_float32

    every = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    finite = every[np.isfinite(every)].reshape(-1, 8)  # +-0, subnormals, 65504 included
    buffer = np.empty(finite.shape, np.int32)
    converted = half_to_float32(finite, buffer)
    np.testing.assert_array_equal(
        converted.view(np.int32), finite.astype(np.float32).view(np.int32)
    )
    special = np.array([[1.0, np.inf], [np.nan, -np.inf]], np.float16)
    np.testing.assert_array_equal(half_to_float32(special, buffer), special.astype(np.float32))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("block_rows", [7, 4096])
@pytest.mark.parametrize("workers", [1, 2])
def test_float16_vectors_match_brute_force(metric, block_rows, workers):
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((3000, 24)).astype(np.float16)
    vectors[10] = vectors[2900]  # a tie across the two workers' halves
    vectors[40, :3] = np.array([6e-8, -3e-6, 1e-5], np.float16)  # subnormals
    as_float32 = vectors.astype(np.float32)
    query = rng.standard_normal(24).astype(np.float32)
    norms = row_norms(vectors)
    np.testing.assert_array_equal(norms, row_norms(as_float32))
    for given in (None, norms):
        found = neighbors(
            vectors, query, 50, metric, norms=given, block_rows=block_rows, workers=workers
        )
        indices, scores = brute_force(as_float32, query, 50, metric)
        np.testing.assert_array_equal(found.indices, indices)
        np.testing.assert_allclose(found.scores, scores, atol=2e-5)
        same = neighbors(as_float32, query, 50, metric, norms=given, block_rows=block_rows)
        np.testing.assert_array_equal(found.scores, same.scores)
    by_row = neighbors(vectors, 2900, 5, metric, block_rows=block_rows, workers=workers)
    assert by_row.indices[0] == 10


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_bad_float16_row_is_named(bad):
    vectors = np.ones((4000, 4), np.float16)
    vectors[3333, 1] = bad
    with pytest.raises(ValueError, match="Row 3333 of vectors has NaN or infinite values"):
        neighbors(vectors, np.ones(4, np.float32), k=3, workers=2)
    with pytest.raises(ValueError, match="Row 3333 of vectors has NaN or infinite values"):
        row_norms(vectors)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e30])
@pytest.mark.parametrize("workers", [1, 2])
def test_the_first_bad_row_in_vectors_is_named(bad, workers):
    vectors = np.ones((40, 4), np.float32)
    vectors[33, 2] = bad  # in the second worker's half
    vectors[15, 1] = bad  # in the first worker's half
    problem = "values too large" if np.isfinite(bad) else "NaN or infinite values"
    with pytest.raises(ValueError, match=f"Row 15 of vectors has {problem}"):
        neighbors(vectors, np.ones(4, np.float32), k=3, block_rows=1, workers=workers)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_bad_row_is_named_with_given_norms_and_by_row_norms(bad):
    vectors = np.ones((40, 4), np.float32)
    vectors[33, 2] = bad
    norms = np.full(40, 2.0, np.float32)
    for metric in METRICS:
        with pytest.raises(ValueError, match="Row 33 of vectors has NaN or infinite values"):
            neighbors(vectors, np.ones(4, np.float32), k=3, metric=metric, norms=norms)
    with pytest.raises(ValueError, match="Row 33 of vectors has NaN or infinite values"):
        row_norms(vectors, block_rows=8)
    with pytest.raises(ValueError, match="2-D array"):
        row_norms(vectors[0])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_bad_query_row_is_named(bad):
    vectors = np.ones((10, 4), np.float32)
    vectors[6, 0] = bad
    with pytest.raises(ValueError, match="The query row 6 of vectors has NaN or infinite"):
        neighbors(vectors, np.array([2, 6]), k=3)


def test_the_benchmark_runs_at_a_tiny_size():
    from bench.neighbors import neighbors_bench

    data = neighbors_bench(rows=3000, small_rows=500, dims=8, rounds=2, all_points=200)
    assert data["large"]["same_indices_as_reference"]
    assert data["small"]["same_indices_as_reference"]
    assert data["large"]["rows"] == 3000 and data["all_points"]["points"] == 200
