"""The fits the view pipeline runs, by page: plain functions of a data set and catalog names, each returning
its result with its time and warnings; the steps of :mod:`teaching.steps` call them (and cache them).

- :mod:`.regression`: the KLIEP family's shared width, the regression fits, the lessons' comparisons;
- :mod:`.classification`: Classification under shift (the 2-D toy, the three classifiers, scores and maps);
- :mod:`.transfer`: Domain transfer (source and delta-transfer structural SVMs on shifted digits).
"""

from teaching.fits import classification, regression, transfer  # noqa: F401  (fits.regression.fit_predict, ...)
