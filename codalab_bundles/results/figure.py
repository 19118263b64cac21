"""The results figure: each team's score with its interval, top team first, clusters shaded (matplotlib, written
as PNG and SVG, the same bytes from the same table: no dates, a fixed SVG id salt)."""
from __future__ import annotations

import textwrap
from typing import List, Optional, Tuple

from .tables import plain


class FigureError(Exception):
    pass


def draw(path_stem: str, title: str, label: str, teams: List[str], scores: List[float],
         intervals: List[Optional[Tuple[float, float]]], clusters: List[Optional[int]]) -> List[str]:
    """Write ``path_stem``.png and .svg; returns their paths. FigureError when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError as exc:  # an install without the figure's library still gets the tables
        raise FigureError("no figure: matplotlib cannot be imported (%s); pip install matplotlib" % exc)
    settings = {"svg.hashsalt": "codalab-bundles", "text.parse_math": False, "text.usetex": False,
                "font.family": "DejaVu Sans", "path.simplify": False}
    with matplotlib.rc_context(settings):
        height = 1.2 + 0.32 * max(len(teams), 1)
        figure, axes = pyplot.subplots(figsize=(6.4, height))
        positions = list(range(len(teams)))
        for number, cluster in enumerate(clusters):
            if cluster is not None and cluster % 2 == 0:
                axes.axhspan(number - 0.5, number + 0.5, color="#e8e8f4", zorder=0)
        low = [s - i[0] if i else 0.0 for s, i in zip(scores, intervals)]
        high = [i[1] - s if i else 0.0 for s, i in zip(scores, intervals)]
        axes.errorbar(scores, positions, xerr=[low, high], fmt="o", color="#1f3a93", ecolor="#555555",
                      capsize=3, markersize=4, zorder=2)
        axes.set_yticks(positions)
        axes.set_yticklabels([plain(t)[:40] for t in teams])
        axes.invert_yaxis()
        axes.set_xlabel(plain(label))
        axes.set_title("\n".join(textwrap.wrap(plain(title), 64)[:3]), fontsize=10)  # long titles: wrapped
        axes.grid(axis="x", color="#dddddd", zorder=1)
        figure.tight_layout()
        written = []
        for extension, metadata in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
            target = "%s.%s" % (path_stem, extension)
            figure.savefig(target, format=extension, dpi=150, metadata=metadata)
            written.append(target)
        pyplot.close(figure)
    return written
