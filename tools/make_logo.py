"""Draw a 256x256 competition logo per task and write it as a PNG, with the standard library only.

    python3 tools/make_logo.py TASK OUT.png     one logo
    python3 tools/make_logo.py --all            bundles/<task>/logo.png for every known task

Each known task has its own motif and colours; any other name gets concentric rings in a hue derived from the
name. Shapes are signed-distance functions, so edges are anti-aliased without supersampling, and the output is
the same bytes on every run.
"""
import argparse
import math
import os
import struct
import sys
import zlib

SIZE = 256
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------------------------------------------
# Signed distances (negative inside), in pixels


def circle(cx, cy, r):
    return lambda x, y: math.hypot(x - cx, y - cy) - r


def ring(cx, cy, r, width):
    return lambda x, y: abs(math.hypot(x - cx, y - cy) - r) - width / 2.0


def rounded_box(cx, cy, half_w, half_h, radius):
    def sd(x, y):
        qx = abs(x - cx) - half_w + radius
        qy = abs(y - cy) - half_h + radius
        return math.hypot(max(qx, 0.0), max(qy, 0.0)) + min(max(qx, qy), 0.0) - radius
    return sd


def segment(ax, ay, bx, by, radius):
    """A stroke with round caps from (ax, ay) to (bx, by)."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy

    def sd(x, y):
        t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length2))
        return math.hypot(x - ax - t * dx, y - ay - t * dy) - radius
    return sd


def polygon(points, rounding=0.0):
    """A convex or concave polygon; ``rounding`` grows it outwards with round corners."""
    n = len(points)

    def sd(x, y):
        best = float("inf")
        inside = False
        for i in range(n):
            ax, ay = points[i]
            bx, by = points[i - 1]
            ex, ey = bx - ax, by - ay
            wx, wy = x - ax, y - ay
            t = max(0.0, min(1.0, (wx * ex + wy * ey) / (ex * ex + ey * ey)))
            best = min(best, math.hypot(wx - ex * t, wy - ey * t))
            if (ay > y) != (by > y) and x < ax + (y - ay) * ex / ey:
                inside = not inside
        return (-best if inside else best) - rounding
    return sd


def intersect(*sds):
    return lambda x, y: max(sd(x, y) for sd in sds)


def below(y0):
    """The half-plane under the horizontal line y = y0."""
    return lambda x, y: y0 - y


# ---------------------------------------------------------------------------------------------------------------
# Canvas: straight-alpha RGBA floats, composited "over"


def rgb(hex_colour):
    hex_colour = hex_colour.lstrip("#")
    return tuple(int(hex_colour[i:i + 2], 16) / 255.0 for i in (0, 2, 4))


def mix(a, b, t):
    return tuple(p + (q - p) * t for p, q in zip(a, b))


class Canvas(object):
    def __init__(self, size=SIZE):
        self.size = size
        self.pixels = [[0.0, 0.0, 0.0, 0.0] for _ in range(size * size)]

    def draw(self, sd, bbox, colour, opacity=1.0):
        """Composite a shape; ``colour`` is an RGB tuple or a function of (x, y). Only ``bbox`` is visited."""
        x0, y0, x1, y1 = bbox
        size = self.size
        for py in range(max(0, int(y0) - 2), min(size, int(math.ceil(y1)) + 2)):
            cy = py + 0.5
            row = py * size
            for px in range(max(0, int(x0) - 2), min(size, int(math.ceil(x1)) + 2)):
                cx = px + 0.5
                # Coverage falls from 1 to 0 across the pixel that the edge crosses.
                coverage = 0.5 - sd(cx, cy)
                if coverage <= 0.0:
                    continue
                alpha = min(coverage, 1.0) * opacity
                src = colour(cx, cy) if callable(colour) else colour
                dst = self.pixels[row + px]
                out_a = alpha + dst[3] * (1.0 - alpha)
                for i in range(3):
                    dst[i] = (src[i] * alpha + dst[i] * dst[3] * (1.0 - alpha)) / out_a
                dst[3] = out_a

    def rgba_bytes(self):
        return bytes(int(round(max(0.0, min(1.0, v)) * 255)) for pixel in self.pixels for v in pixel)


def png_bytes(width, height, rgba):
    """An 8-bit RGBA PNG: signature, IHDR, one IDAT (each row prefixed by filter type 0), IEND."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    stride = width * 4
    raw = b"".join(b"\x00" + rgba[y * stride:(y + 1) * stride] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


# ---------------------------------------------------------------------------------------------------------------
# Motifs: each draws on a canvas that already has the task's background tile


def background(canvas, top, bottom):
    """A rounded tile with a vertical gradient; the corners stay transparent."""
    top, bottom = rgb(top), rgb(bottom)
    canvas.draw(rounded_box(128, 128, 120, 120, 44), (0, 0, SIZE, SIZE),
                lambda x, y: mix(top, bottom, y / SIZE))


def toxic_spans(canvas):
    """Lines of text as word bars, some words highlighted: spans marked inside a post."""
    background(canvas, "#26323f", "#16202b")
    text, red = rgb("#dfe6ee"), rgb("#ef4a5a")
    lines = [  # (word widths, index of the highlighted word or None); each line fits 48..216
        ([40, 58, 30], None),
        ([30, 64, 48], 1),
        ([52, 34, 44], None),
        ([60, 40], 0),
    ]
    for row, (widths, marked) in enumerate(lines):
        y = 74 + row * 36
        x = 48.0
        for index, width in enumerate(widths):
            cx = x + width / 2.0
            if index == marked:
                canvas.draw(rounded_box(cx, y, width / 2.0 + 7, 15, 8), (x - 8, y - 16, x + width + 8, y + 16),
                            red, 0.28)
                canvas.draw(rounded_box(cx, y, width / 2.0, 7, 7), (x, y - 8, x + width, y + 8), red)
            else:
                canvas.draw(rounded_box(cx, y, width / 2.0, 7, 7), (x, y - 8, x + width, y + 8), text, 0.82)
            x += width + 12


def food_hazard(canvas):
    """A plate carrying a warning sign."""
    background(canvas, "#1b7a52", "#0f4f35")
    canvas.draw(circle(128, 132, 86), (40, 44, 216, 220), rgb("#f7f4ec"))
    canvas.draw(ring(128, 132, 66, 3), (58, 62, 198, 202), rgb("#d8d2c2"))
    triangle = [(128, 78), (178, 166), (78, 166)]
    canvas.draw(polygon(triangle, 8), (68, 68, 188, 176), rgb("#f2a51a"))
    dark = rgb("#2b2118")
    canvas.draw(segment(128, 106, 128, 138, 6), (120, 98, 136, 146), dark)
    canvas.draw(circle(128, 154, 6.5), (120, 146, 136, 162), dark)


def cheers(canvas):
    """A grid of tiles, a few of them lit: report sentences sorted into sectors."""
    background(canvas, "#2e62b0", "#1b3c74")
    lit = {(0, 1): "#ffb547", (1, 0): "#ff7a59", (1, 2): "#ffd866", (2, 1): "#ff9a4d"}
    for row in range(3):
        for col in range(3):
            cx, cy = 72 + col * 56, 72 + row * 56
            box = (cx - 25, cy - 25, cx + 25, cy + 25)
            shape = rounded_box(cx, cy, 23, 23, 9)
            if (row, col) in lit:
                canvas.draw(shape, box, rgb(lit[(row, col)]))
            else:
                canvas.draw(shape, box, rgb("#ffffff"), 0.22)


def ehealth_kd(canvas):
    """Entities joined by relations, one of them a medical cross."""
    background(canvas, "#14a0a6", "#0a6670")
    nodes = [(74, 84), (168, 66), (186, 160), (98, 180), (132, 124)]
    edges = [(0, 4), (1, 4), (2, 4), (3, 4), (0, 1), (2, 3)]
    white = rgb("#ffffff")
    for a, b in edges:
        (ax, ay), (bx, by) = nodes[a], nodes[b]
        canvas.draw(segment(ax, ay, bx, by, 3.5), (min(ax, bx) - 5, min(ay, by) - 5, max(ax, bx) + 5,
                                                    max(ay, by) + 5), white, 0.7)
    for index, (x, y) in enumerate(nodes):
        radius = 30 if index == 4 else 17
        canvas.draw(circle(x, y, radius), (x - radius - 1, y - radius - 1, x + radius + 1, y + radius + 1),
                    rgb("#ff6b6b") if index == 4 else white)
    canvas.draw(rounded_box(132, 124, 6, 17, 2), (124, 105, 140, 143), white)
    canvas.draw(rounded_box(132, 124, 17, 6, 2), (113, 116, 151, 132), white)


def recipe_mpr(canvas):
    """A bowl under a row of choices, one of them picked."""
    background(canvas, "#e07a3f", "#b34a25")
    cream = rgb("#fff4e4")
    for index, x in enumerate((64, 96, 128, 160, 192)):
        if index == 3:
            canvas.draw(circle(x, 86, 15), (x - 16, 70, x + 16, 102), rgb("#ffd35a"))
            canvas.draw(segment(x - 6, 86, x - 1, 92, 2.6), (x - 10, 80, x + 2, 96), rgb("#8a3a14"))
            canvas.draw(segment(x - 1, 92, x + 8, 79, 2.6), (x - 4, 75, x + 12, 96), rgb("#8a3a14"))
        else:
            canvas.draw(ring(x, 86, 10, 4), (x - 13, 73, x + 13, 99), cream, 0.85)
    canvas.draw(intersect(circle(128, 140, 70), below(140)), (56, 138, 200, 212), cream)
    canvas.draw(rounded_box(128, 140, 80, 7, 7), (46, 132, 210, 148), rgb("#ffffff"))
    canvas.draw(rounded_box(128, 214, 30, 5, 5), (96, 208, 160, 220), cream)


def generic(canvas, name):
    """Concentric rings in a hue taken from the name, for tasks without a motif of their own."""
    hue = (zlib.crc32(name.encode("utf-8")) % 360) / 360.0

    def hsv(h, s, v):
        i = int(h * 6) % 6
        f = h * 6 - int(h * 6)
        p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
        return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    top, bottom = hsv(hue, 0.55, 0.75), hsv(hue, 0.65, 0.45)
    canvas.draw(rounded_box(128, 128, 120, 120, 44), (0, 0, SIZE, SIZE),
                lambda x, y: mix(top, bottom, y / SIZE))
    for radius, opacity in ((84, 0.35), (60, 0.6), (36, 0.9)):
        canvas.draw(ring(128, 128, radius, 10), (30, 30, 226, 226), (1.0, 1.0, 1.0), opacity)
    canvas.draw(circle(128, 128, 12), (114, 114, 142, 142), (1.0, 1.0, 1.0))


MOTIFS = {
    "toxic-spans": toxic_spans,
    "food-hazard": food_hazard,
    "cheers": cheers,
    "ehealth-kd": ehealth_kd,
    "recipe-mpr": recipe_mpr,
}


def render(task):
    """The logo's RGBA pixels (SIZE x SIZE, row-major, 4 bytes a pixel)."""
    canvas = Canvas()
    if task in MOTIFS:
        MOTIFS[task](canvas)
    else:
        generic(canvas, task)
    return canvas.rgba_bytes()


def logo_png(task):
    return png_bytes(SIZE, SIZE, render(task))


def write_logo(task, path):
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        os.makedirs(directory)
    with open(path, "wb") as handle:
        handle.write(logo_png(task))


def main(argv=None):
    parser = argparse.ArgumentParser(description="Draw a 256x256 PNG logo for a task.")
    parser.add_argument("task", nargs="?", help="task name, e.g. toxic-spans (known: %s)" % ", ".join(MOTIFS))
    parser.add_argument("out", nargs="?", help="the PNG file to write")
    parser.add_argument("--all", action="store_true", help="write bundles/<task>/logo.png for every known task")
    args = parser.parse_args(argv)
    if args.all:
        if args.task or args.out:
            parser.error("--all takes no TASK or OUT")
        for task in MOTIFS:
            path = os.path.join(ROOT, "bundles", task, "logo.png")
            write_logo(task, path)
            print("wrote %s" % os.path.relpath(path, ROOT))
        return 0
    if not (args.task and args.out):
        parser.error("give TASK and OUT.png, or --all")
    write_logo(args.task, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
