"""The step-by-step replay of a Frank-Wolfe run: its sparse history packed for the browser, drawn by replay.js."""

import base64
import html
import json
import pathlib
import zlib

import numpy as np

from covshift.weights.replay import replay_steps
from teaching.figures.base import METHOD_COLORS, TRUTH

SCRIPT = pathlib.Path(__file__).with_name("replay.js")
#: Step kinds and directions as the history names them; the payload stores their index.
KINDS = ("good", "drop", "swap", "final")
DIRECTIONS = ("towards", "away", "pairwise", "corrective", "")
#: "Next ... step" buttons per solver: the kinds its steps can have (fw-covariate-shift-iw-smtgp, III-B).
JUMPS = {"FWCS": (), "AFWCS": ("drop", "away"), "PFWCS": ("drop", "swap"), "FCFWCS": ("drop",)}

#: One plain sentence per step (direction, kind); replay.js fills in {toward}, {away}, {rho},
#: {rho_max}, {left}, {inner}. Names as in the paper: l^FW the towards vertex, l^AFW the away vertex.
SENTENCES = {
    ("towards", "good"): "towards step (good): every weight shrank by the factor 1 - \u03c1 and atom {toward}, "
                         "the Frank-Wolfe vertex l^FW, gained \u03c1 = {rho} (its bound \u03c1_max = 1 was not "
                         "reached).",
    ("away", "good"): "away step (good): atom {away}, the away vertex l^AFW, lost weight and the other atoms "
                      "grew by the factor 1 + \u03c1, \u03c1 = {rho}, below its bound \u03c1_max = {rho_max}.",
    ("away", "drop"): "drop step: the away step reached its bound \u03c1 = \u03c1_max = {rho_max}, so atom "
                      "{away} (l^AFW) reached weight 0 and left the active set; its weight went to the other "
                      "atoms in proportion.",
    ("pairwise", "good"): "pairwise step (good): weight \u03c1 = {rho} moved from atom {away} (l^AFW) to atom "
                          "{toward} (l^FW), below the bound \u03c1_max = {rho_max}; no other atom changed.",
    ("pairwise", "drop"): "drop step: atom {away} (l^AFW) reached weight 0 and left the active set; all its "
                          "weight \u03c1 = \u03c1_max = {rho_max} moved to atom {toward} (l^FW), already active.",
    ("pairwise", "swap"): "swap step: atom {away} (l^AFW) gave all its weight \u03c1 = \u03c1_max = {rho_max} "
                          "to atom {toward} (l^FW), which was not active: the two swapped places and the active "
                          "set kept its size.",
    ("corrective", "good"): "fully-corrective step (good): atom {toward} (l^FW) received weight, then all active "
                            "weights were re-optimised ({inner} Newton steps); no atom left.",
    ("corrective", "drop"): "fully-corrective step with a drop: atom {toward} (l^FW) received weight, the "
                            "weights were re-optimised ({inner} Newton steps) and atom(s) {left} reached weight "
                            "0 and left the active set.",
    ("start", ""): "the starting iterate: {n} atom(s) share all the weight (no step yet).",
    ("pruned", ""): " Atom(s) {left} fell below 1e-14 and were removed.",
}


def _array(values, dtype):
    """``values`` as a contiguous array of ``dtype``; floats beyond float32's range (a true ratio
    of 1e300 on degenerate data) are clipped to its largest value instead of overflowing to inf."""
    values = np.asarray(values)
    if np.dtype(dtype).kind == "f" and values.dtype.kind == "f":
        limit = np.finfo(dtype).max
        values = np.clip(values, -limit, limit)
    return np.ascontiguousarray(values, dtype=dtype)


def _pack(arrays):
    """Arrays -> (manifest, base64 of the deflated little-endian bytes), each array 8-byte aligned."""
    manifest, parts, offset = {}, [], 0
    for name, values in arrays.items():
        raw = values.tobytes()
        manifest[name] = [values.dtype.str.lstrip("<|"), offset, len(values)]
        pad = (-len(raw)) % 8
        parts.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    blob = zlib.compress(b"".join(parts), 9)
    return manifest, base64.b64encode(blob).decode("ascii")


