"""ArUco markers: finding them in a frame (sub-pixel corners) and printing them at true size.

`detect_markers` returns, for every marker id seen, its four corners in pixels in
OpenCV ArUco order (top-left, top-right, bottom-right, bottom-left of the marker image
as `cv2.aruco.generateImageMarker` draws it), refined to sub-pixel accuracy.

`write_marker_sheet` writes a printable sheet (PNG with its DPI in the file and on the
sheet, or a one-page-per-sheet PDF) of a rig's table and box markers at true size, each
labelled with its id and size, with a 100 mm scale bar to check the print.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from calibration.rig import Rig

MM_PER_INCH = 25.4
A4_MM = (210.0, 297.0)


# the largest magnified frame `detect_rig_markers` searches (1920×1080 ×2, 1280×720 ×3, 640×480 ×4)
MAX_MAGNIFIED_PX = 9.0e6


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined ArUco dictionary called `name` (e.g. 'DICT_4X4_50')."""
    if not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
        raise ValueError(f"unknown ArUco dictionary {name!r} (expected e.g. 'DICT_4X4_50')")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


@lru_cache(maxsize=8)
def _detector(dictionary_name: str) -> cv2.aruco.ArucoDetector:
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    parameters.cornerRefinementWinSize = 4
    parameters.cornerRefinementMaxIterations = 50
    parameters.cornerRefinementMinAccuracy = 0.01
    parameters.minMarkerPerimeterRate = 0.02  # 30 mm markers far away still count
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary_name), parameters)


def detect_markers(frame_bgr: np.ndarray, dictionary_name: str, refine_edges: bool = True,
                   upscale: int = 1) -> dict[int, np.ndarray]:
    """Every marker of `dictionary_name` in the frame: id -> 4×2 sub-pixel corners (ArUco order).

    A marker id seen twice (a reflection, a second print) is dropped: it cannot be trusted.
    With `refine_edges` the corners are then sharpened from the marker's outer edges. `upscale` > 1
    searches a magnified copy (markers only a dozen pixels wide), corners given in the frame's pixels.
    """
    if frame_bgr is None or np.asarray(frame_bgr).size == 0:
        raise ValueError("empty frame")
    gray = frame_bgr if frame_bgr.ndim == 2 else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    if upscale > 1:
        gray = cv2.resize(gray, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
    corners, ids, _rejected = _detector(dictionary_name).detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    repeated: set[int] = set()
    if ids is None:
        return found
    for marker_id, quad in zip(ids.ravel().tolist(), corners, strict=True):
        if marker_id in found:
            repeated.add(marker_id)
        found[marker_id] = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    for marker_id in repeated:
        del found[marker_id]
    if refine_edges:
        cells = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary_name)).markerSize + 2
        for marker_id, quad in found.items():
            found[marker_id] = refine_quad_edges(gray, quad, cells)
    if upscale > 1:  # pixel centres: u = (u' + 0.5) / s - 0.5
        found = {i: (q + 0.5) / upscale - 0.5 for i, q in found.items()}
    return found


def detect_rig_markers(frame_bgr: np.ndarray, dictionary_name: str, wanted_ids: set[int],
                       max_magnified_px: float = MAX_MAGNIFIED_PX) -> dict[int, np.ndarray]:
    """`detect_markers`, then magnified searches (×2, ×3, ×4) while some wanted markers are still missing
    (small ones: a box marker 10 px wide at 640×480 may be read only ×3 or ×4); beyond ×2 only while the
    magnified frame holds at most `max_magnified_px` pixels, and only wanted markers are taken: those
    searches are for markers known to be there, not for what else the frame holds."""
    found = detect_markers(frame_bgr, dictionary_name)
    height, width = frame_bgr.shape[:2]
    for upscale in (2, 3, 4):
        if not wanted_ids - set(found) or (upscale > 2 and width * height * upscale * upscale > max_magnified_px):
            break
        for marker_id, quad in detect_markers(frame_bgr, dictionary_name, upscale=upscale).items():
            if upscale == 2 or marker_id in wanted_ids:
                found.setdefault(marker_id, quad)
    return found


