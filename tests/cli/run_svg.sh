#!/bin/sh
# SPDX-License-Identifier: MIT
# run_svg.sh OUTDIR PACK RUN_OUTPUTS_H SLUICE...: `sluice run --svg` over
# 2000 frames (more than the timeline's points, so each point spans frames),
# the SVG rendered to PNG by rsvg-convert as a person would open it, and its
# layout checked from the SVG's own text and x positions: each text's width
# estimated by the writer's rule (RUN_SVG_GLYPH_EM em a glyph, read from
# RUN_OUTPUTS_H so the two cannot drift apart) fits its column: the labels
# end before the y axis's values, those before the plots, each table cell
# before the next column, nothing past the picture's edges, no two texts on
# top of each other. Without rsvg-convert it fails: scripts/deps.sh installs
# it (Debian's librsvg2-bin).
set -u
out=$1
pack=$2
header=$3
shift 3
fail() { echo "run_svg: $*" >&2; exit 1; }
command -v rsvg-convert > /dev/null 2>&1 ||
    fail "rsvg-convert not found: run scripts/deps.sh (it installs Debian's librsvg2-bin)"
mkdir -p "$out" || fail "mkdir $out"
rm -f "$out/run.svg" "$out/run.png"
"$@" run "$pack" --backend host --camera teleport --seed 3 --frames 2000 --svg "$out/run.svg" > "$out/report.txt" 2>&1 ||
    fail "sluice run failed: $(tail -3 "$out/report.txt")"
rsvg-convert -o "$out/run.png" "$out/run.svg" 2> "$out/rsvg.err" || fail "rsvg-convert failed: $(cat "$out/rsvg.err")"
[ ! -s "$out/rsvg.err" ] || fail "rsvg-convert warned: $(cat "$out/rsvg.err")"
python3 - "$out/run.svg" "$out/run.png" "$header" <<'PY' || fail "a text does not fit its column (above)"
import re, struct, sys
import xml.etree.ElementTree as ET

svg_path, png_path, header = sys.argv[1:4]
em = float(re.search(r"#define RUN_SVG_GLYPH_EM ([0-9.]+)", open(header).read()).group(1))
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg_path).getroot()
W, H = float(root.get("width")), float(root.get("height"))
assert "monospace" in root.get("font-family"), "the estimate is for a monospace font: %r" % root.get("font-family")
base = float(root.get("font-size"))

with open(png_path, "rb") as f:
    head = f.read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pw, ph = struct.unpack(">II", head[16:24])
assert (pw, ph) == (round(W), round(H)), "PNG %dx%d, SVG %gx%g" % (pw, ph, W, H)

boxes = []
for t in root.iter(ns + "text"):
    s = "".join(t.itertext())
    size = float(t.get("font-size", base))
    w = len(s) * em * size  # a code point a glyph: at most the writer's bytes
    x, y = float(t.get("x")), float(t.get("y"))
    anchor = t.get("text-anchor", "start")
    x0 = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
    boxes.append({"s": s, "cls": t.get("class", ""), "x0": x0, "x1": x0 + w, "x": x, "y": y, "size": size})
plots = [float(r.get("x")) for r in root.iter(ns + "rect") if r.get("class") == "plot"]
assert plots, "no plot rows"
plot_x = min(plots)

bad = []
def need(ok, what):
    if not ok:
        bad.append(what)

def by(cls):
    return [b for b in boxes if cls in b["cls"].split()]

for cls in ("title", "label", "ytick", "xtick"):
    need(by(cls), "no %s text" % cls)
for b in boxes:
    need(0 <= b["x0"] and b["x1"] <= W, "%r (x %.1f..%.1f) is outside the picture (width %g)" % (b["s"], b["x0"], b["x1"], W))
    need(b["y"] - b["size"] >= 0 and b["y"] <= H, "%r (y %.1f) is outside the picture (height %g)" % (b["s"], b["y"], H))
ytick_x0 = min(b["x0"] for b in by("ytick"))
for b in by("label"):
    need(b["x1"] <= ytick_x0, "label %r ends at %.1f, past the label column (%.1f)" % (b["s"], b["x1"], ytick_x0))
for b in by("ytick"):
    need(b["x1"] <= plot_x, "y value %r ends at %.1f, past the plot's edge (%.1f)" % (b["s"], b["x1"], plot_x))
cols = sorted({b["x"] for b in by("cell")})
for b in by("cell"):
    i = cols.index(b["x"])
    end = cols[i + 1] if i + 1 < len(cols) else W
    need(b["x1"] <= end, "cell %r ends at %.1f, past its column (%.1f)" % (b["s"], b["x1"], end))
for i, a in enumerate(boxes):
    for b in boxes[i + 1:]:
        if abs(a["y"] - b["y"]) < max(a["size"], b["size"]) and a["x0"] < b["x1"] and b["x0"] < a["x1"]:
            bad.append("%r and %r overlap" % (a["s"], b["s"]))
for what in bad:
    print("run_svg:", what, file=sys.stderr)
print("run_svg: %d texts in a %gx%g picture, %d plot rows, %d table cells" % (len(boxes), W, H, len(plots), len(by("cell"))))
sys.exit(1 if bad else 0)
PY
echo "run_svg: ok ($out/run.png)"