def replay_payload(estimator, X_tr, X_te, density_ratio=None, n_grid=150):
    """Everything the browser needs to draw every iterate of a fitted Frank-Wolfe run.

    The run is sent as its sparse changes (:func:`covshift.weights.replay.replay_steps`: one
    scale factor and the few atoms it touches per step) with each step's kind, direction,
    towards and away atoms, step size rho, inner Newton iterations, objective and duality gap,
    plus the centres, beta (alpha = beta * mu), the kernel width and, for 1-D inputs, a grid with
    the true ratio. replay.js rebuilds mu_t, alpha_t and w_t(x) for any t.

    Returns
    -------
    dict (JSON-serialisable): ``meta`` (names, sizes, the manifest of ``blob``) and ``blob``
    (base64 of the zlib-deflated arrays; the browser inflates it with DecompressionStream).
    """
    history = getattr(estimator, "history_", None)
    steps = replay_steps(estimator)
    name = type(estimator).__name__
    one_d = np.shape(X_tr)[1] == 1
    rows = len(history) - 1  # steps: row t -> t + 1
    f4, f8, i4 = "<f4", "<f8", "<i4"
    arrays = {
        "kind": _array([KINDS.index(k) for k in history.step_kind[:rows]], "u1"),
        "direction": _array([DIRECTIONS.index(d) for d in history.direction[:rows]], "u1"),
        "toward": _array(history.towards_atom[:rows], i4), "away": _array(history.away_atom[:rows], i4),
        "rho": _array(history.step_size[:rows], f4), "inner": _array(history.inner_iterations[:rows], i4),
        "gap": _array(history.gap, f4), "objective": _array(history.objective, f4),
        "scale": _array(steps.scale, f8), "touched_count": _array(np.diff(steps.touched_start), i4),
        "touched_atom": _array(steps.touched_atom, i4), "touched_mu": _array(steps.touched_mu, f4),
        "start_atom": _array(steps.start_atom, i4), "start_mu": _array(steps.start_mu, f8),
        "beta": _array(history.beta, f4),
        "position": _array(estimator.centers_[:, 0] if one_d else estimator.center_index_, f4),
    }
    if one_d:
        x = np.concatenate([np.ravel(X_tr), np.ravel(X_te)])
        grid = np.linspace(x.min(), x.max(), n_grid)
        arrays["grid"] = _array(grid, f4)
        if density_ratio is not None:
            arrays["truth"] = _array(density_ratio(grid[:, None]), f4)
    manifest, blob = _pack(arrays)
    meta = dict(name=name, steps=rows, atoms=len(history.beta), one_d=bool(one_d),
                sigma=float(estimator.sigma_), kinds=KINDS, directions=DIRECTIONS, jumps=JUMPS.get(name, ()),
                sentences={f"{d}|{k}": text for (d, k), text in SENTENCES.items()},
                color=METHOD_COLORS.get(name, "#CC79A7"), truth_color=TRUTH,
                x_title="x" if one_d else "centre: index j of the test point x_te_j", manifest=manifest)
    return dict(meta=meta, blob=blob)


def replay_html(payload, presentation=False):
    """The replay as one self-contained HTML document (for ``st.iframe``): the payload
    inlined as JSON and replay.js inlined once; nothing is fetched at run time."""
    data = json.dumps(payload, separators=(",", ":")).replace("</", "<\\/")
    scale = 1.3 if presentation else 1.0
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{_CSS}</style></head>'
            f'<body style="--scale:{scale}"><div id="replay" aria-label="{html.escape(payload["meta"]["name"])} replay">'
            f'</div><script id="replay-data" type="application/json">{data}</script>'
            f"<script>{SCRIPT.read_text()}</script></body></html>")


def replay_height(presentation=False):
    """Pixels the replay needs at the app's width, for an embedding with a fixed height (the page's
    ``st.iframe(..., height="content")`` sizes itself to the replay, also on a phone)."""
    return 740 if presentation else 610


_CSS = """
body{margin:0;font-family:"Source Sans","Source Sans Pro",sans-serif;font-size:calc(15px*var(--scale));color:#262730}
.bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:2px 0 6px}
button{font:inherit;padding:3px 10px;border:1px solid #bbb;border-radius:6px;background:#fff;cursor:pointer}
button:hover{border-color:#ff4b4b;color:#ff4b4b} button:disabled{color:#aaa;border-color:#ddd;cursor:default}
input[type=range]{flex:1;min-width:160px}
.t{font-weight:700;font-size:1.1em;display:inline-block;font-variant-numeric:tabular-nums} .kind{font-weight:700;padding:1px 8px;border-radius:6px;background:#eee}
.kind.drop{background:#fde0d0;color:#a33c00} .kind.swap{background:#e4d8f5;color:#5a2d91}
.say{margin:2px 0;min-height:2.6em} .nums{color:#555;margin-bottom:2px;font-variant-numeric:tabular-nums}
.kind{display:inline-block;min-width:6.5em;text-align:center}
svg text{font-family:inherit} .row{display:flex;flex-wrap:wrap;gap:8px}
"""