def refine_quad_edges(gray: np.ndarray, quad: np.ndarray, cells: int = 6) -> np.ndarray:
    """Sharper corners: the four outer edges located to sub-pixel accuracy, fitted as lines, intersected.

    Each side is sampled across at many points; the edge is where the profile crosses
    half-way between the black border and the white quiet zone. Corner-window methods are
    biased on small markers (the window reaches the border's inner edge); edges are not.
    Falls back to the given corners when a side cannot be measured.
    """
    quad = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    centre = quad.mean(axis=0)
    side_px = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))
    cell = side_px / cells
    reach = float(np.clip(0.6 * cell, 1.5, 4.0))
    offsets = np.arange(-reach, reach + 1e-9, 0.25)
    lines = []
    image, x0, y0 = _float_window(gray, quad, reach)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 8:
            return quad
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]])
        if np.dot(normal, (a + b) / 2 - centre) < 0:
            normal = -normal
        count = int(np.clip(length / 1.5, 6, 60))
        ts = np.linspace(0.12, 0.88, count)
        bases = a[None, :] + ts[:, None] * (b - a)[None, :]
        samples = bases[:, None, :] + offsets[None, :, None] * normal[None, None, :]
        map_xy = samples.astype(np.float32)
        # in the window's pixels: exact in float32 (an integer off a coordinate it does not exceed)
        map_x, map_y = map_xy[..., 0] - np.float32(x0), map_xy[..., 1] - np.float32(y0)
        profiles = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        k = max(2, len(offsets) // 5)
        dark = profiles[:, :k].mean(axis=1, keepdims=True)
        light = profiles[:, -k:].mean(axis=1, keepdims=True)
        level = (dark + light) / 2.0
        above = profiles >= level
        first = np.argmax(above, axis=1)
        good = (light[:, 0] - dark[:, 0] >= 20) & above.any(axis=1) & (first > 0)
        rows = np.nonzero(good)[0]
        j = first[rows]
        p0, p1 = profiles[rows, j - 1], profiles[rows, j]
        step_size = offsets[1] - offsets[0]
        offset = offsets[j - 1] + (level[rows, 0] - p0) / (p1 - p0 + 1e-12) * step_size
        points = bases[rows] + offset[:, None] * normal[None, :]
        if len(points) < 4:
            return quad
        # total least squares line, one pass of outlier rejection
        for _ in range(2):
            mean = points.mean(axis=0)
            _, _, vt = np.linalg.svd(points - mean)
            line_normal = vt[1]
            distances = (points - mean) @ line_normal
            keep = np.abs(distances) < max(0.5, 3.0 * float(np.std(distances)))
            if keep.all() or keep.sum() < 4:
                break
            points = points[keep]
        lines.append((mean, line_normal))
    refined = np.empty((4, 2))
    for i in range(4):
        (m1, n1), (m2, n2) = lines[(i - 1) % 4], lines[i]
        system = np.vstack([n1, n2])
        if abs(np.linalg.det(system)) < 1e-6:
            return quad
        refined[i] = np.linalg.solve(system, [n1 @ m1, n2 @ m2])
    if np.max(np.linalg.norm(refined - quad, axis=1)) > max(2.0, 0.5 * cell):
        return quad  # the edges disagree with the detection: keep the detector's corners
    return refined


def _float_window(gray: np.ndarray, quad: np.ndarray, reach_px: float) -> tuple[np.ndarray, int, int]:
    """The grey image as float32 round `quad` only, and the window's top-left corner (x0, y0).

    `refine_quad_edges` samples within `reach_px` of the quad's sides; converting the whole frame for
    each marker cost more than the sampling. The window reaches `_WINDOW_MARGIN_PX` beyond the samples
    (more than bilinear interpolation needs), or to the frame's edge, where the border is replicated as
    on the whole frame: each sample reads the same pixels with the same weights.
    """
    height, width = gray.shape[:2]
    low = np.floor(quad.min(axis=0) - reach_px) - _WINDOW_MARGIN_PX
    high = np.ceil(quad.max(axis=0) + reach_px) + _WINDOW_MARGIN_PX + 1
    x0, y0 = min(max(0, int(low[0])), width - 1), min(max(0, int(low[1])), height - 1)
    x1, y1 = min(width, max(x0 + 1, int(high[0]))), min(height, max(y0 + 1, int(high[1])))
    return gray[y0:y1, x0:x1].astype(np.float32), x0, y0


_WINDOW_MARGIN_PX = 8


# ---------------------------------------------------------------- printable sheets


def marker_image(dictionary_name: str, marker_id: int, side_px: int) -> np.ndarray:
    """The marker `marker_id` drawn `side_px` wide (black border included), grey levels."""
    return cv2.aruco.generateImageMarker(aruco_dictionary(dictionary_name), marker_id, side_px)


def _rig_marker_list(rig: Rig) -> list[tuple[int, float, str]]:
    table = [(m.id, m.size_mm, "table") for m in rig.table_markers]
    box = [(m.id, m.size_mm, f"box z={m.z_mm:g} mm") for m in rig.box.markers]
    return table + box


def render_marker_sheets(rig: Rig, dpi: int = 300, page_mm: tuple[float, float] = A4_MM) -> list[np.ndarray]:
    """Pages (grey images at `dpi`) with every marker of the rig at true size, ids labelled."""
    if dpi < 72 or dpi > 1200:
        raise ValueError(f"dpi must be between 72 and 1200, got {dpi}")
    px_per_mm = dpi / MM_PER_INCH
    page_w, page_h = (round(v * px_per_mm) for v in page_mm)
    margin = round(12 * px_per_mm)
    quiet = round(6 * px_per_mm)  # white quiet zone round each marker
    label_h = round(9 * px_per_mm)
    header_h = round(30 * px_per_mm)
    pages: list[np.ndarray] = []
    items = _rig_marker_list(rig)
    for size_mm in (s for _, s, _ in items):
        if size_mm * px_per_mm + 2 * margin > min(page_w, page_h):
            raise ValueError(f"a {size_mm:g} mm marker does not fit on a {page_mm[0]:g}×{page_mm[1]:g} mm page")

    def new_page() -> np.ndarray:
        page = np.full((page_h, page_w), 255, np.uint8)
        _draw_header(page, rig, dpi, px_per_mm, margin, len(pages) + 1)
        return page

    page = new_page()
    x, y, row_h = margin, margin + header_h, 0
    for marker_id, size_mm, where in items:
        side = round(size_mm * px_per_mm)
        cell_w, cell_h = side + 2 * quiet, side + 2 * quiet + label_h
        if x + cell_w > page_w - margin:
            x, y, row_h = margin, y + row_h, 0
        if y + cell_h > page_h - margin:
            pages.append(page)
            page = new_page()
            x, y, row_h = margin, margin + header_h, 0
        image = marker_image(rig.aruco_dictionary, marker_id, side)
        page[y + quiet : y + quiet + side, x + quiet : x + quiet + side] = image
        # thin cut guides at the quiet zone's corners
        for cx, cy in ((x, y), (x + cell_w, y), (x, y + side + 2 * quiet), (x + cell_w, y + side + 2 * quiet)):
            cv2.drawMarker(page, (cx, cy), 160, cv2.MARKER_CROSS, round(3 * px_per_mm), 1)
        text = f"id {marker_id}  {size_mm:g} mm  {where}"
        _put_text(page, text, (x + quiet, y + side + 2 * quiet + round(6 * px_per_mm)), px_per_mm, 2.4)
        x += cell_w + round(4 * px_per_mm)
        row_h = max(row_h, cell_h + round(4 * px_per_mm))
    pages.append(page)
    return pages


def _put_text(page: np.ndarray, text: str, origin: tuple[int, int], px_per_mm: float, height_mm: float) -> None:
    scale = height_mm * px_per_mm / 22.0  # FONT_HERSHEY_SIMPLEX is ~22 px tall at scale 1
    thickness = max(1, round(scale * 1.5))
    cv2.putText(page, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thickness, cv2.LINE_AA)


def _draw_header(page: np.ndarray, rig: Rig, dpi: int, px_per_mm: float, margin: int, number: int) -> None:
    _put_text(
        page,
        f"Meteors Judge markers  {rig.aruco_dictionary}  page {number}  printed at {dpi} dpi: "
        "print at 100% (no fit-to-page)",
        (margin, margin + round(4 * px_per_mm)),
        px_per_mm,
        2.6,
    )
    # the 100 mm scale bar, ticked every 10 mm
    bar_y = margin + round(14 * px_per_mm)
    left, length = margin, round(100 * px_per_mm)
    cv2.rectangle(page, (left, bar_y), (left + length, bar_y + round(3 * px_per_mm)), 0, -1)
    for tick in range(11):
        tx = left + round(tick * 10 * px_per_mm)
        cv2.line(page, (tx, bar_y - round(2 * px_per_mm)), (tx, bar_y), 0, max(1, round(0.3 * px_per_mm)))
    _put_text(page, "100 mm: measure this bar to check the print scale", (left + length + round(4 * px_per_mm),
              bar_y + round(3 * px_per_mm)), px_per_mm, 2.4)


def write_marker_sheet(rig: Rig, out: str | Path, dpi: int = 300) -> list[Path]:
    """Write the sheet(s): a PDF (one page per sheet) or PNG(s) carrying their DPI. Returns the files."""
    out = Path(out)
    pages = render_marker_sheets(rig, dpi)
    suffix = out.suffix.lower()
    if suffix == ".pdf":
        out.write_bytes(pdf_from_pages(pages, dpi))
        return [out]
    if suffix != ".png":
        raise ValueError(f"the marker sheet must be a .pdf or .png file, not {out.name!r}")
    written = []
    for number, page in enumerate(pages, start=1):
        path = out if len(pages) == 1 else out.with_name(f"{out.stem}-{number}{out.suffix}")
        path.write_bytes(png_with_dpi(page, dpi))
        written.append(path)
    return written


def png_with_dpi(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of `image` with a pHYs chunk so that viewers and printers know its DPI."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("cannot encode the sheet as PNG")
    data = encoded.tobytes()
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def png_dpi(data: bytes) -> float | None:
    """The DPI a PNG's pHYs chunk states, or None."""
    position = 8
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        if kind == b"pHYs":
            ppu_x, _ppu_y, unit = struct.unpack(">IIB", data[position + 8 : position + 17])
            return ppu_x * 0.0254 if unit == 1 else None
        position += 12 + length
    return None


def pdf_from_pages(pages: Iterable[np.ndarray], dpi: int) -> bytes:
    """A minimal PDF with one grey raster page per image, each at its true size for `dpi`."""
    objects: list[bytes] = []
    page_ids = []
    pages = list(pages)
    # object numbers: 1 catalog, 2 page tree, then (page, content, image) per page
    for index, image in enumerate(pages):
        height, width = image.shape[:2]
        w_pt, h_pt = width * 72.0 / dpi, height * 72.0 / dpi
        page_obj, content_obj, image_obj = 3 + 3 * index, 4 + 3 * index, 5 + 3 * index
        page_ids.append(page_obj)
        content = f"q {w_pt:.4f} 0 0 {h_pt:.4f} 0 0 cm /Im0 Do Q".encode()
        pixels = zlib.compress(np.ascontiguousarray(image, dtype=np.uint8).tobytes(), 6)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt:.4f} {h_pt:.4f}] "
            f"/Resources << /XObject << /Im0 {image_obj} 0 R >> >> /Contents {content_obj} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
        objects.append(
            f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceGray "
            f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n".encode()
            + pixels
            + b"\nendstream"
        )
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    head = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode()]
    all_objects = head + objects
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(all_objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(all_objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(all_objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
