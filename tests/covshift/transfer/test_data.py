"""Digits with a visible domain shift (covshift.transfer.data)."""

import numpy as np
import pytest

from covshift.transfer import MulticlassProblem, StructuredSVM
from covshift.transfer.data import (digit_attributes, digits_transfer, draw_labelled,
                                    transform_images)


def test_multilabel_attributes_follow_their_definitions():
    table = digit_attributes(np.arange(10))
    expected = {  # even, greater than 4, closed loop, prime
        0: [1, 0, 1, 0], 1: [0, 0, 0, 0], 2: [1, 0, 0, 1], 3: [0, 0, 0, 1], 4: [1, 0, 0, 0],
        5: [0, 1, 0, 1], 6: [1, 1, 1, 0], 7: [0, 1, 0, 1], 8: [1, 1, 1, 0], 9: [0, 1, 1, 0]}
    np.testing.assert_array_equal(table, [expected[d] for d in range(10)])


def test_split_is_seeded_disjoint_and_complete():
    a = digits_transfer(random_state=3)
    b = digits_transfer(random_state=3)
    np.testing.assert_array_equal(a.X_test, b.X_test)
    assert len(a.X_source) + len(a.X_pool) + len(a.X_test) == 1797
    assert a.X_source.shape[1] == a.X_pool.shape[1] == 64
    assert a.images_test.shape == (len(a.X_test), 8, 8)
    np.testing.assert_allclose(a.images_test.reshape(len(a.X_test), -1), a.X_test)
    m = digits_transfer(task="multilabel", random_state=3)
    np.testing.assert_array_equal(m.y_test, digit_attributes(a.y_test))
    assert m.label_names[2] == "has a closed loop"


def test_transformations_change_the_images_visibly():
    images = digits_transfer().images_test[:50]
    for shift in ["thicken", "blur", "rotate", "invert"]:
        changed = transform_images(images, shift)
        assert changed.shape == images.shape and changed.min() >= 0 and changed.max() <= 1
        assert np.mean(np.abs(changed - images)) > 0.05
    np.testing.assert_allclose(transform_images(images, "invert"), 1 - images)
    assert transform_images(images, "thicken").sum() > images.sum()  # strokes get thicker


def test_a_source_model_loses_accuracy_on_the_target():
    data = digits_transfer()
    source = StructuredSVM(MulticlassProblem(10), C=10.0, epsilon=1e-2).fit(data.X_source, data.y_source)
    on_source = source.score(data.X_source, data.y_source)
    on_target = source.score(data.X_test, data.y_test)
    assert on_source > 0.9 and on_target < on_source - 0.3


def test_bad_arguments():
    with pytest.raises(ValueError, match="shift must combine"):
        transform_images(np.zeros((1, 8, 8)), "melt")
    with pytest.raises(ValueError, match="task"):
        digits_transfer(task="regression")
    with pytest.raises(ValueError, match="between 1 and 5"):
        draw_labelled(5, 0)
    assert len(set(draw_labelled(100, 20, random_state=1))) == 20
