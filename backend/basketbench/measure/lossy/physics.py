"""Physics quantities recomputed from lossy columns: does storing a column with N bits move
what an analysis computes from it?

Each quantity names the float columns it reads; it is computed once from the values as
written and once with every one of those columns read back through a representation, and the
two per-event distributions are compared: the two-sample Kolmogorov-Smirnov distance, the
largest relative change of a histogram bin (50 bins over the central 99 % of the exact
distribution, bins with at least 20 events) and the largest relative change of one event's
value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from basketbench.measure.rootio.lossy_floats import Representation, roundtrip

Arrays = dict[str, Any]  # column name -> awkward array (jagged per event)


def _mass(e: Any, px: Any, py: Any, pz: Any) -> Any:
    import awkward as ak

    m2 = e * e - px * px - py * py - pz * pz
    return np.sqrt(ak.where(m2 > 0, m2, 0.0))


def _cartesian(pt: Any, eta: Any, phi: Any, mass: Any) -> tuple[Any, Any, Any, Any]:
    px, py, pz = pt * np.cos(phi), pt * np.sin(phi), pt * np.sinh(eta)
    return np.sqrt(px * px + py * py + pz * pz + mass * mass), px, py, pz


def _leading_sum(parts: list[Any], n: int) -> tuple[Any, Any]:
    """(mask of events with at least n objects, sum of the first n objects' components)."""
    import awkward as ak

    counts = ak.num(parts[0])
    enough = counts >= n
    return enough, [ak.sum(p[enough][:, :n], axis=1) for p in parts]


def dimuon_mass_xyz(a: Arrays) -> np.ndarray:
    enough, (e, px, py, pz) = _leading_sum(
        [a["Muon_E"], a["Muon_Px"], a["Muon_Py"], a["Muon_Pz"]], 2)
    return np.asarray(_mass(e, px, py, pz), np.float64)


def four_lepton_mass_xyz(a: Arrays) -> np.ndarray:
    import awkward as ak

    parts = [ak.concatenate([a[f"Muon_{c}"], a[f"Electron_{c}"]], axis=1)
             for c in ("E", "Px", "Py", "Pz")]
    _, (e, px, py, pz) = _leading_sum(parts, 4)
    return np.asarray(_mass(e, px, py, pz), np.float64)


def dimuon_mass_polar(a: Arrays) -> np.ndarray:
    e, px, py, pz = _cartesian(a["Muon_pt"], a["Muon_eta"], a["Muon_phi"], a["Muon_mass"])
    _, (e, px, py, pz) = _leading_sum([e, px, py, pz], 2)
    return np.asarray(_mass(e, px, py, pz), np.float64)


def jet_ht(a: Arrays) -> np.ndarray:
    import awkward as ak

    return np.asarray(ak.sum(a["Jet_pt"], axis=1), np.float64)


def jet_ht_xyz(a: Arrays) -> np.ndarray:
    import awkward as ak

    return np.asarray(ak.sum(np.hypot(a["Jet_Px"], a["Jet_Py"]), axis=1), np.float64)


@dataclass(frozen=True)
class Quantity:
    name: str
    columns: tuple[str, ...]
    compute: Callable[[Arrays], np.ndarray]


QUANTITIES = (
    Quantity("dimuon mass (GeV)", ("Muon_E", "Muon_Px", "Muon_Py", "Muon_Pz"), dimuon_mass_xyz),
    Quantity("four-lepton mass (GeV)",
             ("Muon_E", "Muon_Px", "Muon_Py", "Muon_Pz",
              "Electron_E", "Electron_Px", "Electron_Py", "Electron_Pz"), four_lepton_mass_xyz),
    Quantity("dimuon mass (GeV)", ("Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass"),
             dimuon_mass_polar),
    Quantity("jet HT (GeV)", ("Jet_pt",), jet_ht),
    Quantity("jet HT (GeV)", ("Jet_Px", "Jet_Py"), jet_ht_xyz),
)


def ks_distance(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic: the largest distance between the empirical
    distribution functions of x and y."""
    x, y = np.sort(x), np.sort(y)
    grid = np.concatenate([x, y])
    fx = np.searchsorted(x, grid, side="right") / len(x)
    fy = np.searchsorted(y, grid, side="right") / len(y)
    return float(np.max(np.abs(fx - fy))) if len(grid) else 0.0


def histogram_change(exact: np.ndarray, lossy: np.ndarray, bins: int = 50,
                     min_count: int = 20) -> float:
    low, high = np.quantile(exact, [0.005, 0.995])
    if not high > low:
        return 0.0
    h_exact, edges = np.histogram(exact, bins=bins, range=(low, high))
    h_lossy, _ = np.histogram(lossy, bins=edges)
    full = h_exact >= min_count
    if not full.any():
        return 0.0
    return float(np.max(np.abs(h_lossy[full] - h_exact[full]) / h_exact[full]))


def _through(rep: Representation, array: Any, ranges: dict[str, tuple[float, float]],
             name: str) -> Any:
    import awkward as ak

    flat = ak.to_numpy(ak.flatten(array, axis=None)).astype(np.float32)
    if rep.kind == "quant":
        rep = Representation("quant", rep.bits, *ranges[name])
    back = roundtrip(rep, flat)
    return ak.unflatten(back, ak.num(array, axis=1)) if array.ndim > 1 else back


def available(columns: set[str]) -> list[Quantity]:
    return [q for q in QUANTITIES if set(q.columns) <= columns]


def effect(quantity: Quantity, arrays: Arrays, rep: Representation,
           ranges: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """The quantity computed exactly and with its columns read back through `rep`."""
    exact = quantity.compute(arrays)
    lossy_arrays = {**arrays, **{c: _through(rep, arrays[c], ranges, c)
                                 for c in quantity.columns}}
    lossy = quantity.compute(lossy_arrays)
    ok = np.isfinite(exact) & np.isfinite(lossy)
    exact, lossy = exact[ok], lossy[ok]
    nonzero = exact != 0
    rel = np.abs(lossy[nonzero] - exact[nonzero]) / np.abs(exact[nonzero])
    return {"quantity": quantity.name, "columns": list(quantity.columns),
            "representation": rep.kind, "bits": rep.bits, "events": int(len(exact)),
            "ks_distance": ks_distance(exact, lossy),
            "max_bin_rel_change": histogram_change(exact, lossy),
            "max_event_rel_change": float(rel.max()) if len(rel) else 0.0}
