"""A viewport given by its visibleMapRect against MKMapView.setVisibleMapRect's rule
(mapRectThatFits:), written out here.
"""
import math

from .common import N, W, check, post, rng


def fit_checks():
    """A visibleMapRect viewport as MKMapView.setVisibleMapRect shows it (mapRectThatFits:): the whole
    rect, centred, zoomScale = min(width / rect.width, height / rect.height); written out here."""
    pairs = []
    for i in range(N // 5):
        width, height = rng.choice([(800, 400), (400, 800), (1024, 768), (390, 844), (728, 728)])
        rw, rh = W * rng.uniform(1e-6, 1), W * rng.uniform(1e-6, 1)
        ox, oy = rng.uniform(0, W - rw), rng.uniform(0, W - rh)
        view = {"size": {"width": width, "height": height}, "visibleMapRect": {"origin": {"x": ox, "y": oy}, "size": {"width": rw, "height": rh}}}
        zs = min(width / rw, height / rh)
        if not 0 <= 20 + math.log2(zs) <= 30:
            continue
        mx, my = ox + rw / 2, oy + rh / 2
        screen = [(rng.uniform(0, width), rng.uniform(0, height)) for _ in range(5)]
        got = post("/v1/convert/screen-points-to-map-points", {"viewport": view, "points": [{"x": x, "y": y} for x, y in screen]})["mapPoints"]
        for j, ((sx, sy), p) in enumerate(zip(screen, got)):
            ex, ey = (mx + (sx - width / 2) / zs) % W, my + (sy - height / 2) / zs
            pairs += [(f"{i}.{j}.x", p["x"], ex), (f"{i}.{j}.y", p["y"], ey)]
        described = post("/v1/viewport", {"viewport": view})
        pairs.append((f"{i}.zoomLevel", described["zoomLevel"], 20 + math.log2(zs)))
    check("visibleMapRect viewport vs mapRectThatFits written out", pairs, 1e-6)
